package main

// The churn: pods created at a steady rate, each deleted a fixed time after its creation, in
// three kinds as a new user's batch cluster would have them: plain pods, pods with a zone spread
// and a preferred anti-affinity, and pods too big for any node (never bound, so they go through
// the scheduler's unschedulable path until they are deleted).

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

const (
	zoneLabel = "topology.kubernetes.io/zone"
	hostLabel = "kubernetes.io/hostname"
	kindLabel = "soak-kind"
	// groupLabel spreads the spread pods over a few groups, so the anti-affinity and spread
	// terms select a handful of live pods each, as a deployment's pods would.
	groupLabel = "soak-group"
	zones      = 3
	groups     = 5
)

// Kind is what a churned pod asks of the scheduler.
type Kind string

const (
	Plain  Kind = "plain"
	Spread Kind = "spread" // zone spread (DoNotSchedule) and a preferred anti-affinity
	TooBig Kind = "too-big"
)

// KindAt is the kind of the n-th pod: a tenth too big to fit, a third of the rest spread.
func KindAt(n int) Kind {
	switch {
	case n%10 == 9:
		return TooBig
	case n%3 == 0:
		return Spread
	default:
		return Plain
	}
}

// NodeAt is the i-th node: 4 CPUs, 16 GiB, 110 pods, Ready, in one of three zones.
func NodeAt(i int) *v1.Node {
	name := fmt.Sprintf("soak-node-%03d", i)
	res := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("16Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			hostLabel: name, zoneLabel: fmt.Sprintf("zone-%d", i%zones)}},
		Status: v1.NodeStatus{
			Capacity: res, Allocatable: res,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

// PodAt is the n-th pod of the churn named prefix-n in ns.
func PodAt(ns, prefix string, n int) *v1.Pod {
	kind := KindAt(n)
	group := fmt.Sprintf("g%d", n%groups)
	cpu, mem := "100m", "128Mi"
	if kind == TooBig {
		cpu, mem = "16", "64Gi"
	}
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%06d", prefix, n), Namespace: ns,
			Labels: map[string]string{"app": "soak", kindLabel: string(kind), groupLabel: group},
		},
		Spec: v1.PodSpec{Containers: []v1.Container{{
			Name: "c", Image: "registry.k8s.io/pause:3.10",
			Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: resource.MustParse(cpu), v1.ResourceMemory: resource.MustParse(mem)}},
		}}},
	}
	if kind == Spread {
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{kindLabel: string(Spread), groupLabel: group}}
		p.Spec.TopologySpreadConstraints = []v1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: zoneLabel, WhenUnsatisfiable: v1.DoNotSchedule, LabelSelector: sel}}
		p.Spec.Affinity = &v1.Affinity{PodAntiAffinity: &v1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []v1.WeightedPodAffinityTerm{{
				Weight: 100, PodAffinityTerm: v1.PodAffinityTerm{LabelSelector: sel, TopologyKey: hostLabel}}}}}
	}
	return p
}

// Counts is what the churn did so far.
type Counts struct {
	Created, CreatedFit, Deleted, Failed atomic.Int64
	// Bound pods by kind; PendingAtDelete: pods that fit but were still unbound when deleted.
	BoundFit, BoundTooBig, PendingAtDelete atomic.Int64
}

// Churner creates and deletes the pods of one scheduler's run.
type Churner struct {
	CS       kubernetes.Interface
	NS       string
	Prefix   string
	Rate     float64       // pods per second
	Lifetime time.Duration // from creation to deletion
	C        Counts

	wg sync.WaitGroup
}

// Watch counts bindings and pods deleted before their binding, until ctx ends.
func (c *Churner) Watch(ctx context.Context) error {
	f := informers.NewSharedInformerFactoryWithOptions(c.CS, 0, informers.WithNamespace(c.NS))
	inf := f.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(o, n any) {
			op, np := o.(*v1.Pod), n.(*v1.Pod)
			if op.Spec.NodeName != "" || np.Spec.NodeName == "" {
				return
			}
			if Kind(np.Labels[kindLabel]) == TooBig {
				c.C.BoundTooBig.Add(1)
			} else {
				c.C.BoundFit.Add(1)
			}
		},
		DeleteFunc: func(o any) {
			p, ok := o.(*v1.Pod)
			if !ok {
				if t, tok := o.(cache.DeletedFinalStateUnknown); tok {
					p, ok = t.Obj.(*v1.Pod)
				}
			}
			if ok && p.Spec.NodeName == "" && Kind(p.Labels[kindLabel]) != TooBig {
				c.C.PendingAtDelete.Add(1)
			}
		},
	})
	if err != nil {
		return err
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("pod informer did not sync")
	}
	return nil
}

// Run creates pods at the rate until ctx ends, each deleted Lifetime after it was created; it
// returns once the last one is deleted.
func (c *Churner) Run(ctx context.Context) {
	tick := time.NewTicker(time.Duration(float64(time.Second) / c.Rate))
	defer tick.Stop()
	sem := make(chan struct{}, 64) // creations in flight: the apiserver may be slow for a while
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			c.wg.Wait()
			return
		case <-tick.C:
		}
		select {
		case sem <- struct{}{}:
		default:
			c.C.Failed.Add(1) // the apiserver is too far behind; skip this one
			continue
		}
		c.wg.Add(1)
		go func(n int) {
			defer c.wg.Done()
			pod := PodAt(c.NS, c.Prefix, n)
			_, err := c.CS.CoreV1().Pods(c.NS).Create(context.Background(), pod, metav1.CreateOptions{})
			<-sem
			if err != nil {
				c.C.Failed.Add(1)
				return
			}
			c.C.Created.Add(1)
			if KindAt(n) != TooBig {
				c.C.CreatedFit.Add(1)
			}
			time.Sleep(c.Lifetime)
			c.delete(pod.Name)
		}(n)
	}
}

// delete removes a pod at once (no kubelet will finish a graceful deletion), retrying a few
// times.
func (c *Churner) delete(name string) {
	zero := int64(0)
	for attempt := 0; attempt < 5; attempt++ {
		err := c.CS.CoreV1().Pods(c.NS).Delete(context.Background(), name,
			metav1.DeleteOptions{GracePeriodSeconds: &zero})
		if err == nil || apierrors.IsNotFound(err) {
			c.C.Deleted.Add(1)
			return
		}
		time.Sleep(time.Duration(200*(attempt+1)) * time.Millisecond)
	}
	c.C.Failed.Add(1)
}
