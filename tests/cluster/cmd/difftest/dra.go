package main

// The DRA objects of the dra profile, on a test cluster that runs the DRA flow (the
// resourceclaim controller and the driver gpu.example.com). Device classes, the generator's
// ResourceSlices and the templates are applied once per state (applyDRA), while no scheduler
// runs. Claims are allocated by the schedulers and made by the controller for the templates,
// so every run starts from the state's claims made afresh (resetClaims); the claims held by
// existing pods get their allocation and reservation once those pods exist (holdClaims).
//
// After a pod's decision (serial mode) or at the end of the batch, the driver reads each of the
// pod's claims (draClaimOutcomes): allocated or not, and the driver, pool and device given to
// each request, which compare.go compares as the storage profile's claims.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/klog/v2"
)

// flowDriver is the DRA flow's own driver, which publishes a pool on every node.
const flowDriver = "gpu.example.com"

// extendedClaim names the claim a scheduler made for a pod's extended resources in outcomes.
const extendedClaim = "(extended resources)"

// applyDRA creates the state's device classes, slices and templates.
func (x *Runner) applyDRA(ctx context.Context, st *State) error {
	r := x.cs.ResourceV1()
	for i := range st.DeviceClasses {
		if _, err := r.DeviceClasses().Create(ctx, &st.DeviceClasses[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating deviceclass %s: %w", st.DeviceClasses[i].Name, err)
		}
	}
	for i := range st.ResourceSlices {
		if _, err := r.ResourceSlices().Create(ctx, &st.ResourceSlices[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating resourceslice %s: %w", st.ResourceSlices[i].Name, err)
		}
	}
	for i := range st.ResourceClaimTemplates {
		o := &st.ResourceClaimTemplates[i]
		if _, err := r.ResourceClaimTemplates(o.Namespace).Create(ctx, o, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating resourceclaimtemplate %s: %w", o.Name, err)
		}
	}
	return nil
}

// deleteDRA deletes the claims and templates of the difftest namespace, the generator's
// device classes (those named difftest-*) and its driver's slices; the DRA flow's own stay.
func (x *Runner) deleteDRA(ctx context.Context) error {
	if err := x.clearClaims(ctx); err != nil {
		return err
	}
	r := x.cs.ResourceV1()
	opts := metav1.DeleteOptions{}
	if err := r.ResourceClaimTemplates(namespace).DeleteCollection(ctx, opts, metav1.ListOptions{}); err != nil &&
		!apierrors.IsNotFound(err) {
		return err
	}
	err := r.ResourceSlices().DeleteCollection(ctx, opts, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorDriver, DRADriver).String()})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	classes, err := r.DeviceClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, c := range classes.Items {
		if strings.HasPrefix(c.Name, "difftest-") {
			if err := r.DeviceClasses().Delete(ctx, c.Name, opts); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}

// clearClaims deletes every claim of the difftest namespace, taking their finalizers off, and
// waits until none is listed.
func (x *Runner) clearClaims(ctx context.Context) error {
	api := x.cs.ResourceV1().ResourceClaims(namespace)
	for i := 0; ; i++ {
		claims, err := api.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(claims.Items) == 0 {
			return nil
		}
		if i == 200 {
			return fmt.Errorf("%d resourceclaims not deleted within a minute", len(claims.Items))
		}
		for _, c := range claims.Items {
			if len(c.Finalizers) > 0 {
				c.Finalizers = nil
				if _, err := api.Update(ctx, &c, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) &&
					!apierrors.IsConflict(err) {
					return err
				}
			}
			if c.DeletionTimestamp == nil {
				if err := api.Delete(ctx, c.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return err
				}
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// resetClaims deletes every claim and creates the state's, without their status.
func (x *Runner) resetClaims(ctx context.Context, st *State) error {
	if err := x.clearClaims(ctx); err != nil {
		return err
	}
	for i := range st.ResourceClaims {
		c := st.ResourceClaims[i].DeepCopy()
		c.Status = resourceapi.ResourceClaimStatus{}
		if _, err := x.cs.ResourceV1().ResourceClaims(c.Namespace).Create(ctx, c, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating resourceclaim %s: %w", c.Name, err)
		}
	}
	return nil
}

// holdClaims writes the allocation of each claim the state allocates, reserved for the
// existing pods that name it (they exist by now: the reservation holds their UIDs).
func (x *Runner) holdClaims(ctx context.Context, st *State) error {
	for i := range st.ResourceClaims {
		want := &st.ResourceClaims[i]
		if want.Status.Allocation == nil {
			continue
		}
		c, err := x.cs.ResourceV1().ResourceClaims(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c.Status.Allocation = want.Status.Allocation.DeepCopy()
		for _, e := range st.Existing {
			for _, rc := range e.Spec.ResourceClaims {
				if rc.ResourceClaimName == nil || *rc.ResourceClaimName != want.Name {
					continue
				}
				p, err := x.cs.CoreV1().Pods(e.Namespace).Get(ctx, e.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{
					Resource: "pods", Name: p.Name, UID: p.UID})
			}
		}
		if _, err := x.cs.ResourceV1().ResourceClaims(c.Namespace).UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("allocating resourceclaim %s: %w", c.Name, err)
		}
	}
	return nil
}

// waitFlowSlices waits until the DRA flow's driver has published its slices for every node, so
// that no slice event comes while the pods are scheduled.
func (x *Runner) waitFlowSlices(ctx context.Context, nodes []v1.Node) error {
	sel := fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorDriver, flowDriver).String()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		l, err := x.cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			return err
		}
		has := map[string]bool{}
		for _, s := range l.Items {
			if s.Spec.NodeName != nil {
				has[*s.Spec.NodeName] = true
			}
		}
		missing := ""
		for _, n := range nodes {
			if !has[n.Name] {
				missing = n.Name
				break
			}
		}
		if missing == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s slice for node %s within 30 s: the dra profile needs the DRA flow "+
				"(tests/cluster/up --dra)", flowDriver, missing)
		}
	}
}

// draClaimOutcomes reads the pod's claims, in the order of its resourceClaims: a template's
// claim is found through the pod's status and named after the template, its generated name
// differing between runs.
func (x *Runner) draClaimOutcomes(ctx context.Context, pod *v1.Pod) ([]ClaimOutcome, error) {
	var statuses []v1.PodResourceClaimStatus
	rcs := pod.Spec.ResourceClaims
	if p, err := x.pods.Pods(pod.Namespace).Get(pod.Name); err == nil {
		statuses = p.Status.ResourceClaimStatuses
		if e := p.Status.ExtendedResourceClaimStatus; e != nil {
			// The scheduler's claim for extended resources a DeviceClass provides (the flow's
			// extended-gpu.example.com serves example.com/gpu where a node lacks it).
			rcs = append(slices.Clone(rcs), v1.PodResourceClaim{Name: extendedClaim,
				ResourceClaimName: ptr(e.ResourceClaimName)})
		}
	}
	var out []ClaimOutcome
	for _, rc := range rcs {
		o := ClaimOutcome{dynamic: true}
		name := ""
		if rc.Name == extendedClaim {
			name, o.Claim = *rc.ResourceClaimName, extendedClaim
		} else if rc.ResourceClaimName != nil {
			name, o.Claim = *rc.ResourceClaimName, *rc.ResourceClaimName
		} else {
			o.Claim = rc.Name + " from " + *rc.ResourceClaimTemplateName
			for _, s := range statuses {
				if s.Name == rc.Name && s.ResourceClaimName != nil {
					name = *s.ResourceClaimName
				}
			}
		}
		if name == "" {
			o.Missing = true
			out = append(out, o)
			continue
		}
		c, err := x.cs.ResourceV1().ResourceClaims(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			o.Missing = true
			out = append(out, o)
			continue
		} else if err != nil {
			return nil, err
		}
		o.Phase = "unallocated"
		if a := c.Status.Allocation; a != nil {
			o.Phase = "allocated"
			for _, d := range a.Devices.Results {
				o.Devices = append(o.Devices, fmt.Sprintf("%s=%s/%s/%s", d.Request, d.Driver, d.Pool, d.Device))
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// claimsReleased: no claim is allocated and reserved by nobody, so the resourceclaim controller
// has deallocated the claims of the pods deleted. It records the first claim that is not in
// x.unreleased.
func (x *Runner) claimsReleased(ctx context.Context) bool {
	l, err := x.cs.ResourceV1().ResourceClaims(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	for _, c := range l.Items {
		if c.Status.Allocation != nil && len(c.Status.ReservedFor) == 0 {
			x.unreleased = fmt.Sprintf("%s (%s)", c.Name, c.Annotations)
			return false
		}
	}
	return true
}

// releaseClaims waits up to 3 s for the resourceclaim controller to deallocate the claims of a
// pod that left, then deallocates itself those still allocated and reserved by nobody. The
// controller deallocates a claim only as it removes the claim's last reservation itself; when a
// PreBind failed after writing the claim (upstream's "nil or empty request mappings" for a pod
// with claims of its own asking for example.com/gpu on a node that lists it), the scheduler's
// Unreserve removes the reservation, and whether it comes before the controller sees the pod
// gone is timing. When the scheduler came first the claim stayed allocated (until a garbage
// collector, which the test cluster lacks, deleted it with its pod), and the two runs went on
// with different devices free: upstream against itself disagreed so on seed 709's pod-03.
func (x *Runner) releaseClaims(ctx context.Context, pod string) error {
	if x.waitUntil(ctx, 3*time.Second, func() bool { return x.claimsReleased(ctx) }) {
		return nil
	}
	api := x.cs.ResourceV1().ResourceClaims(namespace)
	for i := 0; i < 10; i++ {
		l, err := api.List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		done := true
		for _, c := range l.Items {
			if c.Status.Allocation == nil || len(c.Status.ReservedFor) > 0 {
				continue
			}
			klog.InfoS("Deallocating a claim reserved by nobody after a pod left", "pod", pod, "claim", c.Name)
			c.Status.Allocation = nil
			if _, err := api.UpdateStatus(ctx, &c, metav1.UpdateOptions{}); apierrors.IsConflict(err) {
				done = false
			} else if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("deallocating resourceclaim %s: %w", c.Name, err)
			}
		}
		if done {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("claims reserved by nobody still allocated after pod %s left: %s", pod, x.unreleased)
}

// pinClaims gives a pod that serial mode moved to upstream's node (run.go) the devices
// upstream's run gave it, so that later pods see the same devices in use: once the
// resourceclaim controller has deallocated the claims of the pod deleted and made the new
// pod's claims, each is allocated as upstream's (up) on node and reserved for the pod. Only
// claims made from templates can be so: a direct claim may still be reserved by another pod,
// and the claim for extended resources is made by the scheduler. It reports whether the pod's
// claims were pinned.
func (x *Runner) pinClaims(ctx context.Context, pod *v1.Pod, node string, up []ClaimOutcome) (bool, error) {
	if len(pod.Spec.ResourceClaims) == 0 || len(up) != len(pod.Spec.ResourceClaims) {
		return false, nil
	}
	for _, rc := range pod.Spec.ResourceClaims {
		if rc.ResourceClaimTemplateName == nil {
			return false, nil
		}
	}
	api := x.cs.ResourceV1().ResourceClaims(pod.Namespace)
	var p *v1.Pod
	released := func() bool {
		if !x.claimsReleased(ctx) {
			return false
		}
		got, err := x.pods.Pods(pod.Namespace).Get(pod.Name)
		if err != nil || len(got.Status.ResourceClaimStatuses) < len(pod.Spec.ResourceClaims) {
			return false
		}
		p = got
		return true
	}
	if !x.waitUntil(ctx, 10*time.Second, released) {
		klog.InfoS("Claims not released and made again within 10 s, not pinned", "pod", pod.Name,
			"claim", x.unreleased)
		return false, nil
	}
	for i, rc := range pod.Spec.ResourceClaims {
		var name string
		for _, s := range p.Status.ResourceClaimStatuses {
			if s.Name == rc.Name && s.ResourceClaimName != nil {
				name = *s.ResourceClaimName
			}
		}
		c, err := api.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		a := &resourceapi.AllocationResult{NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
				Values: []string{node}}}}}}}
		for _, d := range up[i].Devices {
			req, dev, _ := strings.Cut(d, "=")
			parts := strings.SplitN(dev, "/", 3)
			if len(parts) != 3 {
				return false, fmt.Errorf("pod %s: cannot read device %q", pod.Name, d)
			}
			a.Devices.Results = append(a.Devices.Results, resourceapi.DeviceRequestAllocationResult{
				Request: req, Driver: parts[0], Pool: parts[1], Device: parts[2]})
		}
		if len(a.Devices.Results) == 0 {
			continue
		}
		c.Status.Allocation = a
		c.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}}
		if _, err := api.UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
			return false, fmt.Errorf("pinning resourceclaim %s: %w", name, err)
		}
	}
	return true, nil
}
