package main

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func deviceClass(name, extended string, created time.Time) *resourceapi.DeviceClass {
	c := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)}}
	if extended != "" {
		c.Spec.ExtendedResourceName = ptr.To(extended)
	}
	return c
}

func extendedPod(name string, requests v1.ResourceList) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "pause", Resources: v1.ResourceRequirements{Requests: requests}}}}}
	return p
}

// Extended resources map to classes as the scheduler's cache maps them: implicit names to their
// class, explicit ones to the newest class naming them (the lower name among equals).
func TestClassFor(t *testing.T) {
	d, _ := setup(t)
	t0 := time.Unix(1000, 0)
	for _, c := range []*resourceapi.DeviceClass{deviceClass("gpu-old", "example.com/gpu", t0),
		deviceClass("gpu-b", "example.com/gpu", t0.Add(time.Second)), deviceClass("gpu-a", "example.com/gpu", t0.Add(time.Second)),
		deviceClass("plain", "", t0)} {
		_ = d.classes.Add(c)
	}
	for r, want := range map[v1.ResourceName]string{"example.com/gpu": "gpu-a",
		"deviceclass.resource.kubernetes.io/plain": "plain", "deviceclass.resource.kubernetes.io/none": "",
		"example.com/other": "", "cpu": ""} {
		if got := d.classFor(r); got != want {
			t.Errorf("%s: class %q, want %q", r, got, want)
		}
	}
	reqs, mappings := d.extendedRequests(extendedPod("p", v1.ResourceList{"cpu": resource.MustParse("1"),
		"example.com/gpu": resource.MustParse("2"), "example.com/other": resource.MustParse("1")}))
	if len(reqs) != 1 || reqs[0].Name != "container-0-request-1" || reqs[0].Exactly.DeviceClassName != "gpu-a" ||
		reqs[0].Exactly.Count != 2 || reqs[0].Exactly.AllocationMode != resourceapi.DeviceAllocationModeExactCount ||
		len(mappings) != 1 || mappings[0] != (v1.ContainerExtendedResourceRequest{ContainerName: "pause",
		ResourceName: "example.com/gpu", RequestName: "container-0-request-1"}) {
		t.Fatalf("requests %+v, mappings %+v", reqs, mappings)
	}
	if reqs, _ := d.extendedRequests(extendedPod("q", v1.ResourceList{"cpu": resource.MustParse("1")})); len(reqs) != 0 {
		t.Fatalf("a pod without extended resources: %+v", reqs)
	}
}

// A pod's extended resources get the claim kube-scheduler's PreBind makes: created for the pod,
// finalizer, allocation of one device per unit on one node and reservation, then the pod's
// status names it. Nodes are taken round-robin among those with enough free devices.
func TestPrepareExtended(t *testing.T) {
	ctx := context.Background()
	d, cs := setup(t)
	generated := 0
	cs.PrependReactor("create", "resourceclaims", func(a clienttesting.Action) (bool, runtime.Object, error) {
		c := a.(clienttesting.CreateAction).GetObject().(*resourceapi.ResourceClaim)
		if c.Name == "" { // the fake client does not generate names
			generated++
			c.Name = fmt.Sprintf("%sx%d", c.GenerateName, generated)
		}
		return false, nil, nil
	})
	_ = d.classes.Add(deviceClass("test-class-0", "example.com/gpu-0", time.Unix(1000, 0)))
	var nodes []string
	for i, n := range []string{"2", "1", "1"} {
		p := extendedPod(fmt.Sprint("p", i), v1.ResourceList{"example.com/gpu-0": resource.MustParse(n)})
		if _, err := cs.CoreV1().Pods("ns").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		reqs, mappings := d.extendedRequests(p)
		node, err := d.prepareExtended(ctx, p, reqs, mappings)
		if err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		nodes = append(nodes, node)
		got, err := cs.CoreV1().Pods("ns").Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		st := got.Status.ExtendedResourceClaimStatus
		if st == nil || len(st.RequestMappings) != 1 || st.RequestMappings[0].RequestName != "container-0-request-0" {
			t.Fatalf("pod %d status: %+v", i, got.Status)
		}
		c, err := cs.ResourceV1().ResourceClaims("ns").Get(ctx, st.ResourceClaimName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := c.Status.Allocation
		if c.GenerateName != p.Name+"-extended-resources-" || c.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" ||
			metav1.GetControllerOf(c).UID != p.UID || !slices.Contains(c.Finalizers, resourceapi.Finalizer) ||
			a == nil || len(a.Devices.Results) != int(ptr.To(resource.MustParse(n)).Value()) || a.Devices.Results[0].Pool != "pool-"+node ||
			a.Devices.Results[0].Request != "container-0-request-0" || len(c.Status.ReservedFor) != 1 ||
			c.Status.ReservedFor[0].UID != p.UID {
			t.Fatalf("claim of pod %d: %+v", i, c)
		}
		// Again (the binding failed): the same claim, nothing more taken.
		if again, err := d.prepareExtended(ctx, p, reqs, mappings); err != nil || again != node {
			t.Fatalf("pod %d again: %s %v", i, again, err)
		}
	}
	// node-a takes both devices for pod 0, node-b one each for pods 1 and 2.
	if !slices.Equal(nodes, []string{"node-a", "node-b", "node-b"}) || generated != 3 {
		t.Fatalf("nodes %v, %d claims created", nodes, generated)
	}
	p := extendedPod("p3", v1.ResourceList{"example.com/gpu-0": resource.MustParse("1")})
	reqs, mappings := d.extendedRequests(p)
	if _, err := d.prepareExtended(ctx, p, reqs, mappings); err == nil {
		t.Fatal("no free device left, yet prepared")
	}
}
