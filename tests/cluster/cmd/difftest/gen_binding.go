package main

// The storage profile's volume binding: claims of WaitForFirstConsumer classes that are unbound
// when the pods come, so the scheduler's VolumeBinding plugin must match them to static
// volumes or have them provisioned, and write that choice (a PV's claimRef, a claim's
// volume.kubernetes.io/selected-node) before it binds the pod. It needs the storage flow of
// the test cluster (tests/cluster/up --storage): the PV controller binds what the scheduler
// chose, the test provisioner stowage.dev/test-provisioner provisions hostPath volumes pinned
// to the selected node, and the driver runs a second one as the CSI driver csi.stowage.dev
// (main.go), whose CSIStorageCapacity objects gate provisioning per zone or node.
//
// Drawn from a stream of its own, after gen_storage.go's, so a seed keeps its basic state and
// its bound volumes.
//
// Static volumes come in shapes: within a class, two shapes never share a capacity, and a
// shape has one volume or two identical twins. Upstream picks the smallest matching volume and
// takes the first of equal ones in an order that is random, so a claim bound to either twin
// is a tie (compare.go), and which volume a claim gets is otherwise determined.

import (
	"fmt"
	"math/rand/v2"
	"slices"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	classProvisioned = "difftest-provisioned" // WaitForFirstConsumer, the test provisioner
	classZonal       = "difftest-zonal"       // the same, with allowedTopologies on zones
	classLocal       = "difftest-local"       // WaitForFirstConsumer, static volumes only
	classCSI         = "difftest-csi"         // WaitForFirstConsumer, a CSI driver with capacities
	// TestProvisioner is the provisioner the test cluster's storage flow runs.
	TestProvisioner = "stowage.dev/test-provisioner"
	// CSIProvisioner is the name of the provisioner the driver runs beside it, a CSIDriver with
	// storageCapacity: true (a CSIDriver's name cannot hold the test provisioner's slash).
	CSIProvisioner   = "csi.stowage.dev"
	noProvisioner    = "kubernetes.io/no-provisioner"
	terminatingClaim = "claim-terminating"
	// A claim carrying terminateAnnotation is deleted once created; holdFinalizer keeps it.
	terminateAnnotation = "difftest.example.com/terminate"
	holdFinalizer       = "difftest.example.com/hold"
	speedLabel          = "difftest.example.com/speed"
)

// addBinding adds the volume-binding objects and the pods' uses of them to a storage state.
func addBinding(seed uint64, s *State) {
	r := rand.New(rand.NewPCG(seed, 0xb1d1))
	wait := storagev1.VolumeBindingWaitForFirstConsumer
	class := func(name, provisioner string) storagev1.StorageClass {
		return storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: provisioner,
			VolumeBindingMode: &wait}
	}
	zonal := class(classZonal, TestProvisioner)
	zonal.AllowedTopologies = []v1.TopologySelectorTerm{{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{
		Key: v1.LabelTopologyZone, Values: someOf(r, zones, 1+r.IntN(2))}}}}
	s.StorageClasses = append(s.StorageClasses, class(classProvisioned, TestProvisioner), zonal,
		class(classLocal, noProvisioner), class(classCSI, CSIProvisioner))
	s.CSIDrivers = []storagev1.CSIDriver{{ObjectMeta: metav1.ObjectMeta{Name: CSIProvisioner},
		Spec: storagev1.CSIDriverSpec{AttachRequired: ptr(false), PodInfoOnMount: ptr(false),
			StorageCapacity: ptr(true)}}}
	s.CSIStorageCapacities = genCapacities(r, s.Nodes)

	// Static volumes: of the local class, and a few of the provisioned one (matched first).
	local := genStatic(r, "local", classLocal, 2+r.IntN(5), []int64{1, 2, 3, 4, 6, 8, 10, 12}, s.Nodes)
	static := genStatic(r, "prov-static", classProvisioned, r.IntN(3), []int64{2, 4, 6}, s.Nodes)
	s.PersistentVolumes = append(append(s.PersistentVolumes, local...), static...)

	// Unbound claims, the first four of each class in turn, and one terminating.
	var dynamic []string
	for i, n := 0, 4+r.IntN(len(s.Pods)/3+2); i < n; i++ {
		c := genDynamicClaim(r, fmt.Sprintf("dyn-%02d", i), i)
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, c)
		dynamic = append(dynamic, c.Name)
	}
	s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: terminatingClaim, Namespace: namespace,
			Annotations: map[string]string{terminateAnnotation: "true"}, Finalizers: []string{holdFinalizer}},
		Spec: v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: ptr(classProvisioned), Resources: claimSize()},
	})

	for i := range s.Pods {
		spec := &s.Pods[i].Spec
		var used []string
		for v, pct := range []int{35, 10} {
			if c := pick(r, dynamic); chance(r, pct) && !slices.Contains(used, c) {
				used = append(used, c)
				spec.Volumes = append(spec.Volumes, claimVolume(fmt.Sprintf("dyn-%d", v), c, false))
			}
		}
		if chance(r, 4) {
			spec.Volumes = append(spec.Volumes, claimVolume("term", terminatingClaim, false))
		}
	}
	// Pods of their own, a quarter as many (at least two), after the others: small requests, no
	// tolerations, one or two of the waiting claims and sometimes a zone, so that most reach
	// VolumeBinding's Filter and many get their claims bound.
	for i, n := 0, max(2, len(s.Pods)/4); i < n; i++ {
		pod := storagePod(fmt.Sprintf("vol-%02d", i))
		pod.Spec.Containers[0].Resources.Requests = v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(100, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(128*mib, resource.BinarySI)}
		first := pick(r, dynamic)
		pod.Spec.Volumes = []v1.Volume{claimVolume("dyn-0", first, false)}
		if c := pick(r, dynamic); chance(r, 25) && c != first {
			pod.Spec.Volumes = append(pod.Spec.Volumes, claimVolume("dyn-1", c, false))
		}
		if chance(r, 25) {
			pod.Spec.NodeSelector = map[string]string{v1.LabelTopologyZone: pick(r, zones)}
		}
		s.Pods = append(s.Pods, pod)
	}
}

// someOf returns n distinct elements of xs in xs's order.
func someOf[T any](r *rand.Rand, xs []T, n int) []T {
	idx := r.Perm(len(xs))[:n]
	slices.Sort(idx)
	out := make([]T, n)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

func gib(n int64) resource.Quantity { return *resource.NewQuantity(n<<30, resource.BinarySI) }

// genCapacities covers each zone with one CSIStorageCapacity for the whole zone, or one per
// node of the zone, or none (no provisioning there). No node is covered twice: upstream scores
// with the first sufficient object it lists, in an order that is random.
func genCapacities(r *rand.Rand, nodes []v1.Node) []storagev1.CSIStorageCapacity {
	var out []storagev1.CSIStorageCapacity
	add := func(name string, topology map[string]string) {
		c := storagev1.CSIStorageCapacity{
			ObjectMeta:       metav1.ObjectMeta{Name: name, Namespace: namespace},
			StorageClassName: classCSI,
			NodeTopology:     &metav1.LabelSelector{MatchLabels: topology},
			Capacity:         ptr(gib(pick(r, []int64{1, 3, 10, 40}))),
		}
		if chance(r, 30) { // upstream checks the maximum volume size first, and scores by capacity
			c.MaximumVolumeSize = ptr(gib(pick(r, []int64{2, 4})))
		}
		out = append(out, c)
	}
	for _, z := range zones {
		switch k := r.IntN(100); {
		case k < 65:
			add("csi-"+z, map[string]string{v1.LabelTopologyZone: z})
		case k < 80:
			for _, n := range nodes {
				if n.Labels[v1.LabelTopologyZone] == z {
					add("csi-"+n.Name, map[string]string{v1.LabelHostname: n.Labels[v1.LabelHostname]})
				}
			}
		}
	}
	return out
}

// genStatic makes shapes unbound volumes of class, named prefix-NN, each shape of its own
// capacity (from sizes, in GiB), access modes, speed label and node affinity (none, one node,
// or one zone), and 30% of them as two identical twins.
func genStatic(r *rand.Rand, prefix, class string, shapes int, sizes []int64, nodes []v1.Node) []v1.PersistentVolume {
	var out []v1.PersistentVolume
	caps := someOf(r, sizes, min(shapes, len(sizes)))
	r.Shuffle(len(caps), func(i, j int) { caps[i], caps[j] = caps[j], caps[i] })
	for _, size := range caps {
		pv := v1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}},
			Spec: v1.PersistentVolumeSpec{
				Capacity:                      v1.ResourceList{v1.ResourceStorage: gib(size)},
				AccessModes:                   pick(r, accessModeSets),
				StorageClassName:              class,
				PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimRetain,
			},
		}
		if chance(r, 80) {
			pv.Labels[speedLabel] = pick(r, []string{"fast", "slow"})
		}
		var req *v1.NodeSelectorRequirement
		switch k := r.IntN(100); {
		case k < 35:
		case k < 75:
			req = &v1.NodeSelectorRequirement{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn,
				Values: []string{pick(r, nodes).Labels[v1.LabelHostname]}}
		default:
			req = &v1.NodeSelectorRequirement{Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpIn,
				Values: []string{pick(r, zones)}}
		}
		if req != nil {
			pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{
				NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{*req}}}}}
		}
		copies := 1
		if chance(r, 30) {
			copies = 2
		}
		for c := 0; c < copies; c++ {
			v := *pv.DeepCopy()
			v.Name = fmt.Sprintf("%s-%02d", prefix, len(out))
			v.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/mnt/" + v.Name}}
			out = append(out, v)
		}
	}
	return out
}

// accessModeSets are the access modes of static volumes and unbound claims.
var accessModeSets = [][]v1.PersistentVolumeAccessMode{
	{v1.ReadWriteOnce}, {v1.ReadWriteOnce}, {v1.ReadWriteOnce, v1.ReadWriteMany},
	{v1.ReadWriteOncePod}, {v1.ReadWriteMany},
}

// genDynamicClaim is the i-th unbound claim, of one of the four WaitForFirstConsumer classes
// (class i for i < 4, else drawn). Only claims of the local class get a selector: the test
// provisioner refuses claims with one.
func genDynamicClaim(r *rand.Rand, name string, i int) v1.PersistentVolumeClaim {
	c := v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       v1.PersistentVolumeClaimSpec{AccessModes: pick(r, accessModeSets)},
	}
	var sizes []int64
	k := r.IntN(100)
	if i < 4 {
		k = []int{0, 30, 50, 80}[i]
	}
	switch {
	case k < 30:
		c.Spec.StorageClassName, sizes = ptr(classProvisioned), []int64{1, 2, 5}
	case k < 50:
		c.Spec.StorageClassName, sizes = ptr(classZonal), []int64{1, 2, 5}
	case k < 80:
		c.Spec.StorageClassName, sizes = ptr(classLocal), []int64{1, 2, 3, 4, 6, 8, 12, 16}
		switch k := r.IntN(100); {
		case k < 15:
			c.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{speedLabel: "fast"}}
		case k < 25:
			c.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: speedLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"fast", "slow"}}}}
		case k < 30:
			c.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: speedLabel, Operator: metav1.LabelSelectorOpDoesNotExist}}}
		}
	default:
		c.Spec.StorageClassName, sizes = ptr(classCSI), []int64{1, 2, 4, 8, 16}
	}
	c.Spec.Resources = v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: gib(pick(r, sizes))}}
	return c
}
