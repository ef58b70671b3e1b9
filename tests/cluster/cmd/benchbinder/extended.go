package main

// Pods asking for extended resources that a DeviceClass backs (DRAExtendedResource, GA in
// v1.37): no node advertises them, so the scheduler itself makes the pod's claim at PreBind.
// The binder does the same writes, as kube-scheduler's DynamicResources plugin does them: it
// creates the claim (named after the pod, owned by it, annotated
// resource.kubernetes.io/extended-resource-claim), adds the finalizer with an update, writes
// allocation and reservedFor with one status update, then patches the pod's
// status.extendedResourceClaimStatus; the caller binds. The claim's requests are upstream's:
// one per container and resource, container-<c>-request-<r> of the class backing the resource,
// for its quantity. Init containers are not handled (the benchmark's pods have none), nor
// nodes that advertise the resource (the benchmark's nodes advertise none).

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// classFor is the DeviceClass backing extended resource r, or "": the implicit
// deviceclass.resource.kubernetes.io/<class>, else the class naming r as its
// extendedResourceName, the newest if several do and the lowest name among equally new ones
// (the scheduler's extended resource cache).
func (d *draState) classFor(r v1.ResourceName) string {
	if name, ok := strings.CutPrefix(string(r), resourceapi.ResourceDeviceClassPrefix); ok {
		if _, exists, _ := d.classes.GetByKey(name); exists {
			return name
		}
		return ""
	}
	var best *resourceapi.DeviceClass
	for _, o := range d.classes.List() {
		c := o.(*resourceapi.DeviceClass)
		if c.Spec.ExtendedResourceName == nil || *c.Spec.ExtendedResourceName != string(r) {
			continue
		}
		if best == nil || best.CreationTimestamp.Before(&c.CreationTimestamp) ||
			(best.CreationTimestamp.Equal(&c.CreationTimestamp) && c.Name < best.Name) {
			best = c
		}
	}
	if best == nil {
		return ""
	}
	return best.Name
}

// extendedRequests are the device requests and the pod status's mappings for the pod's
// extended resources backed by a class; none for a pod without.
func (d *draState) extendedRequests(p *v1.Pod) ([]resourceapi.DeviceRequest, []v1.ContainerExtendedResourceRequest) {
	var names []v1.ResourceName
	for _, c := range p.Spec.Containers {
		for r := range c.Resources.Requests {
			if !slices.Contains(names, r) && !strings.HasPrefix(string(r), "kubernetes.io/") && strings.Contains(string(r), "/") {
				names = append(names, r)
			}
		}
	}
	slices.Sort(names)
	var reqs []resourceapi.DeviceRequest
	var mappings []v1.ContainerExtendedResourceRequest
	for _, r := range names {
		class := d.classFor(r)
		if class == "" {
			continue
		}
		for ci, c := range p.Spec.Containers {
			q, ok := c.Resources.Requests[r]
			if !ok || q.Value() == 0 {
				continue
			}
			keys := make([]string, 0, len(c.Resources.Requests))
			for k := range c.Resources.Requests {
				keys = append(keys, string(k))
			}
			slices.Sort(keys)
			name := fmt.Sprintf("container-%d-request-%d", len(p.Spec.InitContainers)+ci, slices.Index(keys, string(r)))
			reqs = append(reqs, resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{
				DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: q.Value()}})
			mappings = append(mappings, v1.ContainerExtendedResourceRequest{ContainerName: c.Name,
				ResourceName: string(r), RequestName: name})
		}
	}
	return reqs, mappings
}

// prepareExtended makes, allocates and reserves the claim for the pod's extended resources
// (reqs, from extendedRequests) on the next node with enough free devices, records it in the
// pod's status and returns the node. A claim made here in an earlier attempt is taken up again.
func (d *draState) prepareExtended(ctx context.Context, p *v1.Pod, reqs []resourceapi.DeviceRequest,
	mappings []v1.ContainerExtendedResourceRequest) (string, error) {
	api := d.cs.ResourceV1().ResourceClaims(p.Namespace)
	var c *resourceapi.ResourceClaim
	if key, ok := d.extended.Load(p.UID); ok {
		c = d.latest(key.(string))
	}
	if c == nil {
		var err error
		c, err = api.Create(ctx, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{
			Namespace: p.Namespace, GenerateName: p.Name + "-extended-resources-",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID,
				Controller: ptr.To(true)}},
			Annotations: map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"}},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: reqs}}},
			metav1.CreateOptions{})
		if err != nil {
			return "", fmt.Errorf("creating the extended resource claim: %w", err)
		}
		key := c.Namespace + "/" + c.Name
		d.extended.Store(p.UID, key)
		d.written.Store(key, c)
	}
	var node string
	var nd *nodeDevices
	var devs []string
	var err error
	if c.Status.Allocation == nil {
		if node, nd, devs, err = d.take("", devicesOf(c)); err != nil {
			return "", err
		}
	} else if node = d.nodeOf(c); node == "" {
		return "", fmt.Errorf("claim %s/%s is allocated on no node", c.Namespace, c.Name)
	}
	err = d.nominateTo(ctx, p, node)
	if err == nil {
		err = d.write(ctx, c, p, node, nd, devs)
	}
	if err != nil {
		if len(devs) > 0 {
			d.release(nd, devs)
		}
		return "", err
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"extendedResourceClaimStatus": v1.PodExtendedResourceClaimStatus{
		RequestMappings: mappings, ResourceClaimName: c.Name}}})
	if err != nil {
		return "", err
	}
	if _, err := d.cs.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, patch,
		metav1.PatchOptions{}, "status"); err != nil {
		return "", fmt.Errorf("pod status: %w", err)
	}
	return node, nil
}
