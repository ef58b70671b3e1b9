package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// The CSI limit objects come from a stream of their own, after the rest: a seed keeps
// everything gen_storage.go and gen_binding.go made.
func TestCSILimitsOnlyAdds(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		full := Generate(seed, 8, 16, ProfileStorage)
		before := Generate(seed, 8, 16, ProfileBasic)
		addStorage(seed, &before)
		addBinding(seed, &before)
		if !reflect.DeepEqual(full.Nodes, before.Nodes) ||
			!hasPrefix(full.Existing, before.Existing) ||
			!hasPrefix(full.PersistentVolumes, before.PersistentVolumes) ||
			!hasPrefix(full.PersistentVolumeClaims, before.PersistentVolumeClaims) ||
			!hasPrefix(full.CSIDrivers, before.CSIDrivers) ||
			!reflect.DeepEqual(full.StorageClasses, before.StorageClasses) ||
			!reflect.DeepEqual(full.CSIStorageCapacities, before.CSIStorageCapacities) {
			t.Fatalf("seed %d: an object of the earlier generators changed", seed)
		}
		for i, p := range before.Pods {
			got := full.Pods[i]
			if len(p.Spec.Volumes) > 0 && !reflect.DeepEqual(got.Spec.Volumes[:len(p.Spec.Volumes)], p.Spec.Volumes) {
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
	}
}

// What the CSI limit cases claim to cover, and their rules: one CSIDriver at most opts in to
// preventPodSchedulingIfMissing (upstream tests a pod's drivers in a random order, so two
// missing ones would give either message), no pod names a claim twice, CSINodes name nodes.
func TestCSILimitsCoverFeaturesAndKeepRules(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(0); seed < 40; seed++ {
		s := Generate(seed, 8, 16, ProfileStorage)
		optIn := 0
		for _, d := range s.CSIDrivers {
			if p := d.Spec.PreventPodSchedulingIfMissing; p != nil && *p {
				optIn++
				seen["driver opted in"] = true
			} else if d.Name == AttachDriver {
				seen["driver not opted in"] = true
			}
		}
		if optIn > 1 {
			t.Fatalf("seed %d: %d drivers opt in to preventPodSchedulingIfMissing", seed, optIn)
		}
		nodes := map[string]bool{}
		for _, n := range s.Nodes {
			nodes[n.Name] = true
		}
		for _, cn := range s.CSINodes {
			if !nodes[cn.Name] {
				t.Fatalf("seed %d: CSINode %s names no node", seed, cn.Name)
			}
			delete(nodes, cn.Name)
			has := map[string]bool{}
			for _, d := range cn.Spec.Drivers {
				has[d.Name] = true
				if d.Allocatable == nil {
					seen["driver without a limit"] = true
				} else {
					seen[fmt.Sprintf("limit %d", *d.Allocatable.Count)] = true
				}
			}
			for _, d := range csiLimitDrivers {
				if !has[d] {
					seen["CSINode without "+d] = true
				}
			}
		}
		seen["node without a CSINode"] = seen["node without a CSINode"] || len(nodes) > 0
		pvs := map[string]v1.PersistentVolume{}
		handles := map[string]int{}
		ebsIDs := map[string]bool{}
		for _, pv := range s.PersistentVolumes {
			pvs[pv.Name] = pv
			if c := pv.Spec.CSI; c != nil {
				handles[c.VolumeHandle]++
				seen["shared handle"] = seen["shared handle"] || handles[c.VolumeHandle] > 1
			}
			if e := pv.Spec.AWSElasticBlockStore; e != nil {
				ebsIDs[e.VolumeID] = true
			}
		}
		for _, va := range s.VolumeAttachments {
			if pv, ok := pvs[*va.Spec.Source.PersistentVolumeName]; !ok || pv.Spec.CSI == nil ||
				pv.Spec.CSI.Driver != va.Spec.Attacher {
				t.Fatalf("seed %d: VolumeAttachment %s of no CSI volume of its attacher", seed, va.Name)
			}
			seen["volume attachment"] = true
		}
		claims := map[string]string{} // claim -> its volume
		waiting, rwop := map[string]bool{}, map[string]bool{}
		for _, c := range s.PersistentVolumeClaims {
			claims[c.Name] = c.Spec.VolumeName
			waiting[c.Name] = c.Spec.VolumeName == "" && *c.Spec.StorageClassName == classCSI
			rwop[c.Name] = slices.Contains(c.Spec.AccessModes, v1.ReadWriteOncePod)
		}
		// counted is how many volumes of a pod NodeVolumeLimits may count.
		counted := func(p v1.Pod, what string) int {
			n := 0
			names := map[string]bool{}
			for _, v := range p.Spec.Volumes {
				switch {
				case v.PersistentVolumeClaim != nil:
					name := v.PersistentVolumeClaim.ClaimName
					if names[name] && strings.HasPrefix(v.Name, "csi-") { // gen_storage.go's may repeat
						t.Fatalf("seed %d: pod %s names claim %s twice", seed, p.Name, name)
					}
					names[name] = true
					if rwop[name] && strings.HasPrefix(v.Name, "csi-") {
						t.Fatalf("seed %d: pod %s adds ReadWriteOncePod claim %s", seed, p.Name, name)
					}
					pv := pvs[claims[name]]
					switch {
					case pv.Spec.CSI != nil:
						seen[what+" with a CSI claim"] = true
						n++
					case pv.Spec.AWSElasticBlockStore != nil:
						seen[what+" with an EBS claim"] = true
						n++
					case waiting[name]:
						seen[what+" with a waiting CSI claim"] = true
						n++
					}
				case v.AWSElasticBlockStore != nil:
					seen[what+" with an inline EBS volume"] = true
					seen["inline EBS volume of a PV's ID"] = seen["inline EBS volume of a PV's ID"] ||
						ebsIDs[v.AWSElasticBlockStore.VolumeID]
					n++
				case v.CSI != nil:
					seen[what+" with a CSI inline volume"] = true
				case v.Ephemeral != nil:
					seen[what+" with a generic ephemeral volume"] = true
				}
			}
			return n
		}
		for _, p := range s.Existing {
			if strings.HasPrefix(p.Name, "csi-holder-") {
				if p.Spec.NodeName == "" || counted(p, "holder") == 0 {
					t.Fatalf("seed %d: holder %s holds nothing counted or is not placed", seed, p.Name)
				}
			}
		}
		own := 0
		for _, p := range s.Pods {
			if p.Spec.NodeName != "" {
				t.Fatalf("seed %d: pod %s is placed", seed, p.Name)
			}
			what := "pod"
			if strings.HasPrefix(p.Name, "csi-") {
				own++
				what = "own pod"
			}
			if counted(p, what) >= 3 {
				seen[what+" with three or more counted volumes"] = true
			}
		}
		if own != 3 {
			t.Fatalf("seed %d: %d pods of the CSI limit cases, want 3", seed, own)
		}
	}
	for _, f := range []string{"driver opted in", "driver not opted in", "driver without a limit", "limit 0",
		"limit 1", "limit 2", "limit 3", "CSINode without " + CSIProvisioner, "CSINode without " + AttachDriver,
		"CSINode without " + EBSDriver, "node without a CSINode", "shared handle", "volume attachment",
		"holder with a CSI claim", "holder with an EBS claim", "holder with an inline EBS volume",
		"own pod with a CSI claim", "own pod with an EBS claim", "own pod with a waiting CSI claim",
		"own pod with an inline EBS volume", "own pod with a CSI inline volume", "inline EBS volume of a PV's ID",
		"pod with a CSI claim", "pod with a generic ephemeral volume", "own pod with three or more counted volumes"} {
		if !seen[f] {
			t.Errorf("40 seeds generated no %s", f)
		}
	}
}

// hasPrefix tells whether part is the start of full (nil and empty alike).
func hasPrefix[T any](full, part []T) bool {
	return len(full) >= len(part) && (len(part) == 0 || reflect.DeepEqual(full[:len(part)], part))
}
