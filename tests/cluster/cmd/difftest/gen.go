package main

// The seeded generator of cluster states. The basic profile is a list of nodes and a list of
// pods: resources (cpu, memory, pods, ephemeral-storage and one extended resource), labels,
// taints of every effect, unschedulable nodes, images with sizes, tolerations, nodeSelector,
// required and preferred node affinity (matchFields metadata.name included), hostPorts and
// container images, all of one priority. The affinity profile (gen_affinity.go) adds what
// InterPodAffinity and PodTopologySpread read on top of the same basic state.
//
// The same seed, sizes and profile always give the same state: every random choice is drawn
// from PCG streams in a fixed order, and maps are never iterated while drawing. A plugin that
// lands in stowage extends the generator with its own fields.

import (
	"fmt"
	"math/rand/v2"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourceapi "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	namespace   = "difftest"
	gpuResource = v1.ResourceName("example.com/gpu")
	tierLabel   = "difftest.example.com/tier"
	diskLabel   = "difftest.example.com/disk"
	genLabel    = "difftest.example.com/generation" // numeric, for Gt and Lt
	mib         = int64(1) << 20
)

var (
	zones      = []string{"zone-a", "zone-b", "zone-c"}
	tiers      = []string{"gold", "silver", "bronze"}
	disks      = []string{"ssd", "hdd"}
	taintKeys  = []string{"dedicated", "gpu", "maintenance"}
	taintVals  = []string{"infra", "batch"}
	effects    = []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute}
	hostPorts  = []int32{8080, 8443, 9090}
	imagePool  = []string{"registry.example.com/web", "registry.example.com/db:15", "registry.example.com/cache:7", "docker.io/library/busybox", "registry.example.com/ml:2.1", "registry.example.com/tiny:1"}
	imageSizes = []int64{300, 650, 120, 5, 900, 40} // MiB; per node a size may differ (see genNode)
)

// Generator profiles.
const (
	ProfileBasic    = "basic"    // nodes and bare pods of the difftest namespace
	ProfileAffinity = "affinity" // basic, plus namespaces, owners, Services, existing pods, pod (anti-)affinity and spread
	// ProfileStorage (gen_storage.go): basic, plus classes, volumes, claims and pods using them.
	// ProfileDRA (gen_dra.go): basic, plus devices, device classes, resource claims and templates.
)

// State is one generated cluster state. The run creates its namespaces, Services and owners
// before the scheduler starts, its existing pods bound to their nodes once the nodes are in,
// then its pods.
type State struct {
	Seed    uint64 `json:"seed"`
	Profile string `json:"profile,omitempty"`
	// Namespaces: labels for namespace difftest and the extra namespaces of the state.
	Namespaces             []v1.Namespace             `json:"namespaces,omitempty"`
	Services               []v1.Service               `json:"services,omitempty"`
	ReplicaSets            []appsv1.ReplicaSet        `json:"replicaSets,omitempty"`
	StatefulSets           []appsv1.StatefulSet       `json:"statefulSets,omitempty"`
	ReplicationControllers []v1.ReplicationController `json:"replicationControllers,omitempty"`
	// PriorityClasses are created if missing and never deleted (every state has the same ones).
	PriorityClasses []schedulingv1.PriorityClass `json:"priorityClasses,omitempty"`
	// PDBs are created with the status given here, which stays: no disruption controller runs.
	PDBs []policyv1.PodDisruptionBudget `json:"pdbs,omitempty"`
	// Storage (the storage profile): classes, CSI drivers and volumes are cluster-wide, claims
	// and capacities in difftest. Classes, drivers and capacities are created once per state;
	// volumes and claims afresh before every run (the PV controller, the provisioners and the
	// schedulers change them). A claim with a status is created with it; a volume with a
	// claimRef gets that claim's UID; a claim annotated terminateAnnotation is deleted once
	// created (its own finalizer keeps it terminating).
	StorageClasses       []storagev1.StorageClass       `json:"storageClasses,omitempty"`
	CSIDrivers           []storagev1.CSIDriver          `json:"csiDrivers,omitempty"`
	CSIStorageCapacities []storagev1.CSIStorageCapacity `json:"csiStorageCapacities,omitempty"`
	// CSINodes and VolumeAttachments (gen_csilimits.go) are created once per state, like the
	// classes: nothing else writes them on the test cluster (no kubelet, no attach controller).
	CSINodes               []storagev1.CSINode          `json:"csiNodes,omitempty"`
	VolumeAttachments      []storagev1.VolumeAttachment `json:"volumeAttachments,omitempty"`
	PersistentVolumes      []v1.PersistentVolume        `json:"persistentVolumes,omitempty"`
	PersistentVolumeClaims []v1.PersistentVolumeClaim   `json:"persistentVolumeClaims,omitempty"`
	// DRA (the dra profile, gen_dra.go): classes, slices and templates are created once per
	// state, like the storage classes; claims afresh before every run (the schedulers allocate
	// them, the resourceclaim controller makes the templates' ones). A claim with an allocation
	// is reserved for the existing pod that names it once that pod exists (dra.go).
	DeviceClasses          []resourceapi.DeviceClass           `json:"deviceClasses,omitempty"`
	ResourceSlices         []resourceapi.ResourceSlice         `json:"resourceSlices,omitempty"`
	ResourceClaimTemplates []resourceapi.ResourceClaimTemplate `json:"resourceClaimTemplates,omitempty"`
	ResourceClaims         []resourceapi.ResourceClaim         `json:"resourceClaims,omitempty"`
	// Scoring (the dra profile, gen_drascore.go) is the resource scoring both schedulers are
	// configured with (sched.go); without it they get the default profile.
	Scoring *Scoring  `json:"scoring,omitempty"`
	Nodes   []v1.Node `json:"nodes"`
	// Existing pods are bound to their nodes (spec.nodeName) before the pods come; not compared.
	Existing []v1.Pod `json:"existing,omitempty"`
	Pods     []v1.Pod `json:"pods"`
}

// Generate builds the state of seed with n nodes and p pods in profile.
func Generate(seed uint64, n, p int, profile string) State {
	if profile == ProfilePreemption {
		return generatePreemption(seed, n, p)
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	s := State{Seed: seed}
	for i := 0; i < n; i++ {
		s.Nodes = append(s.Nodes, genNode(r, i))
	}
	for i := 0; i < p; i++ {
		s.Pods = append(s.Pods, genPod(r, i, n))
	}
	if profile == ProfileAffinity {
		addAffinity(&s)
	}
	if profile == ProfileStorage {
		addStorage(seed, &s)
		addBinding(seed, &s)
		addCSILimits(seed, &s)
	}
	if profile == ProfileDRA {
		addDRA(seed, &s)
	}
	return s
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// chance is true with probability pct percent.
func chance(r *rand.Rand, pct int) bool { return r.IntN(100) < pct }

func nodeName(i int) string { return fmt.Sprintf("node-%02d", i) }

func genNode(r *rand.Rand, i int) v1.Node {
	name := nodeName(i)
	cpu := []int64{1000, 2000, 4000, 8000}[r.IntN(4)]
	mem := []int64{2048, 4096, 8192, 16384}[r.IntN(4)] * mib
	pods := []int64{3, 5, 10, 110}[r.IntN(4)]
	capacity := v1.ResourceList{
		v1.ResourceCPU:              *resource.NewMilliQuantity(cpu, resource.DecimalSI),
		v1.ResourceMemory:           *resource.NewQuantity(mem, resource.BinarySI),
		v1.ResourcePods:             *resource.NewQuantity(pods, resource.DecimalSI),
		v1.ResourceEphemeralStorage: *resource.NewQuantity(int64(10+r.IntN(90))*1024*mib, resource.BinarySI),
	}
	if chance(r, 30) {
		capacity[gpuResource] = *resource.NewQuantity(int64(1+r.IntN(4)), resource.DecimalSI)
	}
	zone := pick(r, zones)
	labels := map[string]string{
		v1.LabelHostname:          name,
		v1.LabelTopologyZone:      zone,
		v1.LabelTopologyRegion:    "region-" + map[string]string{"zone-a": "1", "zone-b": "1", "zone-c": "2"}[zone],
		tierLabel:                 pick(r, tiers),
		genLabel:                  fmt.Sprint(1 + r.IntN(5)),
		v1.LabelOSStable:          "linux",
		"kubernetes.io/arch":      "amd64",
		"difftest.example.com/id": fmt.Sprint(i),
	}
	if chance(r, 60) {
		labels[diskLabel] = pick(r, disks)
	}
	var taints []v1.Taint
	for _, k := range taintKeys {
		if chance(r, 12) {
			t := v1.Taint{Key: k, Effect: pick(r, effects)}
			if chance(r, 70) {
				t.Value = pick(r, taintVals)
			}
			taints = append(taints, t)
		}
	}
	var images []v1.ContainerImage
	for j, img := range imagePool {
		if !chance(r, 35) {
			continue
		}
		size := imageSizes[j] * mib
		if chance(r, 30) { // nodes may report one image at different sizes
			size += int64(r.IntN(200)) * mib
		}
		images = append(images, v1.ContainerImage{Names: []string{normalizedImage(img)}, SizeBytes: size})
	}
	return v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       v1.NodeSpec{Taints: taints, Unschedulable: chance(r, 7)},
		Status: v1.NodeStatus{
			Capacity: capacity, Allocatable: capacity.DeepCopy(), Images: images,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue,
				Reason: "KubeletReady", Message: "difftest node"}},
		},
	}
}

// normalizedImage is the name as kubelets report it (a tag is always present).
func normalizedImage(name string) string {
	for i := len(name) - 1; i >= 0 && name[i] != '/'; i-- {
		if name[i] == ':' {
			return name
		}
	}
	return name + ":latest"
}

func genPod(r *rand.Rand, i, nodes int) v1.Pod {
	pod := v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%02d", i), Namespace: namespace}}
	spec := &pod.Spec
	spec.TerminationGracePeriodSeconds = new(int64)
	used := map[string]bool{} // the apiserver rejects a pod asking twice for one host port
	for c := 0; c < 1+r.IntN(2); c++ {
		ctr := genContainer(r, fmt.Sprintf("c%d", c))
		for _, p := range ctr.Ports {
			key := fmt.Sprint(p.Protocol, p.HostPort)
			if used[key] {
				ctr.Ports = nil
			}
			used[key] = true
		}
		spec.Containers = append(spec.Containers, ctr)
	}
	if chance(r, 15) {
		spec.InitContainers = []v1.Container{genContainer(r, "init")}
		spec.InitContainers[0].Ports = nil
	}
	for _, k := range taintKeys {
		if chance(r, 30) {
			t := v1.Toleration{Key: k, Operator: v1.TolerationOpExists}
			if chance(r, 50) {
				t.Operator, t.Value = v1.TolerationOpEqual, pick(r, taintVals)
			}
			if chance(r, 60) {
				t.Effect = pick(r, effects)
			}
			spec.Tolerations = append(spec.Tolerations, t)
		}
	}
	if chance(r, 5) { // tolerates everything
		spec.Tolerations = append(spec.Tolerations, v1.Toleration{Operator: v1.TolerationOpExists})
	}
	if chance(r, 20) {
		spec.NodeSelector = map[string]string{}
		if chance(r, 50) {
			spec.NodeSelector[v1.LabelTopologyZone] = pick(r, zones)
		} else {
			spec.NodeSelector[tierLabel] = pick(r, tiers)
		}
	}
	var na v1.NodeAffinity
	if chance(r, 30) {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &v1.NodeSelector{}
		for t := 0; t < 1+r.IntN(2); t++ {
			term := genTerm(r, nodes, true)
			na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(
				na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, term)
		}
	}
	if chance(r, 40) {
		for t := 0; t < 1+r.IntN(3); t++ {
			na.PreferredDuringSchedulingIgnoredDuringExecution = append(
				na.PreferredDuringSchedulingIgnoredDuringExecution,
				v1.PreferredSchedulingTerm{Weight: int32(1 + r.IntN(100)), Preference: genTerm(r, nodes, false)})
		}
	}
	if na.RequiredDuringSchedulingIgnoredDuringExecution != nil || na.PreferredDuringSchedulingIgnoredDuringExecution != nil {
		spec.Affinity = &v1.Affinity{NodeAffinity: &na}
	}
	return pod
}

func genContainer(r *rand.Rand, name string) v1.Container {
	c := v1.Container{Name: name, Image: pick(r, imagePool)}
	if chance(r, 15) {
		c.Image = "registry.example.com/absent:" + fmt.Sprint(r.IntN(3)) // on no node
	}
	if chance(r, 85) {
		c.Resources.Requests = v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(int64(50*(1+r.IntN(20))), resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(int64(64*(1+r.IntN(32)))*mib, resource.BinarySI),
		}
		if chance(r, 20) {
			c.Resources.Requests[v1.ResourceEphemeralStorage] = *resource.NewQuantity(int64(1+r.IntN(40))*1024*mib, resource.BinarySI)
		}
		if chance(r, 15) {
			gpus := *resource.NewQuantity(int64(1+r.IntN(2)), resource.DecimalSI)
			c.Resources.Requests[gpuResource] = gpus
			c.Resources.Limits = v1.ResourceList{gpuResource: gpus} // extended resources need limit == request
		}
	}
	if chance(r, 15) {
		p := v1.ContainerPort{ContainerPort: 80, HostPort: pick(r, hostPorts), Protocol: v1.ProtocolTCP}
		if chance(r, 25) {
			p.Protocol = v1.ProtocolUDP
		}
		if chance(r, 25) {
			p.HostIP = "127.0.0.1"
		}
		c.Ports = []v1.ContainerPort{p}
	}
	return c
}

// genTerm is a node selector term of one or two expressions; required terms may also name
// nodes by matchFields metadata.name (the only field upstream allows).
func genTerm(r *rand.Rand, nodes int, required bool) v1.NodeSelectorTerm {
	var term v1.NodeSelectorTerm
	if required && chance(r, 25) {
		// The apiserver allows one value for a field requirement; terms OR several names.
		op := v1.NodeSelectorOpIn
		if chance(r, 25) {
			op = v1.NodeSelectorOpNotIn
		}
		term.MatchFields = []v1.NodeSelectorRequirement{{Key: metav1.ObjectNameField,
			Operator: op, Values: []string{nodeName(r.IntN(nodes))}}}
		if chance(r, 60) {
			return term
		}
	}
	for e := 0; e < 1+r.IntN(2); e++ {
		var req v1.NodeSelectorRequirement
		switch r.IntN(6) {
		case 0:
			req = v1.NodeSelectorRequirement{Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpIn,
				Values: []string{pick(r, zones), pick(r, zones)}}
		case 1:
			req = v1.NodeSelectorRequirement{Key: tierLabel, Operator: v1.NodeSelectorOpNotIn,
				Values: []string{pick(r, tiers)}}
		case 2:
			req = v1.NodeSelectorRequirement{Key: diskLabel, Operator: v1.NodeSelectorOpExists}
		case 3:
			req = v1.NodeSelectorRequirement{Key: diskLabel, Operator: v1.NodeSelectorOpDoesNotExist}
		case 4:
			req = v1.NodeSelectorRequirement{Key: genLabel, Operator: v1.NodeSelectorOpGt,
				Values: []string{fmt.Sprint(r.IntN(5))}}
		default:
			req = v1.NodeSelectorRequirement{Key: genLabel, Operator: v1.NodeSelectorOpLt,
				Values: []string{fmt.Sprint(2 + r.IntN(4))}}
		}
		term.MatchExpressions = append(term.MatchExpressions, req)
	}
	return term
}
