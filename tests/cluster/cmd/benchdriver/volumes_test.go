package main

import (
	"context"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

const boundCSIShape = mixedHeader + `  nodeTemplate:
    status: {allocatable: {pods: "110", cpu: "4", memory: 32Gi, attachable-volumes-csi-ebs.csi.aws.com: "39"}}
  csiNode: {drivers: {ebs.csi.aws.com: 39, other.csi.example.com: 7}, migratedPlugins: [kubernetes.io/aws-ebs]}
  volumes:
    bound: true
    pvcTemplate:
      metadata: {annotations: {pv.kubernetes.io/bind-completed: "true"}}
      spec: {accessModes: [ReadOnlyMany], resources: {requests: {storage: 1Gi}}}
    pvTemplate:
      spec:
        accessModes: [ReadOnlyMany]
        capacity: {storage: 1Gi}
        csi: {driver: ebs.csi.aws.com}
        persistentVolumeReclaimPolicy: Retain
`

// scheduler_perf's bound shapes: every init and measured pod gets claim pvc-<i> bound to
// volume <ns>-vol-<i> and back, statuses Bound, and each node a CSINode with its limits.
func TestBoundVolumesAndCSINodes(t *testing.T) {
	ws, err := loadOne(t, boundCSIShape)
	if err != nil {
		t.Fatal(err)
	}
	w := &ws[0]
	tm, err := w.Templates()
	if err != nil {
		t.Fatal(err)
	}
	cs := fake.NewSimpleClientset()
	ctx := context.Background()
	if _, err := CreateNodes(ctx, cs, w, tm); err != nil {
		t.Fatal(err)
	}
	res, err := StorageSetup(ctx, cs, w, tm)
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != w.TotalInitPods()+w.MeasurePods {
		t.Fatalf("created %d pairs, want %d", res.Count, w.TotalInitPods()+w.MeasurePods)
	}

	node, err := cs.CoreV1().Nodes().Get(ctx, "scheduler-perf-00002", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q := node.Status.Allocatable["attachable-volumes-csi-ebs.csi.aws.com"]; q.Value() != 39 {
		t.Fatalf("node allocatable: %v", node.Status.Allocatable)
	}
	cn, err := cs.StorageV1().CSINodes().Get(ctx, node.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cn.Annotations[v1.MigratedPluginsAnnotationKey]; got != "kubernetes.io/aws-ebs" {
		t.Fatalf("migrated plugins annotation: %q", got)
	}
	if len(cn.Spec.Drivers) != 2 || cn.Spec.Drivers[0].Name != "ebs.csi.aws.com" ||
		*cn.Spec.Drivers[0].Allocatable.Count != 39 || cn.Spec.Drivers[0].NodeID != node.Name ||
		*cn.Spec.Drivers[1].Allocatable.Count != 7 {
		t.Fatalf("CSINode drivers: %+v", cn.Spec.Drivers)
	}

	for _, ns := range []string{initNS, measureNS} {
		c, err := cs.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "pvc-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c.Spec.VolumeName != ns+"-vol-1" || c.Status.Phase != v1.ClaimBound ||
			c.Annotations["pv.kubernetes.io/bind-completed"] != "true" {
			t.Fatalf("claim %s/pvc-1: %+v", ns, c)
		}
		pv, err := cs.CoreV1().PersistentVolumes().Get(ctx, ns+"-vol-1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Namespace != ns || pv.Spec.ClaimRef.Name != "pvc-1" ||
			pv.Status.Phase != v1.VolumeBound || pv.Spec.CSI.VolumeHandle != pv.Name {
			t.Fatalf("volume %s: %+v", pv.Name, pv)
		}
	}
	if _, err := cs.CoreV1().PersistentVolumeClaims(measureNS).Get(ctx, "pvc-2", metav1.GetOptions{}); err == nil {
		t.Fatal("a claim beyond measurePods was created")
	}

	// Pods refer to the claim of their own number.
	if _, err := CreatePods(ctx, cs, measureNS, 0, w.MeasurePods, tm.Pod, w.PodHook()); err != nil {
		t.Fatal(err)
	}
	p, err := cs.CoreV1().Pods(measureNS).Get(ctx, "pod-000001", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Spec.Volumes) != 1 || p.Spec.Volumes[0].PersistentVolumeClaim == nil ||
		p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "pvc-1" {
		t.Fatalf("pod volumes: %+v", p.Spec.Volumes)
	}
}

// An in-tree EBS volume keeps scheduler_perf's volume ID vol-<i>, the same in every namespace.
func TestInTreeVolumeIDs(t *testing.T) {
	ws, err := loadOne(t, mixedHeader+`  volumes:
    bound: true
    pvcTemplate: {spec: {accessModes: [ReadOnlyMany], resources: {requests: {storage: 1Gi}}}}
    pvTemplate: {spec: {accessModes: [ReadOnlyMany], capacity: {storage: 1Gi}, awsElasticBlockStore: {volumeID: x}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := ws[0].Templates()
	if err != nil {
		t.Fatal(err)
	}
	a, b := ws[0].BoundVolumeAt(tm, initNS, 3), ws[0].BoundVolumeAt(tm, measureNS, 3)
	if a.Name == b.Name || a.Spec.AWSElasticBlockStore.VolumeID != "vol-3" || b.Spec.AWSElasticBlockStore.VolumeID != "vol-3" {
		t.Fatalf("volumes: %s %s, IDs %s %s", a.Name, b.Name, a.Spec.AWSElasticBlockStore.VolumeID,
			b.Spec.AWSElasticBlockStore.VolumeID)
	}
	if tm.PV.Spec.AWSElasticBlockStore.VolumeID != "x" {
		t.Fatal("the template was modified")
	}
}

// The WaitForFirstConsumer shape: the class, pvsPerNode Available volumes pinned to each node,
// and unbound claims of the class.
func TestNodeVolumesAndUnboundClaims(t *testing.T) {
	ws, err := loadOne(t, mixedHeader+`  storageClasses:
  - {metadata: {name: wffc}, provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer}
  volumes:
    pvController: true
    pvsPerNode: 2
    pvcTemplate: {spec: {storageClassName: wffc, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}
    pvTemplate:
      spec: {storageClassName: wffc, accessModes: [ReadWriteOnce], capacity: {storage: 1Gi}, local: {path: /mnt/x}}
`)
	if err != nil {
		t.Fatal(err)
	}
	w := &ws[0]
	tm, err := w.Templates()
	if err != nil {
		t.Fatal(err)
	}
	cs := fake.NewSimpleClientset()
	ctx := context.Background()
	if _, err := StorageSetup(ctx, cs, w, tm); err != nil {
		t.Fatal(err)
	}
	sc, err := cs.StorageV1().StorageClasses().Get(ctx, "wffc", metav1.GetOptions{})
	if err != nil || sc.VolumeBindingMode == nil || *sc.VolumeBindingMode != "WaitForFirstConsumer" {
		t.Fatalf("class: %+v %v", sc, err)
	}
	pvs, err := cs.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pvs.Items) != w.Nodes*2 {
		t.Fatalf("%d volumes, want %d", len(pvs.Items), w.Nodes*2)
	}
	perNode := map[string]int{}
	for _, pv := range pvs.Items {
		terms := pv.Spec.NodeAffinity.Required.NodeSelectorTerms
		node := terms[0].MatchExpressions[0].Values[0]
		if !strings.HasPrefix(pv.Name, node+"-vol-") || pv.Spec.ClaimRef != nil ||
			pv.Status.Phase != v1.VolumeAvailable || terms[0].MatchExpressions[0].Key != "kubernetes.io/hostname" {
			t.Fatalf("volume %s: %+v", pv.Name, pv)
		}
		perNode[node]++
	}
	if len(perNode) != w.Nodes || perNode["scheduler-perf-00002"] != 2 {
		t.Fatalf("volumes per node: %v", perNode)
	}
	c, err := cs.CoreV1().PersistentVolumeClaims(measureNS).Get(ctx, "pvc-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Spec.VolumeName != "" || c.Status.Phase != "" || *c.Spec.StorageClassName != "wffc" {
		t.Fatalf("claim: %+v", c)
	}
}

func TestVolumeFieldsAreChecked(t *testing.T) {
	pvc := "    pvcTemplate: {spec: {accessModes: [ReadWriteOnce]}}\n"
	pv := "    pvTemplate: {spec: {capacity: {storage: 1Gi}}}\n"
	for bad, want := range map[string]string{
		"  volumes: {bound: true}\n":                                  "pvcTemplate",
		"  volumes:\n    bound: true\n" + pvc:                         "pvTemplate must be set",
		"  volumes:\n    pvsPerNode: 2\n" + pvc:                       "pvTemplate must be set",
		"  volumes:\n    bound: true\n    pvsPerNode: 1\n" + pvc + pv: "exclude each other",
		"  volumes:\n" + pvc + pv:                                     "needs bound or pvsPerNode",
		"  volumes:\n    pvsPerNode: -1\n" + pvc:                      "negative",
	} {
		_, err := loadOne(t, mixedHeader+bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", bad, err, want)
		}
	}
	// A claim alone (unbound, no volumes) is a valid shape, e.g. for a provisioner.
	if _, err := loadOne(t, mixedHeader+"  volumes:\n"+pvc); err != nil {
		t.Error(err)
	}
	// A misspelt template field is an error when the templates are decoded.
	ws, err := loadOne(t, mixedHeader+"  volumes:\n    pvcTemplate: {spec: {acessModes: [ReadWriteOnce]}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws[0].Templates(); err == nil || !strings.Contains(err.Error(), "pvcTemplate") {
		t.Errorf("misspelt claim field: %v", err)
	}
	ws, err = loadOne(t, mixedHeader+"  storageClasses: [{provisioner: x}]\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws[0].Templates(); err == nil || !strings.Contains(err.Error(), "no name") {
		t.Errorf("class without a name: %v", err)
	}
}

// The repository's volume shapes are scheduler_perf's: the sources and limits they name.
func TestRepositoryVolumeShapes(t *testing.T) {
	all, err := LoadWorkloads("../../../../bench/workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := SelectWorkloads(all, "SchedulingInTreePVs/500Nodes,SchedulingMigratedInTreePVs/500Nodes,"+
		"SchedulingCSIPVs/500Nodes,SchedulingWaitForFirstConsumerPVs/200Nodes", "")
	if err != nil {
		t.Fatal(err)
	}
	for i := range ws {
		w := &ws[i]
		tm, err := w.Templates()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(w.Name, "SchedulingInTreePVs"):
			if tm.PV.Spec.AWSElasticBlockStore == nil || w.CSINode != nil || !w.Volumes.Bound {
				t.Errorf("%s: %+v", w.Name, w)
			}
		case strings.HasPrefix(w.Name, "SchedulingMigratedInTreePVs"):
			if tm.PV.Spec.AWSElasticBlockStore == nil || w.CSINode.Drivers["ebs.csi.aws.com"] != 39 ||
				len(w.CSINode.MigratedPlugins) != 1 || !w.Volumes.Bound {
				t.Errorf("%s: %+v", w.Name, w)
			}
		case strings.HasPrefix(w.Name, "SchedulingCSIPVs"):
			if tm.PV.Spec.CSI == nil || w.CSINode.Drivers["ebs.csi.aws.com"] != 39 ||
				len(w.CSINode.MigratedPlugins) != 0 || !w.Volumes.Bound {
				t.Errorf("%s: %+v", w.Name, w)
			}
		default:
			if w.Volumes.Bound || w.Volumes.PVsPerNode*w.Nodes < w.TotalInitPods()+w.MeasurePods ||
				!w.Volumes.PVController || len(tm.StorageClasses) != 1 {
				t.Errorf("%s: %+v", w.Name, w)
			}
		}
	}
}
