package main

// The storage profile: the basic state (nodes carry zone and region labels) plus what the volume
// plugins stowage runs read: StorageClasses, PersistentVolumes bound to claims (zone and region
// labels in both forms, multi-zone values, node affinity on the zone, ReadWriteOnce and
// ReadWriteOncePod), a claim of an Immediate class no controller binds, existing pods holding
// ReadWriteOncePod claims and iSCSI disks, and pods using those claims, missing ones and iSCSI
// disks (read-only or not). Each bound claim is created naming its volume, and the volume with
// a claimRef holding the claim's UID: the PV controller of the storage flow completes the
// binding before the scheduler starts (objects.go). gen_binding.go adds the claims that wait
// for their first consumer unbound, gen_csilimits.go the CSI and migrated volumes and the
// CSINodes whose limits NodeVolumeLimits applies.

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProfileStorage is the generator profile of this file.
const ProfileStorage = "storage"

const (
	classImmediate = "difftest-immediate"
	classWait      = "difftest-wffc"
	unboundClaim   = "claim-unbound"
	missingClaim   = "claim-missing"
	betaZoneLabel  = "failure-domain.beta.kubernetes.io/zone"
)

var iscsiTargets = []string{"iqn.2026-11.example.com:disk-a", "iqn.2026-11.example.com:disk-b"}

// addStorage adds the storage objects and volumes to the basic state s, from its own stream.
func addStorage(seed uint64, s *State) {
	r := rand.New(rand.NewPCG(seed, 0x5704a6e))
	s.Profile = ProfileStorage
	immediate, wait := storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer
	s.StorageClasses = []storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: classImmediate}, Provisioner: "example.com/none",
			VolumeBindingMode: &immediate},
		{ObjectMeta: metav1.ObjectMeta{Name: classWait}, Provisioner: "example.com/none",
			VolumeBindingMode: &wait},
	}
	var claims, rwop []string
	for i := 0; i < 3+r.IntN(4); i++ {
		pv, pvc := genBoundVolume(r, i)
		s.PersistentVolumes = append(s.PersistentVolumes, pv)
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, pvc)
		claims = append(claims, pvc.Name)
		if pvc.Spec.AccessModes[0] == v1.ReadWriteOncePod {
			rwop = append(rwop, pvc.Name)
		}
	}
	s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: unboundClaim, Namespace: namespace},
		Spec: v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: ptr(classImmediate), Resources: claimSize()},
	})
	// Existing users of ReadWriteOncePod claims and of iSCSI disks.
	for i, claim := range rwop {
		if !chance(r, 50) {
			continue
		}
		pod := storagePod(fmt.Sprintf("holder-%02d", i))
		pod.Spec.NodeName = s.Nodes[r.IntN(len(s.Nodes))].Name
		pod.Spec.Volumes = []v1.Volume{claimVolume("data", claim, false)}
		s.Existing = append(s.Existing, pod)
	}
	for i := 0; i < r.IntN(3); i++ {
		pod := storagePod(fmt.Sprintf("disk-holder-%02d", i))
		pod.Spec.NodeName = s.Nodes[r.IntN(len(s.Nodes))].Name
		pod.Spec.Volumes = []v1.Volume{iscsiVolume("disk", pick(r, iscsiTargets), chance(r, 40))}
		s.Existing = append(s.Existing, pod)
	}
	for i := range s.Pods {
		if !chance(r, 70) {
			continue
		}
		spec := &s.Pods[i].Spec
		for v := 0; v < 1+r.IntN(2); v++ {
			name := fmt.Sprintf("vol-%d", v)
			switch k := r.IntN(10); {
			case k < 6:
				spec.Volumes = append(spec.Volumes, claimVolume(name, pick(r, claims), chance(r, 20)))
			case k == 6:
				spec.Volumes = append(spec.Volumes, claimVolume(name, missingClaim, false))
			case k == 7:
				spec.Volumes = append(spec.Volumes, claimVolume(name, unboundClaim, false))
			default:
				spec.Volumes = append(spec.Volumes, iscsiVolume(name, pick(r, iscsiTargets), chance(r, 40)))
			}
		}
	}
}

// genBoundVolume is PV pv-<i> pre-bound to claim claim-<i> (each names the other; the PV
// controller completes the binding), with random topology and access mode.
func genBoundVolume(r *rand.Rand, i int) (v1.PersistentVolume, v1.PersistentVolumeClaim) {
	name, claim := fmt.Sprintf("pv-%02d", i), fmt.Sprintf("claim-%02d", i)
	mode := v1.ReadWriteOnce
	if chance(r, 35) {
		mode = v1.ReadWriteOncePod
	}
	class := pick(r, []string{classImmediate, classWait})
	labels := map[string]string{}
	switch r.IntN(6) {
	case 0: // no topology
	case 1:
		labels[v1.LabelTopologyZone] = pick(r, zones)
	case 2:
		labels[betaZoneLabel] = pick(r, zones)
	case 3:
		labels[v1.LabelTopologyRegion] = pick(r, []string{"region-1", "region-2"})
	case 4:
		labels[v1.LabelTopologyZone] = pick(r, zones) + "__" + pick(r, zones)
	case 5:
		labels[v1.LabelTopologyZone] = pick(r, zones)
		labels[v1.LabelTopologyRegion] = pick(r, []string{"region-1", "region-2"})
	}
	pv := v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []v1.PersistentVolumeAccessMode{mode},
			StorageClassName:              class,
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource: v1.PersistentVolumeSource{
				HostPath: &v1.HostPathVolumeSource{Path: "/mnt/" + name}},
			ClaimRef: &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: namespace, Name: claim},
		},
	}
	if chance(r, 30) {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
				Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpIn,
				Values: []string{pick(r, zones), pick(r, zones)}}}}}}}
	}
	pvc := v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: namespace},
		Spec: v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{mode},
			StorageClassName: ptr(class), VolumeName: name, Resources: claimSize()},
	}
	return pv, pvc
}

func claimSize() v1.VolumeResourceRequirements {
	return v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")}}
}

func storagePod(name string) v1.Pod {
	pod := v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}}
	pod.Spec.TerminationGracePeriodSeconds = new(int64)
	pod.Spec.Containers = []v1.Container{{Name: "c", Image: "registry.example.com/tiny:1"}}
	return pod
}

func claimVolume(name, claim string, readOnly bool) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim, ReadOnly: readOnly}}}
}

func iscsiVolume(name, iqn string, readOnly bool) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{ISCSI: &v1.ISCSIVolumeSource{
		TargetPortal: "127.0.0.1:3260", IQN: iqn, Lun: 0, ReadOnly: readOnly}}}
}
