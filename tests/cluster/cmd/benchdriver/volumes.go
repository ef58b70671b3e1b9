package main

// Volumes for the storage shapes (bench/workloads.yaml, set "volumes"):
//
//   - scheduler_perf's SchedulingInTreePVs, SchedulingMigratedInTreePVs and SchedulingCSIPVs
//     give every pod its own claim, created already bound to its own volume (volumes.bound):
//     claim pvc-<i> in the pod's namespace and volume <namespace>-vol-<i>, both with their
//     status set to Bound, as scheduler_perf's CreatePodWithPersistentVolume does;
//   - the WaitForFirstConsumer shape (ours: scheduler_perf at v1.37.2 has none) gives every pod
//     an unbound claim of a WaitForFirstConsumer class, and creates volumes.pvsPerNode Available
//     volumes per node, each pinned to its node (local volumes), for the scheduler to match;
//     kube-controller-manager's PV binder (volumes.pvController) completes the bindings the
//     scheduler starts;
//   - csiNode gives each node a CSINode with the drivers' attach limits and the migrated
//     plugins annotation, as scheduler_perf's nodeAllocatableStrategy does.
//
// Every volume and claim is created during set-up, before the scheduler starts, on the
// driver's unthrottled protobuf client with the same concurrency as pods: the measured phase
// then creates pods only, as in every other shape. (scheduler_perf creates each pod's claim and
// volume just before the pod, which makes its creation, not the scheduler, the limit of these
// shapes.)

import (
	"context"
	"fmt"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// VolumeSpec is the volumes field of a workload: each pod (init and measured, not churn) gets
// one claim from pvcTemplate.
type VolumeSpec struct {
	// PVCTemplate and PVTemplate are JSON merge patches over an empty claim and volume.
	PVCTemplate map[string]any `json:"pvcTemplate"`
	PVTemplate  map[string]any `json:"pvTemplate,omitempty"`
	// Bound: each claim comes with its own volume from pvTemplate, the two bound to each other.
	Bound bool `json:"bound,omitempty"`
	// PVsPerNode (claims unbound): that many Available volumes from pvTemplate per node, each
	// with node affinity kubernetes.io/hostname In [<node>].
	PVsPerNode int `json:"pvsPerNode,omitempty"`
	// PVController runs kube-controller-manager's PersistentVolume binder beside the cluster,
	// at the same client limits as the schedulers get raised to 5000/5000, so that it does not
	// limit the run.
	PVController bool `json:"pvController,omitempty"`
}

// CSINodeSpec is the csiNode field: a CSINode per node.
type CSINodeSpec struct {
	// Drivers maps a CSI driver name to its allocatable volume count on each node.
	Drivers map[string]int32 `json:"drivers"`
	// MigratedPlugins go into the storage.alpha.kubernetes.io/migrated-plugins annotation.
	MigratedPlugins []string `json:"migratedPlugins,omitempty"`
}

const (
	defaultPVC = `{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{},"spec":{}}`
	defaultPV  = `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{},"spec":{}}`
	defaultSC  = `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{}}`
	// The name of the pod's volume that refers to its claim (scheduler_perf's "vol").
	podVolumeName = "vol"
)

// checkVolumes validates the storage fields of a workload.
func (w *Workload) checkVolumes() error {
	v := w.Volumes
	if v == nil {
		return nil
	}
	switch {
	case v.PVCTemplate == nil:
		return fmt.Errorf("volumes.pvcTemplate must be set")
	case v.Bound && v.PVsPerNode > 0:
		return fmt.Errorf("volumes.bound and volumes.pvsPerNode exclude each other")
	case (v.Bound || v.PVsPerNode > 0) && v.PVTemplate == nil:
		return fmt.Errorf("volumes.pvTemplate must be set with bound or pvsPerNode")
	case !v.Bound && v.PVsPerNode == 0 && v.PVTemplate != nil:
		return fmt.Errorf("volumes.pvTemplate needs bound or pvsPerNode")
	case v.PVsPerNode < 0:
		return fmt.Errorf("volumes.pvsPerNode must not be negative")
	}
	return nil
}

// decodeStorageTemplates fills the claim, volume and class templates of t.
func (w *Workload) decodeStorageTemplates(t *Templates) error {
	for i, patch := range w.StorageClasses {
		sc := &storagev1.StorageClass{}
		if err := decodeTemplate(defaultSC, patch, sc); err != nil {
			return fmt.Errorf("workload %q: storageClasses[%d]: %w", w.Name, i, err)
		}
		if sc.Name == "" {
			return fmt.Errorf("workload %q: storageClasses[%d] has no name", w.Name, i)
		}
		t.StorageClasses = append(t.StorageClasses, sc)
	}
	if w.Volumes == nil {
		return nil
	}
	t.PVC = &v1.PersistentVolumeClaim{}
	if err := decodeTemplate(defaultPVC, w.Volumes.PVCTemplate, t.PVC); err != nil {
		return fmt.Errorf("workload %q: volumes.pvcTemplate: %w", w.Name, err)
	}
	if w.Volumes.PVTemplate != nil {
		t.PV = &v1.PersistentVolume{}
		if err := decodeTemplate(defaultPV, w.Volumes.PVTemplate, t.PV); err != nil {
			return fmt.Errorf("workload %q: volumes.pvTemplate: %w", w.Name, err)
		}
	}
	return nil
}

// ClaimName is the claim of pod i in its namespace.
func ClaimName(i int) string { return fmt.Sprintf("pvc-%d", i) }

// WithClaim is pod with its volumes replaced by one referring to claim.
func WithClaim(pod *v1.Pod, claim string) *v1.Pod {
	pod.Spec.Volumes = []v1.Volume{{Name: podVolumeName, VolumeSource: v1.VolumeSource{
		PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
	return pod
}

// ClaimAt is the claim of pod i of ns: unbound, or (volumes.bound) bound to BoundVolumeAt.
func (w *Workload) ClaimAt(t Templates, ns string, i int) *v1.PersistentVolumeClaim {
	c := t.PVC.DeepCopy()
	c.Name, c.Namespace = ClaimName(i), ns
	if w.Volumes.Bound {
		c.Spec.VolumeName = boundVolumeName(ns, i)
		c.Status.Phase = v1.ClaimBound
	}
	return c
}

// boundVolumeName is scheduler_perf's name: the namespace, then vol-<i>.
func boundVolumeName(ns string, i int) string { return fmt.Sprintf("%s-vol-%d", ns, i) }

// BoundVolumeAt is the volume of pod i of ns, bound to its claim. As in scheduler_perf, a CSI
// volume's handle is the volume's name and an AWS EBS volume's ID is vol-<i> (the same IDs in
// every namespace).
func (w *Workload) BoundVolumeAt(t Templates, ns string, i int) *v1.PersistentVolume {
	pv := t.PV.DeepCopy()
	pv.Name = boundVolumeName(ns, i)
	if pv.Spec.CSI != nil {
		pv.Spec.CSI.VolumeHandle = pv.Name
	} else if pv.Spec.AWSElasticBlockStore != nil {
		pv.Spec.AWSElasticBlockStore.VolumeID = fmt.Sprintf("vol-%d", i)
	}
	pv.Spec.ClaimRef = &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1",
		Namespace: ns, Name: ClaimName(i)}
	pv.Status.Phase = v1.VolumeBound
	return pv
}

// NodeVolumeAt is the k-th Available volume of node: pinned to it by node affinity.
func (w *Workload) NodeVolumeAt(t Templates, node string, k int) *v1.PersistentVolume {
	pv := t.PV.DeepCopy()
	pv.Name = fmt.Sprintf("%s-vol-%d", node, k)
	if pv.Spec.CSI != nil {
		pv.Spec.CSI.VolumeHandle = pv.Name
	}
	pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{
		NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{
			Key: "kubernetes.io/hostname", Operator: v1.NodeSelectorOpIn, Values: []string{node}}}}}}}
	pv.Status.Phase = v1.VolumeAvailable
	return pv
}

// CSINodeAt is the CSINode of node: one driver entry per driver (sorted by name, so every
// node's is the same), each with its count.
func (s *CSINodeSpec) CSINodeAt(node string) *storagev1.CSINode {
	cn := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: node, Annotations: map[string]string{
		v1.MigratedPluginsAnnotationKey: strings.Join(s.MigratedPlugins, ","),
	}}, Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{}}}
	for _, name := range sortedKeys(s.Drivers) {
		count := s.Drivers[name]
		cn.Spec.Drivers = append(cn.Spec.Drivers, storagev1.CSINodeDriver{Name: name, NodeID: node,
			Allocatable: &storagev1.VolumeNodeResources{Count: &count}})
	}
	return cn
}

func sortedKeys(m map[string]int32) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ { // a handful of drivers at most
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// CreateStorageClasses creates the workload's classes.
func CreateStorageClasses(ctx context.Context, cs kubernetes.Interface, classes []*storagev1.StorageClass) error {
	for _, sc := range classes {
		if _, err := cs.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil &&
			!apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating storageclass %s: %w", sc.Name, err)
		}
	}
	return nil
}

// createClaim creates c and then sets its status, if it has one (creation drops it). A claim
// that already exists (an earlier attempt landed) is read back.
func createClaim(ctx context.Context, cs kubernetes.Interface, c *v1.PersistentVolumeClaim) error {
	api := cs.CoreV1().PersistentVolumeClaims(c.Namespace)
	got, err := api.Create(ctx, c, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		got, err = api.Get(ctx, c.Name, metav1.GetOptions{})
	}
	if err != nil || c.Status.Phase == "" || got.Status.Phase == c.Status.Phase {
		return err
	}
	got.Status = c.Status
	_, err = api.UpdateStatus(ctx, got, metav1.UpdateOptions{})
	return err
}

// createVolume is createClaim for a volume.
func createVolume(ctx context.Context, cs kubernetes.Interface, pv *v1.PersistentVolume) error {
	api := cs.CoreV1().PersistentVolumes()
	got, err := api.Create(ctx, pv, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		got, err = api.Get(ctx, pv.Name, metav1.GetOptions{})
	}
	if err != nil || pv.Status.Phase == "" || got.Status.Phase == pv.Status.Phase {
		return err
	}
	got.Status = pv.Status
	_, err = api.UpdateStatus(ctx, got, metav1.UpdateOptions{})
	return err
}

// CreateClaims creates the claims (and, bound, the volumes) of pods first..first+n-1 of ns:
// the claim first, as scheduler_perf does, since the volume refers to it.
func CreateClaims(ctx context.Context, cs kubernetes.Interface, w *Workload, t Templates, ns string, first, n int) (CreateResult, error) {
	return parallelCreate(ctx, n, "claim in "+ns, func(ctx context.Context, i int) error {
		if err := createClaim(ctx, cs, w.ClaimAt(t, ns, first+i)); err != nil {
			return err
		}
		if !w.Volumes.Bound {
			return nil
		}
		return createVolume(ctx, cs, w.BoundVolumeAt(t, ns, first+i))
	})
}

// CreateNodeVolumes creates volumes.pvsPerNode Available volumes for each node.
func CreateNodeVolumes(ctx context.Context, cs kubernetes.Interface, w *Workload, t Templates) (CreateResult, error) {
	per := w.Volumes.PVsPerNode
	return parallelCreate(ctx, w.Nodes*per, "node volume", func(ctx context.Context, i int) error {
		return createVolume(ctx, cs, w.NodeVolumeAt(t, w.NodeAt(t, i/per).Name, i%per))
	})
}

// StorageSetup creates the classes, the node volumes and every claim (init and measured) of
// the workload, and returns how long the volumes and claims took.
func StorageSetup(ctx context.Context, cs kubernetes.Interface, w *Workload, t Templates) (CreateResult, error) {
	var total CreateResult
	if err := CreateStorageClasses(ctx, cs, t.StorageClasses); err != nil {
		return total, err
	}
	if w.Volumes == nil {
		return total, nil
	}
	start := time.Now()
	if w.Volumes.PVsPerNode > 0 {
		res, err := CreateNodeVolumes(ctx, cs, w, t)
		total.Count += res.Count
		if err != nil {
			return total, err
		}
	}
	for _, ns := range w.InitNamespaceNames() {
		res, err := CreateClaims(ctx, cs, w, t, ns, 0, w.TotalInitPods()/len(w.InitNamespaceNames()))
		total.Count += res.Count
		if err != nil {
			return total, err
		}
	}
	res, err := CreateClaims(ctx, cs, w, t, measureNS, 0, w.MeasurePods)
	total.Count += res.Count
	total.Seconds = time.Since(start).Seconds()
	return total, err
}

// controllerArgs are kube-controller-manager's flags for the named controllers alone (the PV
// binder, the resourceclaim controller): no leader election, no listener, the admin
// kubeconfig, and client limits that never hold them back.
func controllerArgs(kubeconfig string, controllers []string) []string {
	return []string{"--kubeconfig=" + kubeconfig,
		"--controllers=" + strings.Join(controllers, ","),
		"--leader-elect=false", "--secure-port=0",
		"--kube-api-qps=5000", "--kube-api-burst=5000", "-v=1"}
}
