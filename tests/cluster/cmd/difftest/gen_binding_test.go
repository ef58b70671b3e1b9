package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The binding objects come from a stream of their own, after the rest: a seed keeps its basic
// nodes and pods and its bound volumes, claims, existing pods and the volumes gen_storage.go
// gives pods.
func TestBindingOnlyAdds(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		full := Generate(seed, 8, 16, ProfileStorage)
		before := Generate(seed, 8, 16, ProfileBasic)
		addStorage(seed, &before)
		if !reflect.DeepEqual(full.Nodes, before.Nodes) || !hasPrefix(full.Existing, before.Existing) {
			t.Fatalf("seed %d: nodes or existing pods changed", seed)
		}
		if !reflect.DeepEqual(full.PersistentVolumes[:len(before.PersistentVolumes)], before.PersistentVolumes) ||
			!reflect.DeepEqual(full.PersistentVolumeClaims[:len(before.PersistentVolumeClaims)], before.PersistentVolumeClaims) ||
			!reflect.DeepEqual(full.StorageClasses[:len(before.StorageClasses)], before.StorageClasses) {
			t.Fatalf("seed %d: the bound volumes, their claims or classes changed", seed)
		}
		for i, p := range before.Pods {
			got := full.Pods[i]
			if !reflect.DeepEqual(got.Spec.Volumes[:len(p.Spec.Volumes)], p.Spec.Volumes) && len(p.Spec.Volumes) > 0 {
				t.Fatalf("seed %d: pod %s lost its volumes", seed, p.Name)
			}
			got.Spec.Volumes = got.Spec.Volumes[:len(p.Spec.Volumes)]
			if len(p.Spec.Volumes) == 0 {
				got.Spec.Volumes = nil
			}
			if !reflect.DeepEqual(got, p) {
				t.Fatalf("seed %d: pod %s changed beyond added volumes", seed, p.Name)
			}
		}
		if a, b := marshal(t, full), marshal(t, Generate(seed, 8, 16, ProfileStorage)); a != b {
			t.Fatalf("seed %d gave two different storage states", seed)
		}
	}
}

// What the storage profile claims to cover, and the rules the comparison relies on: within a
// class, static volumes of one capacity are identical twins (so a different one of them is a
// tie and nothing else is); no claim the test provisioner would refuse (a selector); no node
// under two CSIStorageCapacity objects (upstream would score with either).
func TestBindingCoversFeaturesAndKeepsItsRules(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(0); seed < 40; seed++ {
		s := Generate(seed, 8, 16, ProfileStorage)
		classes := map[string]storagev1.StorageClass{}
		for _, c := range s.StorageClasses {
			classes[c.Name] = c
			if c.Name == classZonal {
				seen["allowedTopologies"] = len(c.AllowedTopologies) == 1
			}
		}
		for _, name := range []string{classProvisioned, classZonal, classLocal, classCSI} {
			if m := classes[name].VolumeBindingMode; m == nil || *m != storagev1.VolumeBindingWaitForFirstConsumer {
				t.Fatalf("seed %d: class %s does not wait for the first consumer", seed, name)
			}
		}
		if classes[classProvisioned].Provisioner != TestProvisioner || classes[classLocal].Provisioner != noProvisioner ||
			classes[classCSI].Provisioner != CSIProvisioner || len(s.CSIDrivers) == 0 ||
			s.CSIDrivers[0].Name != CSIProvisioner || !*s.CSIDrivers[0].Spec.StorageCapacity {
			t.Fatalf("seed %d: provisioners or CSI driver wrong", seed)
		}
		covered := map[string]int{}
		for _, c := range s.CSIStorageCapacities {
			sel, err := metav1.LabelSelectorAsSelector(c.NodeTopology)
			if err != nil || c.Capacity == nil {
				t.Fatalf("seed %d: capacity %s has no topology or capacity", seed, c.Name)
			}
			seen["capacity with a maximum volume size"] = seen["capacity with a maximum volume size"] || c.MaximumVolumeSize != nil
			_, perNode := c.NodeTopology.MatchLabels[v1.LabelHostname]
			seen["capacity per node"] = seen["capacity per node"] || perNode
			seen["capacity per zone"] = seen["capacity per zone"] || !perNode
			for _, n := range s.Nodes {
				if sel.Matches(labels.Set(n.Labels)) {
					covered[n.Name]++
				}
			}
		}
		uncovered := 0
		for _, n := range s.Nodes {
			if covered[n.Name] > 1 {
				t.Fatalf("seed %d: node %s under %d capacities", seed, n.Name, covered[n.Name])
			}
			if covered[n.Name] == 0 {
				uncovered++
			}
		}
		seen["node without capacity"] = seen["node without capacity"] || uncovered > 0
		byCapacity := map[string]v1.PersistentVolume{}
		for _, pv := range s.PersistentVolumes {
			if pv.Spec.ClaimRef != nil {
				continue
			}
			seen["unbound volume of "+pv.Spec.StorageClassName] = true
			if pv.Spec.NodeAffinity == nil {
				seen["unbound volume without node affinity"] = true
			} else {
				seen["unbound volume with affinity on "+pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Key] = true
			}
			q := pv.Spec.Capacity[v1.ResourceStorage]
			key := pv.Spec.StorageClassName + "/" + q.String()
			if other, ok := byCapacity[key]; ok {
				seen["twins"] = true
				a, b := other.DeepCopy(), pv.DeepCopy()
				a.Name, b.Name = "", ""
				a.Spec.PersistentVolumeSource, b.Spec.PersistentVolumeSource = v1.PersistentVolumeSource{}, v1.PersistentVolumeSource{}
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("seed %d: volumes %s and %s share a capacity and class but differ", seed, other.Name, pv.Name)
				}
			}
			byCapacity[key] = pv
		}
		claims := map[string]v1.PersistentVolumeClaim{}
		for _, c := range s.PersistentVolumeClaims {
			claims[c.Name] = c
			if c.Spec.VolumeName != "" {
				continue
			}
			class := *c.Spec.StorageClassName
			seen["unbound claim of "+class] = true
			seen["unbound claim "+string(c.Spec.AccessModes[0])] = true
			if c.Spec.Selector != nil {
				seen["claim with a selector"] = true
				if class != classLocal {
					t.Fatalf("seed %d: claim %s of %s has a selector the test provisioner refuses", seed, c.Name, class)
				}
			}
			if c.Annotations[terminateAnnotation] != "" {
				seen["terminating claim"] = slices.Equal(c.Finalizers, []string{holdFinalizer})
			}
		}
		users := map[string]int{}
		for _, p := range s.Pods {
			var names []string
			for _, v := range p.Spec.Volumes {
				if v.PersistentVolumeClaim == nil {
					continue
				}
				n := v.PersistentVolumeClaim.ClaimName
				if c, ok := claims[n]; ok && slices.Contains(names, n) && c.Spec.VolumeName == "" && c.Name != unboundClaim {
					t.Fatalf("seed %d: pod %s uses claim %s twice", seed, p.Name, n) // gen_storage.go's may be
				}
				names = append(names, n)
				users[n]++
				switch c, ok := claims[n]; {
				case !ok:
					seen["pod with a missing claim"] = true
				case c.Annotations[terminateAnnotation] != "":
					seen["pod with a terminating claim"] = true
				case c.Spec.VolumeName == "" && *c.Spec.StorageClassName != classImmediate:
					seen["pod with a claim waiting for it"] = true
				}
			}
		}
		own := 0
		for _, p := range s.Pods {
			if strings.HasPrefix(p.Name, "vol-") {
				own++
			}
		}
		if own != 4 || s.Pods[16].Name != "vol-00" {
			t.Fatalf("seed %d: %d pods of the profile's own, want 4 from vol-00", seed, own)
		}
		for n, k := range users {
			if c, ok := claims[n]; ok && c.Spec.VolumeName == "" && k > 1 {
				seen["claim waiting for several pods"] = true
			}
		}
	}
	for _, f := range []string{"allowedTopologies", "capacity with a maximum volume size", "capacity per node",
		"capacity per zone", "node without capacity", "unbound volume of " + classLocal,
		"unbound volume of " + classProvisioned, "unbound volume without node affinity",
		"unbound volume with affinity on " + v1.LabelHostname, "unbound volume with affinity on " + v1.LabelTopologyZone,
		"twins", "unbound claim of " + classProvisioned, "unbound claim of " + classZonal,
		"unbound claim of " + classLocal, "unbound claim of " + classCSI, "unbound claim of " + classImmediate,
		"unbound claim ReadWriteOnce", "unbound claim ReadWriteOncePod", "unbound claim ReadWriteMany",
		"claim with a selector", "terminating claim", "pod with a missing claim", "pod with a terminating claim",
		"pod with a claim waiting for it", "claim waiting for several pods"} {
		if !seen[f] {
			t.Errorf("40 seeds generated no %s", f)
		}
	}
}

func TestNewVolumeInfo(t *testing.T) {
	wait, immediate := storagev1.VolumeBindingWaitForFirstConsumer, storagev1.VolumeBindingImmediate
	pv := func(name, size string, zone string) v1.PersistentVolume {
		p := v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"zone": zone}},
			Spec: v1.PersistentVolumeSpec{StorageClassName: classLocal,
				Capacity: v1.ResourceList{v1.ResourceStorage: resource.MustParse(size)},
				PersistentVolumeSource: v1.PersistentVolumeSource{
					HostPath: &v1.HostPathVolumeSource{Path: "/mnt/" + name}}}}
		return p
	}
	claim := func(name, class, volume string) v1.PersistentVolumeClaim {
		return v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1.PersistentVolumeClaimSpec{StorageClassName: ptr(class), VolumeName: volume}}
	}
	term := claim("t", classLocal, "")
	term.Annotations = map[string]string{terminateAnnotation: "true"}
	st := State{
		StorageClasses: []storagev1.StorageClass{{ObjectMeta: metav1.ObjectMeta{Name: classLocal}, VolumeBindingMode: &wait},
			{ObjectMeta: metav1.ObjectMeta{Name: classImmediate}, VolumeBindingMode: &immediate}},
		PersistentVolumes: []v1.PersistentVolume{pv("a", "1Gi", "z1"), pv("b", "2Gi", "z1"), pv("c", "1Gi", "z1"),
			pv("d", "1Gi", "z2")},
		PersistentVolumeClaims: []v1.PersistentVolumeClaim{claim("w", classLocal, ""), claim("bound", classLocal, "b"),
			claim("i", classImmediate, ""), term},
	}
	info := newVolumeInfo(&st)
	if want := map[string]string{"a": "a=c", "c": "a=c"}; !reflect.DeepEqual(info.twins, want) {
		t.Errorf("twins = %v, want %v", info.twins, want)
	}
	if want := map[string]bool{"w": true}; !reflect.DeepEqual(info.dynamic, want) {
		t.Errorf("dynamic = %v, want %v", info.dynamic, want)
	}
}

func TestVolumeIdentity(t *testing.T) {
	static := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "local-03"}}
	provisioned := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-1234",
		Annotations: map[string]string{annProvisionedBy: TestProvisioner}},
		Spec: v1.PersistentVolumeSpec{NodeAffinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
				Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{"node-02"}}}}}}}}}
	anywhere := &v1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-5678",
		Annotations: map[string]string{annProvisionedBy: CSIProvisioner}}}
	for pv, want := range map[*v1.PersistentVolume]string{
		static:      "local-03",
		provisioned: fmt.Sprintf("provisioned by %s on kubernetes.io/hostname in node-02", TestProvisioner),
		anywhere:    fmt.Sprintf("provisioned by %s on any node", CSIProvisioner),
	} {
		if got := volumeIdentity(pv); got != want {
			t.Errorf("volumeIdentity(%s) = %q, want %q", pv.Name, got, want)
		}
	}
}
