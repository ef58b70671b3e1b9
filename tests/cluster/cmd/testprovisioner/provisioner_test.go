package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

func zoneTerm(zones ...string) v1.TopologySelectorTerm {
	return v1.TopologySelectorTerm{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{
		{Key: v1.LabelTopologyZone, Values: zones}}}
}

func hostnameAffinity(host string) *v1.VolumeNodeAffinity {
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn,
			Values: []string{host}}}}}}}
}

func TestProvision(t *testing.T) {
	nodes := map[string]*v1.Node{
		"n1":      {ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{v1.LabelHostname: "n1", v1.LabelTopologyZone: "a"}}},
		"n2":      {ObjectMeta: metav1.ObjectMeta{Name: "n2", Labels: map[string]string{v1.LabelHostname: "host-2", v1.LabelTopologyZone: "b"}}},
		"nolabel": {ObjectMeta: metav1.ObjectMeta{Name: "nolabel"}},
	}
	getNode := func(_ context.Context, name string) (*v1.Node, error) {
		if n, ok := nodes[name]; ok {
			return n, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, name)
	}
	retain := v1.PersistentVolumeReclaimRetain
	tests := []struct {
		name     string
		node     string
		topology []v1.TopologySelectorTerm
		reclaim  *v1.PersistentVolumeReclaimPolicy
		selector *metav1.LabelSelector
		// want
		state    controller.ProvisioningState
		err      bool
		affinity *v1.VolumeNodeAffinity
		policy   v1.PersistentVolumeReclaimPolicy
	}{
		{name: "selected node", node: "n1", state: controller.ProvisioningFinished,
			affinity: hostnameAffinity("n1"), policy: v1.PersistentVolumeReclaimDelete},
		{name: "the node's hostname label, not its name", node: "n2", state: controller.ProvisioningFinished,
			affinity: hostnameAffinity("host-2"), policy: v1.PersistentVolumeReclaimDelete},
		{name: "a node without hostname label: its name", node: "nolabel", state: controller.ProvisioningFinished,
			affinity: hostnameAffinity("nolabel"), policy: v1.PersistentVolumeReclaimDelete},
		{name: "selected node in the allowed topologies", node: "n1", topology: []v1.TopologySelectorTerm{zoneTerm("a", "c")},
			reclaim: &retain, state: controller.ProvisioningFinished, affinity: hostnameAffinity("n1"),
			policy: v1.PersistentVolumeReclaimRetain},
		{name: "selected node outside the allowed topologies", node: "n2", topology: []v1.TopologySelectorTerm{zoneTerm("a")},
			state: controller.ProvisioningReschedule, err: true},
		{name: "selected node missing", node: "gone", state: controller.ProvisioningReschedule, err: true},
		{name: "immediate, allowed topologies", topology: []v1.TopologySelectorTerm{zoneTerm("a"), zoneTerm("b")},
			state: controller.ProvisioningFinished, policy: v1.PersistentVolumeReclaimDelete,
			affinity: &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpIn, Values: []string{"a"}}}},
				{MatchExpressions: []v1.NodeSelectorRequirement{{Key: v1.LabelTopologyZone, Operator: v1.NodeSelectorOpIn, Values: []string{"b"}}}},
			}}}},
		{name: "immediate, no topology", state: controller.ProvisioningFinished, policy: v1.PersistentVolumeReclaimDelete},
		{name: "claim selector", selector: &metav1.LabelSelector{}, state: controller.ProvisioningFinished, err: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			p := &Provisioner{Root: root, GetNode: getNode}
			claim := &v1.PersistentVolumeClaim{
				ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"},
				Spec: v1.PersistentVolumeClaimSpec{
					AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOncePod},
					Selector:    tc.selector,
					Resources: v1.VolumeResourceRequirements{Requests: v1.ResourceList{
						v1.ResourceStorage: resource.MustParse("3Gi")}},
				}}
			class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "sc"}, Provisioner: DefaultName,
				AllowedTopologies: tc.topology, ReclaimPolicy: tc.reclaim, MountOptions: []string{"ro"}}
			pv, state, err := p.Provision(context.Background(), controller.ProvisionOptions{
				StorageClass: class, PVName: "pvc-1", PVC: claim, SelectedNodeName: tc.node})
			if state != tc.state || (err != nil) != tc.err {
				t.Fatalf("state %q, error %v; want %q, error %v", state, err, tc.state, tc.err)
			}
			if tc.err {
				return
			}
			if !reflect.DeepEqual(pv.Spec.NodeAffinity, tc.affinity) {
				t.Errorf("node affinity %+v, want %+v", pv.Spec.NodeAffinity, tc.affinity)
			}
			if got := pv.Spec.Capacity[v1.ResourceStorage]; got.String() != "3Gi" {
				t.Errorf("capacity %s, want 3Gi", got.String())
			}
			if pv.Name != "pvc-1" || pv.Spec.PersistentVolumeReclaimPolicy != tc.policy ||
				!reflect.DeepEqual(pv.Spec.AccessModes, claim.Spec.AccessModes) ||
				!reflect.DeepEqual(pv.Spec.MountOptions, []string{"ro"}) {
				t.Errorf("volume %+v", pv)
			}
			dir := filepath.Join(root, "pvc-1")
			if pv.Spec.HostPath == nil || pv.Spec.HostPath.Path != dir {
				t.Fatalf("source %+v, want hostPath %s", pv.Spec.PersistentVolumeSource, dir)
			}
			if _, err := os.Stat(dir); err != nil {
				t.Errorf("volume directory: %v", err)
			}
			if err := p.Delete(context.Background(), pv); err != nil {
				t.Errorf("delete: %v", err)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("volume directory still there after delete: %v", err)
			}
		})
	}
}

// A volume this provisioner did not make is left alone.
func TestDeleteIgnoresForeignVolumes(t *testing.T) {
	root := t.TempDir()
	p := &Provisioner{Root: root}
	other := filepath.Join(t.TempDir(), "pv-x")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, pv := range []*v1.PersistentVolume{
		{ObjectMeta: metav1.ObjectMeta{Name: "pv-x"}, Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			HostPath: &v1.HostPathVolumeSource{Path: other}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pv-y"}, Spec: v1.PersistentVolumeSpec{PersistentVolumeSource: v1.PersistentVolumeSource{
			HostPath: &v1.HostPathVolumeSource{Path: filepath.Join(root, "pv-x")}}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pv-z"}},
	} {
		var ignored *controller.IgnoredError
		if err := p.Delete(context.Background(), pv); !errors.As(err, &ignored) {
			t.Errorf("%s: error %v, want IgnoredError", pv.Name, err)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("foreign directory removed: %v", err)
	}
}
