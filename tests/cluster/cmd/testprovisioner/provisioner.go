package main

// The provisioner proper: what PersistentVolume a claim gets, and what reclaiming one does. The
// ProvisionController of sig-storage-lib-external-provisioner calls Provision once the PV binder
// controller has annotated a claim with volume.kubernetes.io/storage-provisioner (for a
// WaitForFirstConsumer class only after the scheduler wrote volume.kubernetes.io/selected-node),
// sets the PV's claimRef, class and provisioned-by annotation, and creates it; the binder then
// binds the two.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

// NodeGetter reads a Node; the provisioner needs the selected node's labels.
type NodeGetter func(ctx context.Context, name string) (*v1.Node, error)

// Provisioner provisions fake volumes: a directory Root/<pv name> (created, never mounted) as
// a hostPath source.
type Provisioner struct {
	Root    string
	GetNode NodeGetter
}

var _ controller.Provisioner = &Provisioner{}

// Provision returns the PV for options.PVC: the claim's requested size and access modes, the
// class's reclaim policy and mount options, and node affinity
//   - to the selected node (kubernetes.io/hostname In [its hostname label, else its name]) when
//     the scheduler chose one; the node must exist and match the class's allowed topologies,
//     otherwise the answer is ProvisioningReschedule, which clears the selection so the
//     scheduler picks again;
//   - else to the class's allowed topologies, if any (Immediate binding);
//   - else none.
func (p *Provisioner) Provision(ctx context.Context, o controller.ProvisionOptions) (
	*v1.PersistentVolume, controller.ProvisioningState, error) {
	claim, class := o.PVC, o.StorageClass
	if claim.Spec.Selector != nil {
		return nil, controller.ProvisioningFinished, errors.New("claim selectors are not supported")
	}
	size, ok := claim.Spec.Resources.Requests[v1.ResourceStorage]
	if !ok {
		return nil, controller.ProvisioningFinished, errors.New("claim requests no storage")
	}
	var affinity *v1.VolumeNodeAffinity
	if o.SelectedNodeName != "" {
		node, err := p.GetNode(ctx, o.SelectedNodeName)
		if apierrors.IsNotFound(err) {
			return nil, controller.ProvisioningReschedule, fmt.Errorf("selected node %q does not exist", o.SelectedNodeName)
		} else if err != nil {
			return nil, controller.ProvisioningNoChange, err
		}
		if !AllowedOn(class.AllowedTopologies, node.Labels) {
			return nil, controller.ProvisioningReschedule,
				fmt.Errorf("selected node %q is outside the allowed topologies of class %q", node.Name, class.Name)
		}
		hostname := node.Labels[v1.LabelHostname]
		if hostname == "" {
			hostname = node.Name
		}
		affinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchExpressions: []v1.NodeSelectorRequirement{{
				Key: v1.LabelHostname, Operator: v1.NodeSelectorOpIn, Values: []string{hostname}}}}}}}
	} else if terms := TopologyTerms(class.AllowedTopologies); len(terms) > 0 {
		affinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: terms}}
	}
	path := filepath.Join(p.Root, o.PVName)
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, controller.ProvisioningNoChange, err
	}
	reclaim := v1.PersistentVolumeReclaimDelete
	if class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	hostPathType := v1.HostPathDirectory
	return &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: o.PVName},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: size},
			AccessModes:                   claim.Spec.AccessModes,
			VolumeMode:                    claim.Spec.VolumeMode,
			PersistentVolumeReclaimPolicy: reclaim,
			MountOptions:                  class.MountOptions,
			NodeAffinity:                  affinity,
			PersistentVolumeSource: v1.PersistentVolumeSource{
				HostPath: &v1.HostPathVolumeSource{Path: path, Type: &hostPathType}},
		},
	}, controller.ProvisioningFinished, nil
}

// Delete removes the directory of a volume this provisioner made; any other volume is ignored.
func (p *Provisioner) Delete(_ context.Context, pv *v1.PersistentVolume) error {
	hp := pv.Spec.HostPath
	if hp == nil || filepath.Clean(hp.Path) != filepath.Join(p.Root, pv.Name) {
		return &controller.IgnoredError{Reason: "not a volume under " + p.Root}
	}
	return os.RemoveAll(hp.Path)
}

// AllowedOn reports whether a node with these labels lies in the allowed topologies: no terms
// allow every node, else some term must have all of its expressions satisfied.
func AllowedOn(terms []v1.TopologySelectorTerm, nodeLabels map[string]string) bool {
	if len(terms) == 0 {
		return true
	}
	for _, t := range terms {
		ok := true
		for _, e := range t.MatchLabelExpressions {
			v, has := nodeLabels[e.Key]
			ok = ok && has && slices.Contains(e.Values, v)
		}
		if ok {
			return true
		}
	}
	return false
}

// TopologyTerms turns a class's allowed topologies into node selector terms (ORed, each an AND
// of Key In Values), the node affinity of a volume provisioned before any node was chosen.
func TopologyTerms(terms []v1.TopologySelectorTerm) []v1.NodeSelectorTerm {
	var out []v1.NodeSelectorTerm
	for _, t := range terms {
		var term v1.NodeSelectorTerm
		for _, e := range t.MatchLabelExpressions {
			term.MatchExpressions = append(term.MatchExpressions, v1.NodeSelectorRequirement{
				Key: e.Key, Operator: v1.NodeSelectorOpIn, Values: e.Values})
		}
		out = append(out, term)
	}
	return out
}
