package main

// What a pod with resource claims needs before it can be bound (see the package comment): its
// claims exist, and each is allocated on the pod's node and reserved for the pod, written as
// kube-scheduler's DynamicResources PreBind writes them.

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// nodeDevices are the devices of one node-local pool.
type nodeDevices struct {
	driver, pool string
	devices      []string
}

// draState knows every node's devices and which are taken, and the claims it wrote last.
type draState struct {
	cs      kubernetes.Interface
	claims  cache.Store
	classes cache.Store // DeviceClasses, for extended resources backed by DRA
	// nominate: patch the pod's nominatedNodeName before the claim writes, as kube-scheduler
	// 1.37 does for a pod whose PreBind has work (NominatedNodeNameForExpectation, beta, on).
	nominate bool

	mu    sync.Mutex
	nodes map[string]*nodeDevices // node -> its slice's devices
	pools map[string]string       // driver/pool -> node
	used  map[string]bool         // driver/pool/device allocated to some claim
	ring  []string                // nodes with devices, sorted
	next  int

	locks    sync.Map // claim key -> *sync.Mutex: one writer per claim at a time
	written  sync.Map // claim key -> *resourceapi.ResourceClaim as last written here
	extended sync.Map // pod UID -> key of the extended resource claim created here for it
}

func newDRAState(cs kubernetes.Interface, claims, classes cache.Store) *draState {
	return &draState{cs: cs, claims: claims, classes: classes, nodes: map[string]*nodeDevices{},
		pools: map[string]string{}, used: map[string]bool{}}
}

// addSlice records a node-local slice's devices (every device matches the benchmark's class:
// the binder evaluates no selector).
func (d *draState) addSlice(s *resourceapi.ResourceSlice) {
	if s.Spec.NodeName == nil {
		return
	}
	nd := &nodeDevices{driver: s.Spec.Driver, pool: s.Spec.Pool.Name}
	for _, dev := range s.Spec.Devices {
		nd.devices = append(nd.devices, dev.Name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	node := *s.Spec.NodeName
	if _, ok := d.nodes[node]; !ok {
		d.ring = append(d.ring, node)
		sort.Strings(d.ring)
	}
	d.nodes[node], d.pools[nd.driver+"/"+nd.pool] = nd, node
}

// markAllocated records the devices of an allocated claim as taken.
func (d *draState) markAllocated(c *resourceapi.ResourceClaim) {
	if c.Status.Allocation == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range c.Status.Allocation.Devices.Results {
		d.used[r.Driver+"/"+r.Pool+"/"+r.Device] = true
	}
}

// take finds n free devices on node, or on the next node round-robin with n free when node is
// "", and marks them taken.
func (d *draState) take(node string, n int) (string, *nodeDevices, []string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	free := func(nd *nodeDevices) []string {
		var out []string
		for _, dev := range nd.devices {
			if len(out) < n && !d.used[nd.driver+"/"+nd.pool+"/"+dev] {
				out = append(out, dev)
			}
		}
		return out
	}
	candidates := []string{node}
	if node == "" {
		candidates = nil
		for k := range d.ring {
			candidates = append(candidates, d.ring[(d.next+k)%len(d.ring)])
		}
	}
	for k, name := range candidates {
		nd := d.nodes[name]
		if nd == nil {
			continue
		}
		if devs := free(nd); len(devs) == n {
			for _, dev := range devs {
				d.used[nd.driver+"/"+nd.pool+"/"+dev] = true
			}
			if node == "" {
				d.next += k + 1
			}
			return name, nd, devs, nil
		}
	}
	if node == "" {
		return "", nil, nil, fmt.Errorf("no node has %d free devices", n)
	}
	return "", nil, nil, fmt.Errorf("node %s has no %d free devices", node, n)
}

func (d *draState) release(nd *nodeDevices, devs []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dev := range devs {
		delete(d.used, nd.driver+"/"+nd.pool+"/"+dev)
	}
}

// claimKeys are the namespace/name of the pod's claims; false while the resourceclaim
// controller has not yet recorded a claim made from a template in the pod's status.
func claimKeys(p *v1.Pod) ([]string, bool) {
	var keys []string
	for _, pc := range p.Spec.ResourceClaims {
		name := pc.ResourceClaimName
		for _, st := range p.Status.ResourceClaimStatuses {
			if name == nil && st.Name == pc.Name {
				name = st.ResourceClaimName
			}
		}
		if name == nil {
			return nil, false
		}
		keys = append(keys, p.Namespace+"/"+*name)
	}
	sort.Strings(keys) // the order the claims are locked in
	return slices.Compact(keys), true
}

// latest is the newer of the claim this binder wrote last and the informer's copy.
func (d *draState) latest(key string) *resourceapi.ResourceClaim {
	var c *resourceapi.ResourceClaim
	if o, ok, _ := d.claims.GetByKey(key); ok {
		c = o.(*resourceapi.ResourceClaim)
	}
	if o, ok := d.written.Load(key); ok {
		w := o.(*resourceapi.ResourceClaim)
		if c == nil || rv(w) >= rv(c) {
			c = w
		}
	}
	return c
}

func rv(c *resourceapi.ResourceClaim) uint64 {
	v, _ := strconv.ParseUint(c.ResourceVersion, 10, 64)
	return v
}

// prepare makes the pod's claims ready for binding and returns the node to bind it to. ready
// is false while a claim does not exist yet (the pod is queued again when it appears).
func (d *draState) prepare(ctx context.Context, p *v1.Pod) (node string, ready bool, err error) {
	keys, ok := claimKeys(p)
	if !ok {
		return "", false, nil
	}
	claims := make([]*resourceapi.ResourceClaim, len(keys))
	for i, key := range keys {
		l, _ := d.locks.LoadOrStore(key, &sync.Mutex{})
		l.(*sync.Mutex).Lock()
		defer l.(*sync.Mutex).Unlock()
		if claims[i] = d.latest(key); claims[i] == nil {
			return "", false, nil
		}
	}
	// An allocated claim (shared with pods bound before) fixes the node.
	need := 0
	for _, c := range claims {
		if c.Status.Allocation == nil {
			need += devicesOf(c)
			continue
		}
		n := d.nodeOf(c)
		if n == "" || (node != "" && n != node) {
			return "", true, fmt.Errorf("claim %s/%s is allocated on no node or another node than %q", c.Namespace, c.Name, node)
		}
		node = n
	}
	var nd *nodeDevices
	var devs []string
	if need > 0 {
		if node, nd, devs, err = d.take(node, need); err != nil {
			return "", true, err
		}
	}
	if err := d.nominateTo(ctx, p, node); err != nil {
		if len(devs) > 0 {
			d.release(nd, devs)
		}
		return "", true, err
	}
	for _, c := range claims {
		var mine []string
		if c.Status.Allocation == nil {
			mine, devs = devs[:devicesOf(c)], devs[devicesOf(c):]
		}
		if err := d.write(ctx, c, p, node, nd, mine); err != nil {
			if len(mine) > 0 {
				d.release(nd, append(mine, devs...))
			}
			return "", true, err
		}
	}
	return node, true, nil
}

// nominateTo writes node as the pod's nominatedNodeName when the binder nominates and the pod
// does not name it already, with the status patch kube-scheduler sends.
func (d *draState) nominateTo(ctx context.Context, p *v1.Pod, node string) error {
	if !d.nominate || p.Status.NominatedNodeName == node {
		return nil
	}
	patch := fmt.Appendf(nil, `{"status":{"nominatedNodeName":%q}}`, node)
	_, err := d.cs.CoreV1().Pods(p.Namespace).Patch(ctx, p.Name, types.StrategicMergePatchType, patch,
		metav1.PatchOptions{}, "status")
	if err != nil {
		return fmt.Errorf("nominating %s for pod %s/%s: %w", node, p.Namespace, p.Name, err)
	}
	return nil
}

func (d *draState) nodeOf(c *resourceapi.ResourceClaim) string {
	results := c.Status.Allocation.Devices.Results
	if len(results) == 0 {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pools[results[0].Driver+"/"+results[0].Pool]
}

// write reserves c for p, first allocating devs (of nd, on node) if they are given: the
// finalizer with an update, then allocation and reservedFor with one status update, as
// kube-scheduler's PreBind does. Conflicts are retried on a fresh copy.
func (d *draState) write(ctx context.Context, c *resourceapi.ResourceClaim, p *v1.Pod, node string,
	nd *nodeDevices, devs []string) error {
	api, name := d.cs.ResourceV1().ResourceClaims(c.Namespace), c.Name
	key := c.Namespace + "/" + name
	for attempt := 0; ; attempt++ {
		if slices.ContainsFunc(c.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool {
			return r.UID == p.UID
		}) {
			return nil
		}
		c = c.DeepCopy()
		var err error
		if len(devs) > 0 && c.Status.Allocation != nil {
			return fmt.Errorf("claim %s got allocated elsewhere", key)
		}
		if len(devs) > 0 && !slices.Contains(c.Finalizers, resourceapi.Finalizer) {
			c.Finalizers = append(c.Finalizers, resourceapi.Finalizer)
			c, err = api.Update(ctx, c, metav1.UpdateOptions{})
		}
		if err == nil {
			if len(devs) > 0 {
				c.Status.Allocation = allocation(c, node, nd, devs)
			}
			c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{
				Resource: "pods", Name: p.Name, UID: p.UID})
			c, err = api.UpdateStatus(ctx, c, metav1.UpdateOptions{})
		}
		if err == nil {
			d.written.Store(key, c)
			return nil
		}
		if !apierrors.IsConflict(err) || attempt >= 4 {
			return fmt.Errorf("claim %s for pod %s/%s: %w", key, p.Namespace, p.Name, err)
		}
		if c, err = api.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("claim %s after a conflict: %w", key, err)
		}
	}
}

// devicesOf is how many devices the claim's requests take: each request its exact count
// (1 unless set; the benchmark's requests are all ExactCount).
func devicesOf(c *resourceapi.ResourceClaim) int {
	n := 0
	for _, r := range c.Spec.Devices.Requests {
		n += requestCount(r)
	}
	return n
}

func requestCount(r resourceapi.DeviceRequest) int {
	if r.Exactly != nil && r.Exactly.Count > 0 {
		return int(r.Exactly.Count)
	}
	return 1
}

// allocation is what the structured allocator writes for devices of one node-local pool: one
// result per device of each request, in order, and a node selector for the slice's node.
func allocation(c *resourceapi.ResourceClaim, node string, nd *nodeDevices, devs []string) *resourceapi.AllocationResult {
	a := &resourceapi.AllocationResult{NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
			Values: []string{node}}}}}}}
	for _, r := range c.Spec.Devices.Requests {
		for k := 0; k < requestCount(r); k++ {
			a.Devices.Results = append(a.Devices.Results, resourceapi.DeviceRequestAllocationResult{
				Request: r.Name, Driver: nd.driver, Pool: nd.pool, Device: devs[0]})
			devs = devs[1:]
		}
	}
	return a
}
