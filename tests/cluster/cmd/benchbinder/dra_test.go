package main

import (
	"context"
	"fmt"
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

func slice(node string, devices int) *resourceapi.ResourceSlice {
	s := &resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{Driver: "test-driver.cdi.k8s.io",
		NodeName: ptr.To(node), Pool: resourceapi.ResourcePool{Name: "pool-" + node}}}
	for k := 0; k < devices; k++ {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: fmt.Sprint("dev-", k)})
	}
	return s
}

func claim(name string) *resourceapi.ResourceClaim {
	return &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{
			{Name: "req-0", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "test-class"}}}}}}
}

// setup is a binder state over two nodes of two devices, a third node without, and the claims
// (in the API and in the informer's store).
func setup(t *testing.T, claims ...*resourceapi.ResourceClaim) (*draState, *fake.Clientset) {
	cs := fake.NewSimpleClientset()
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	d := newDRAState(cs, store, cache.NewStore(cache.MetaNamespaceKeyFunc))
	d.addSlice(slice("node-b", 2))
	d.addSlice(slice("node-a", 2))
	d.addSlice(&resourceapi.ResourceSlice{Spec: resourceapi.ResourceSliceSpec{Driver: "x"}}) // not node-local
	for _, c := range claims {
		if _, err := cs.ResourceV1().ResourceClaims(c.Namespace).Create(context.Background(), c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_ = store.Add(c)
		d.markAllocated(c)
	}
	return d, cs
}

func pod(name string, pc v1.PodResourceClaim, claimStatus *string) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)},
		Spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{pc}}}
	if claimStatus != nil {
		p.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: pc.Name, ResourceClaimName: claimStatus}}
	}
	return p
}

// A pod's claim from a template: not ready until the pod's status names it and it exists, then
// allocated on a node with a free device (round-robin, skipping full nodes), finalizer added,
// reserved for the pod.
func TestPrepareTemplateClaims(t *testing.T) {
	ctx := context.Background()
	// An init claim already holds node-a's dev-0.
	initClaim := claim("init")
	initClaim.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "req-0", Driver: "test-driver.cdi.k8s.io",
			Pool: "pool-node-a", Device: "dev-0"}}}}
	d, cs := setup(t, initClaim, claim("p0-resource"), claim("p1-resource"), claim("p2-resource"), claim("p3-resource"))
	tpl := v1.PodResourceClaim{Name: "resource", ResourceClaimTemplateName: ptr.To("tpl")}
	if _, ready, err := d.prepare(ctx, pod("p0", tpl, nil)); ready || err != nil {
		t.Fatalf("claim not in the pod's status: ready %v, %v", ready, err)
	}
	if _, ready, err := d.prepare(ctx, pod("px", tpl, ptr.To("missing"))); ready || err != nil {
		t.Fatalf("claim not made yet: ready %v, %v", ready, err)
	}
	var nodes []string
	for i := 0; i < 3; i++ {
		p := pod(fmt.Sprint("p", i), tpl, ptr.To(fmt.Sprintf("p%d-resource", i)))
		node, ready, err := d.prepare(ctx, p)
		if err != nil || !ready {
			t.Fatalf("pod %d: %v %v", i, ready, err)
		}
		nodes = append(nodes, node)
		c, err := cs.ResourceV1().ResourceClaims("ns").Get(ctx, fmt.Sprintf("p%d-resource", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		a := c.Status.Allocation
		if a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Pool != "pool-"+node ||
			a.Devices.Results[0].Request != "req-0" || a.NodeSelector.NodeSelectorTerms[0].MatchFields[0].Values[0] != node ||
			!slices.Contains(c.Finalizers, resourceapi.Finalizer) || len(c.Status.ReservedFor) != 1 ||
			c.Status.ReservedFor[0].UID != p.UID || c.Status.ReservedFor[0].Resource != "pods" {
			t.Fatalf("claim of pod %d: %+v", i, c)
		}
	}
	// node-a (1 free), node-b (2 free), then node-b again since node-a is full.
	if !slices.Equal(nodes, []string{"node-a", "node-b", "node-b"}) {
		t.Fatalf("nodes: %v", nodes)
	}
	if _, ready, err := d.prepare(ctx, pod("p3", tpl, ptr.To("p3-resource"))); !ready || err == nil {
		t.Fatalf("no free device left: ready %v, %v", ready, err)
	}
}

// Claims shared by name: the first pod allocates, the next ones follow it to its node and are
// added to reservedFor.
func TestPrepareSharedClaim(t *testing.T) {
	ctx := context.Background()
	d, cs := setup(t, claim("shared"))
	ref := v1.PodResourceClaim{Name: "resource", ResourceClaimName: ptr.To("shared")}
	for i := 0; i < 3; i++ {
		node, ready, err := d.prepare(ctx, pod(fmt.Sprint("p", i), ref, nil))
		if err != nil || !ready || node != "node-a" {
			t.Fatalf("pod %d: %s %v %v", i, node, ready, err)
		}
	}
	// Preparing a pod again (its binding failed) changes nothing.
	if node, _, err := d.prepare(ctx, pod("p1", ref, nil)); err != nil || node != "node-a" {
		t.Fatalf("again: %s %v", node, err)
	}
	c, err := cs.ResourceV1().ResourceClaims("ns").Get(ctx, "shared", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Status.ReservedFor) != 3 || c.Status.ReservedFor[2].Name != "p2" || len(c.Status.Allocation.Devices.Results) != 1 {
		t.Fatalf("shared claim: %+v", c.Status)
	}
	if d.used["test-driver.cdi.k8s.io/pool-node-a/dev-1"] || !d.used["test-driver.cdi.k8s.io/pool-node-a/dev-0"] {
		t.Fatalf("devices taken: %v", d.used)
	}
}

func TestClaimKeys(t *testing.T) {
	p := pod("p", v1.PodResourceClaim{Name: "a", ResourceClaimTemplateName: ptr.To("t")}, ptr.To("p-a"))
	p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, v1.PodResourceClaim{Name: "b", ResourceClaimName: ptr.To("c")})
	if keys, ok := claimKeys(p); !ok || !slices.Equal(keys, []string{"ns/c", "ns/p-a"}) {
		t.Fatalf("keys %v %v", keys, ok)
	}
	p.Status.ResourceClaimStatuses = nil
	if _, ok := claimKeys(p); ok {
		t.Fatal("a template claim without status is ready")
	}
}

// With nominations on, the pod's nominatedNodeName is patched to the node before its claim is
// written, once; without them the pod is not written at all.
func TestPrepareNominatesBeforeTheClaimWrites(t *testing.T) {
	ctx := context.Background()
	for _, nominate := range []bool{false, true} {
		d, cs := setup(t, claim("p0-resource"))
		d.nominate = nominate
		p := pod("p0", v1.PodResourceClaim{Name: "resource", ResourceClaimName: ptr.To("p0-resource")}, nil)
		if _, err := cs.CoreV1().Pods("ns").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cs.ClearActions()
		node, ready, err := d.prepare(ctx, p)
		if err != nil || !ready {
			t.Fatalf("nominate %v: %v %v", nominate, ready, err)
		}
		var writes []string
		for _, a := range cs.Actions() {
			if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
				writes = append(writes, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetSubresource())
			}
		}
		want := []string{"update resourceclaims/", "update resourceclaims/status"}
		if nominate {
			want = append([]string{"patch pods/status"}, want...)
		}
		if !slices.Equal(writes, want) {
			t.Fatalf("nominate %v: writes %v, want %v", nominate, writes, want)
		}
		got, err := cs.CoreV1().Pods("ns").Get(ctx, "p0", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if nominate != (got.Status.NominatedNodeName == node) {
			t.Fatalf("nominate %v: pod nominated to %q, bound to %q", nominate, got.Status.NominatedNodeName, node)
		}
	}
}
