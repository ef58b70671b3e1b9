package main

// The storage profile's CSI volume limits, what NodeVolumeLimits reads: CSINode objects with
// an allocatable count per driver (low ones: 0 to 3, or none), nodes with no CSINode or none
// for a driver, and the volumes counted against them:
//
//   - static CSI volumes of attach.stowage.dev (spec.csi), pre-bound to claims, some sharing a
//     volume handle (they count once on a node); the driver's CSIDriver mostly opts in to
//     preventPodSchedulingIfMissing (VolumeLimitScaling is on by default in 1.37), so a node
//     whose CSINode lacks it rejects their pods ("<driver> CSI driver is not installed on the
//     node");
//   - in-tree AWS EBS volumes, which upstream migrates to ebs.csi.aws.com on a node with a
//     CSINode: pre-bound PVs and inline volumes, some of the same volume ID;
//   - the claims of gen_binding.go's CSI class csi.stowage.dev, counted by their class while
//     they wait for their first consumer;
//   - VolumeAttachments of CSI volumes to nodes, which count as attached there;
//   - CSI inline volumes (never counted) and, rarely, generic ephemeral volumes (their claims
//     are never made: the pod is rejected for the missing claim).
//
// Existing pods holding some of these volumes are placed on nodes first. Pods of their own,
// after gen_binding.go's, carry several such volumes; the other pods sometimes one or two.
//
// Drawn from a stream of its own, after gen_binding.go's, so a seed keeps its earlier objects.

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
	// AttachDriver is the CSI driver of the profile's static CSI volumes; nothing runs it.
	AttachDriver = "attach.stowage.dev"
	// EBSDriver is the CSI driver upstream migrates in-tree AWS EBS volumes to.
	EBSDriver = "ebs.csi.aws.com"
)

// csiLimitDrivers are the drivers a CSINode may list, in the order it lists them.
var csiLimitDrivers = []string{CSIProvisioner, AttachDriver, EBSDriver}

// addCSILimits adds the CSINodes, the CSI and migrated volumes, the VolumeAttachments, the
// existing pods holding such volumes and the pods using them to a storage state.
func addCSILimits(seed uint64, s *State) {
	r := rand.New(rand.NewPCG(seed, 0xc5110))
	s.CSIDrivers = append(s.CSIDrivers, storagev1.CSIDriver{ObjectMeta: metav1.ObjectMeta{Name: AttachDriver},
		Spec: storagev1.CSIDriverSpec{AttachRequired: ptr(true), PodInfoOnMount: ptr(false)}})
	if chance(r, 75) {
		s.CSIDrivers[len(s.CSIDrivers)-1].Spec.PreventPodSchedulingIfMissing = ptr(true)
	}
	for _, n := range s.Nodes {
		if chance(r, 20) {
			continue // no CSINode: no limit, no migration, no driver installed
		}
		cn := storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: n.Name}, Spec: storagev1.CSINodeSpec{
			Drivers: []storagev1.CSINodeDriver{}}}
		for _, d := range csiLimitDrivers {
			if !chance(r, 70) {
				continue
			}
			drv := storagev1.CSINodeDriver{Name: d, NodeID: n.Name + "-" + d}
			if c := pick(r, []int32{-1, 0, 1, 1, 2, 2, 3}); c >= 0 {
				drv.Allocatable = &storagev1.VolumeNodeResources{Count: ptr(c)}
			}
			cn.Spec.Drivers = append(cn.Spec.Drivers, drv)
		}
		s.CSINodes = append(s.CSINodes, cn)
	}

	// Static CSI volumes, a few sharing a handle, and in-tree EBS volumes, each pre-bound to a
	// claim of its own.
	var csiClaims, ebsClaims, csiVolumes []string
	ebsIDs := []string{"vol-0e0000000000000a0", "vol-0e0000000000000a1"} // inline only
	for i, n := 0, 2+r.IntN(3); i < n; i++ {
		handle := fmt.Sprintf("csi-handle-%02d", i)
		if i > 0 && chance(r, 15) {
			handle = fmt.Sprintf("csi-handle-%02d", r.IntN(i))
		}
		pv, pvc := preBound(fmt.Sprintf("csi-pv-%02d", i), fmt.Sprintf("csi-claim-%02d", i),
			v1.PersistentVolumeSource{CSI: &v1.CSIPersistentVolumeSource{Driver: AttachDriver, VolumeHandle: handle}})
		s.PersistentVolumes = append(s.PersistentVolumes, pv)
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, pvc)
		csiClaims, csiVolumes = append(csiClaims, pvc.Name), append(csiVolumes, pv.Name)
	}
	for i, n := 0, 1+r.IntN(2); i < n; i++ {
		id := fmt.Sprintf("vol-0e00000000000000%d", i)
		ebsIDs = append(ebsIDs, id)
		pv, pvc := preBound(fmt.Sprintf("ebs-pv-%02d", i), fmt.Sprintf("ebs-claim-%02d", i),
			v1.PersistentVolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: id}})
		s.PersistentVolumes = append(s.PersistentVolumes, pv)
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, pvc)
		ebsClaims = append(ebsClaims, pvc.Name)
	}
	// gen_binding.go's claims of the CSI class, except those of ReadWriteOncePod: a second user
	// of one is rejected before NodeVolumeLimits.
	var waiting []string
	for _, c := range s.PersistentVolumeClaims {
		if c.Spec.VolumeName == "" && c.Spec.StorageClassName != nil && *c.Spec.StorageClassName == classCSI &&
			!slices.Contains(c.Spec.AccessModes, v1.ReadWriteOncePod) {
			waiting = append(waiting, c.Name)
		}
	}
	for i, n := 0, r.IntN(4); i < n; i++ {
		s.VolumeAttachments = append(s.VolumeAttachments, storagev1.VolumeAttachment{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("va-%02d", i)},
			Spec: storagev1.VolumeAttachmentSpec{Attacher: AttachDriver, NodeName: pick(r, s.Nodes).Name,
				Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr(pick(r, csiVolumes))}}})
	}

	// vol draws a volume named name, or false when it drew a claim of used (or a waiting claim
	// and there is none). Only with ephemeral may it draw a generic ephemeral volume.
	vol := func(name string, used []string, ephemeral bool) (v1.Volume, bool) {
		var claim string
		switch k := r.IntN(100); {
		case k < 45:
			claim = pick(r, csiClaims)
		case k < 58:
			claim = pick(r, ebsClaims)
		case k < 68:
			if len(waiting) == 0 {
				return v1.Volume{}, false
			}
			claim = pick(r, waiting)
		case k < 82:
			return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{
				VolumeID: pick(r, ebsIDs), ReadOnly: chance(r, 20)}}}, true
		case k < 94 || !ephemeral:
			return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{CSI: &v1.CSIVolumeSource{Driver: AttachDriver,
				VolumeAttributes: map[string]string{"size": "1Gi"}}}}, true
		default:
			return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{Ephemeral: &v1.EphemeralVolumeSource{
				VolumeClaimTemplate: &v1.PersistentVolumeClaimTemplate{Spec: v1.PersistentVolumeClaimSpec{
					AccessModes:      []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
					StorageClassName: ptr(classCSI), Resources: claimSize()}}}}}, true
		}
		if slices.Contains(used, claim) {
			return v1.Volume{}, false
		}
		return claimVolume(name, claim, false), true
	}
	addVolumes := func(pod *v1.Pod, n int, ephemeral bool) {
		var used []string // the pod's claims, which it does not name twice
		for _, x := range pod.Spec.Volumes {
			if x.PersistentVolumeClaim != nil {
				used = append(used, x.PersistentVolumeClaim.ClaimName)
			}
		}
		for v := 0; v < n; v++ {
			if x, ok := vol(fmt.Sprintf("csi-%d", v), used, ephemeral); ok {
				pod.Spec.Volumes = append(pod.Spec.Volumes, x)
				if x.PersistentVolumeClaim != nil {
					used = append(used, x.PersistentVolumeClaim.ClaimName)
				}
			}
		}
	}
	// Existing holders: never a waiting claim (nothing would provision it) nor an ephemeral one.
	for i, n := 0, 1+r.IntN(3); i < n; i++ {
		pod := storagePod(fmt.Sprintf("csi-holder-%02d", i))
		pod.Spec.NodeName = pick(r, s.Nodes).Name
		var used []string
		for v := 0; v < 1+r.IntN(2); v++ {
			name := fmt.Sprintf("csi-%d", v)
			var claim string
			switch k := r.IntN(10); {
			case k < 6:
				claim = pick(r, csiClaims)
			case k < 8:
				claim = pick(r, ebsClaims)
			default:
				pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{Name: name, VolumeSource: v1.VolumeSource{
					AWSElasticBlockStore: &v1.AWSElasticBlockStoreVolumeSource{VolumeID: pick(r, ebsIDs)}}})
				continue
			}
			if !slices.Contains(used, claim) {
				used = append(used, claim)
				pod.Spec.Volumes = append(pod.Spec.Volumes, claimVolume(name, claim, false))
			}
		}
		s.Existing = append(s.Existing, pod)
	}
	for i := range s.Pods {
		if chance(r, 25) {
			addVolumes(&s.Pods[i], 1+r.IntN(2), true)
		}
	}
	// Pods of their own, a sixth as many (at least three): small requests and two to four of
	// these volumes, so that many reach NodeVolumeLimits.
	for i, n := 0, max(3, len(s.Pods)/6); i < n; i++ {
		pod := storagePod(fmt.Sprintf("csi-%02d", i))
		pod.Spec.Containers[0].Resources.Requests = v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(100, resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(128*mib, resource.BinarySI)}
		addVolumes(&pod, 2+r.IntN(3), false)
		s.Pods = append(s.Pods, pod)
	}
}

// preBound is volume pvName of source, pre-bound to claim claimName (each names the other),
// ReadWriteOnce, of the Immediate class, without topology.
func preBound(pvName, claimName string, source v1.PersistentVolumeSource) (v1.PersistentVolume, v1.PersistentVolumeClaim) {
	pv := v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName:              classImmediate,
			PersistentVolumeReclaimPolicy: v1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        source,
			ClaimRef: &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
				Namespace: namespace, Name: claimName},
		},
	}
	pvc := v1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claimName, Namespace: namespace},
		Spec: v1.PersistentVolumeClaimSpec{AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			StorageClassName: ptr(classImmediate), VolumeName: pvName, Resources: claimSize()},
	}
	return pv, pvc
}
