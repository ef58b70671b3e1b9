package main

// Re-pinning a preemption in serial mode. Where stowage evicted other pods than upstream for a
// pod, its cluster differs from upstream's for every later pod. As a misplaced pod is moved to
// upstream's node, the victims are made upstream's: the pods only stowage evicted come back,
// bound to their nodes with their start times, and the pods only upstream evicted are evicted
// as a preempting scheduler does (the DisruptionTarget condition, then a deletion with their own
// grace period, so one with a grace period stays terminating, as in upstream's run). A pod upstream
// left nominated cannot be recreated so; the comparison stops there (compare.go).

import (
	"context"
	"fmt"
	"slices"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// repinnable reports whether serial mode can make stowage's cluster upstream's after a pod
// whose upstream outcome is up: upstream bound it, or it left neither a binding nor a nomination.
func repinnable(up Outcome) bool { return up.Node != "" || up.Nominated == "" }

// repinVictims restores the pods of mine that theirs lacks and evicts those of theirs that mine
// lacks. onNodes holds the pods as they were before the preemption.
func (x *Runner) repinVictims(ctx context.Context, mine, theirs []string, onNodes map[string][]*v1.Pod) error {
	byKey := map[string]*v1.Pod{}
	for _, pods := range onNodes {
		for _, p := range pods {
			byKey[podKey(p)] = p
		}
	}
	for _, k := range mine {
		if slices.Contains(theirs, k) {
			continue
		}
		p := byKey[k]
		if p == nil {
			return fmt.Errorf("victim %s was on no node before the preemption", k)
		}
		if err := x.deletePod(ctx, p); err != nil { // it may still be terminating
			return err
		}
		back := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels},
			Spec: *p.Spec.DeepCopy()}
		back.Spec.Priority = nil // admission sets it again from the class
		if err := x.createPod(ctx, back, p.Spec.NodeName); err != nil {
			return err
		}
		if t := p.Status.StartTime; t != nil {
			if err := x.setStartTime(ctx, p.Namespace, p.Name, t.Time); err != nil {
				return err
			}
		}
	}
	for _, k := range theirs {
		if slices.Contains(mine, k) {
			continue
		}
		p := byKey[k]
		if p == nil {
			return fmt.Errorf("upstream's victim %s was on no node before the preemption", k)
		}
		if err := x.evict(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// evict marks the pod as a preempting scheduler does and deletes it with its own grace period.
func (x *Runner) evict(ctx context.Context, p *v1.Pod) error {
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":%q,"status":"True","reason":%q,`+
		`"message":"difftest: upstream's victim","lastTransitionTime":%q}]}}`, v1.DisruptionTarget,
		v1.PodReasonPreemptionByScheduler, metav1.Now().UTC().Format("2006-01-02T15:04:05Z"))
	pods := x.cs.CoreV1().Pods(p.Namespace)
	if _, err := pods.Patch(ctx, p.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{},
		"status"); apierrors.IsNotFound(err) {
		return nil // already gone in this run too (evicted for a later attempt of the pod)
	} else if err != nil {
		return fmt.Errorf("marking %s/%s: %w", p.Namespace, p.Name, err)
	}
	if err := pods.Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if !x.waitUntil(ctx, x.podTimeout, func() bool {
		q, err := x.pods.Pods(p.Namespace).Get(p.Name)
		return err != nil || q.DeletionTimestamp != nil
	}) {
		return fmt.Errorf("pod %s/%s not evicted within %s", p.Namespace, p.Name, x.podTimeout)
	}
	return nil
}
