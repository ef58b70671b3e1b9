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
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// flowDriver is the DRA flow's own driver, which publishes a pool on every node.
const flowDriver = "gpu.example.com"

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
	if p, err := x.pods.Pods(pod.Namespace).Get(pod.Name); err == nil {
		statuses = p.Status.ResourceClaimStatuses
	}
	var out []ClaimOutcome
	for _, rc := range pod.Spec.ResourceClaims {
		o := ClaimOutcome{dynamic: true}
		name := ""
		if rc.ResourceClaimName != nil {
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
