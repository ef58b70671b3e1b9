package main

// Creating nodes and pods as fast as the apiserver takes them: many concurrent workers on an
// unthrottled client, so creation runs ahead of any scheduler and its rate can be reported.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// createWorkers is how many creations are in flight at once: enough to keep the apiserver
// busy on both cores without queueing in its max-mutating-requests-inflight (200).
const createWorkers = 48

// CreateResult is how long creating n objects took.
type CreateResult struct {
	Count   int
	Seconds float64
}

// Rate is objects per second.
func (r CreateResult) Rate() float64 {
	if r.Seconds <= 0 {
		return 0
	}
	return float64(r.Count) / r.Seconds
}

// parallelCreate runs create(i) for i in [0, n) on createWorkers goroutines. Each object is
// tried up to 5 times; AlreadyExists counts as created (an earlier attempt landed). The first
// lasting error stops the rest.
func parallelCreate(ctx context.Context, n int, what string, create func(ctx context.Context, i int) error) (CreateResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	var next atomic.Int64
	var once sync.Once
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < createWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				var err error
				for attempt := 0; attempt < 5; attempt++ {
					err = create(ctx, i)
					if err == nil || apierrors.IsAlreadyExists(err) {
						err = nil
						break
					}
					if ctx.Err() != nil {
						break
					}
					time.Sleep(time.Duration(100*(attempt+1)) * time.Millisecond)
				}
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("creating %s %d: %w", what, i, err); cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return CreateResult{Count: n, Seconds: time.Since(start).Seconds()}, firstErr
}

// CreateNodes creates the workload's nodes, status included (no kubelet will set it), each
// followed by its CSINode when the workload has csiNode.
func CreateNodes(ctx context.Context, cs kubernetes.Interface, w *Workload, t Templates) (CreateResult, error) {
	return parallelCreate(ctx, w.Nodes, "node", func(ctx context.Context, i int) error {
		n := w.NodeAt(t, i)
		_, err := cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if w.CSINode == nil || (err != nil && !apierrors.IsAlreadyExists(err)) {
			return err
		}
		_, err = cs.StorageV1().CSINodes().Create(ctx, w.CSINode.CSINodeAt(n.Name), metav1.CreateOptions{})
		return err
	})
}

// PodHook completes pod i of a namespace before it is created (its claims); nil: nothing to do.
type PodHook func(p *v1.Pod, i int)

// PodHook is the workload's: with volumes, pod i uses claim pvc-<i> of its namespace; with
// dra.podsPerClaim, pod i's claims by name are <claim>-<i/podsPerClaim>, and with
// dra.indexedResource its extended resource is <resource>-<i mod deviceClasses> (dra.go).
func (w *Workload) PodHook() PodHook {
	var hooks []PodHook
	switch {
	case w.Volumes != nil:
		hooks = append(hooks, func(p *v1.Pod, i int) { WithClaim(p, ClaimName(i)) })
	case w.DRA != nil && w.DRA.PodsPerClaim > 0:
		hooks = append(hooks, w.DRA.WithClaimRef)
	}
	if w.DRA != nil && w.DRA.IndexedResource != "" {
		hooks = append(hooks, w.DRA.WithIndexedResource)
	}
	switch len(hooks) {
	case 0:
		return nil
	case 1:
		return hooks[0]
	}
	return func(p *v1.Pod, i int) {
		for _, h := range hooks {
			h(p, i)
		}
	}
}

// CreatePods creates n pods from template in namespace ns, numbered from first (several
// templates can then share a namespace), each passed through hook if it is not nil.
func CreatePods(ctx context.Context, cs kubernetes.Interface, ns string, first, n int, template *v1.Pod, hook PodHook) (CreateResult, error) {
	return parallelCreate(ctx, n, "pod in "+ns, func(ctx context.Context, i int) error {
		p := PodAt(template, ns, first+i)
		if hook != nil {
			hook(p, first+i)
		}
		_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
}

// CreateNamespace creates ns with labels (already existing is fine).
func CreateNamespace(ctx context.Context, cs kubernetes.Interface, ns string, labels map[string]string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx,
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: labels}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", ns, err)
	}
	return nil
}

// CreatePriorityClasses creates the workload's PriorityClasses.
func CreatePriorityClasses(ctx context.Context, cs kubernetes.Interface, classes map[string]int32) error {
	for name, value := range classes {
		_, err := cs.SchedulingV1().PriorityClasses().Create(ctx,
			&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating priorityclass %s: %w", name, err)
		}
	}
	return nil
}

// Churn creates a pod from template in ns every interval until stop is closed, and returns how
// many it created. A failed creation ends it with the error: the phase it runs in then fails.
func Churn(ctx context.Context, cs kubernetes.Interface, ns string, template *v1.Pod, interval time.Duration,
	stop <-chan struct{}) (int, error) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-stop:
			return n, nil
		case <-ctx.Done():
			return n, ctx.Err()
		case <-tick.C:
		}
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, PodAt(template, ns, n), metav1.CreateOptions{}); err != nil {
			return n, fmt.Errorf("churn: creating pod %d: %w", n, err)
		}
	}
}
