package main

// Watching pods get bound: the first binding after the scheduler starts, bound counts per
// namespace, and the throughput samples of the measured namespace exactly as scheduler_perf's
// throughputCollector takes them (test/integration/scheduler_perf/util.go at v1.36.3):
// a sample per second once pods are being scheduled, the first one skipped, empty intervals
// merged into the next sample, which is then recorded once per merged interval.
//
// Thread-safety: the informer's handler goroutine and the sampler share state under mu.

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Sample is one throughput sample: when (seconds since the measured phase began) and pods/s.
type Sample struct {
	T    float64 `json:"t"`
	Rate float64 `json:"rate"`
}

// Collector watches every pod of the cluster.
type Collector struct {
	factory informers.SharedInformerFactory
	stop    chan struct{}

	mu         sync.Mutex
	bound      map[string]int // namespace -> pods seen becoming (or created) bound
	firstBound time.Time
	firstIn    map[string]time.Time
	lastBound  map[string]time.Time

	// Every binding seen, in the order seen, and pods seen moving from one node to another
	// (the apiserver refuses a second binding, so this stays 0 unless something is very wrong).
	binds   []BindEvent
	rebound int

	// The last value of markerAnnotation seen on any pod (Mark).
	marker string

	samples []float64 // in the order taken; sorted only for percentiles
	series  []Sample
	doneCh  chan struct{}
	loopWG  sync.WaitGroup
}

// StartCollector starts the pod informer and waits for its initial list.
func StartCollector(ctx context.Context, cs kubernetes.Interface) (*Collector, error) {
	c := &Collector{
		factory:   informers.NewSharedInformerFactory(cs, 0),
		stop:      make(chan struct{}),
		bound:     map[string]int{},
		firstIn:   map[string]time.Time{},
		lastBound: map[string]time.Time{},
	}
	inf := c.factory.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.onChange(nil, obj) },
		UpdateFunc: func(o, n any) { c.onChange(o, n) },
	})
	if err != nil {
		return nil, err
	}
	c.factory.Start(c.stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		close(c.stop)
		return nil, ctx.Err()
	}
	return c, nil
}

func (c *Collector) onChange(oldObj, newObj any) {
	n, ok := newObj.(*v1.Pod)
	if !ok {
		return
	}
	if v := n.Annotations[markerAnnotation]; v != "" {
		c.mu.Lock()
		c.marker = v
		c.mu.Unlock()
	}
	if n.Spec.NodeName == "" {
		return
	}
	if o, ok := oldObj.(*v1.Pod); ok && o.Spec.NodeName != "" {
		if o.Spec.NodeName != n.Spec.NodeName {
			c.mu.Lock()
			c.rebound++
			c.mu.Unlock()
		}
		return
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.binds = append(c.binds, BindEvent{Namespace: n.Namespace, Name: n.Name, Node: n.Spec.NodeName, At: now})
	c.bound[n.Namespace]++
	c.lastBound[n.Namespace] = now
	if _, ok := c.firstIn[n.Namespace]; !ok {
		c.firstIn[n.Namespace] = now
	}
	if c.firstBound.IsZero() {
		c.firstBound = now
	}
}

// markerAnnotation is what Mark writes on a pod to learn when the collector's watch is live.
const markerAnnotation = "stowage.dev/bench-marker"

// Mark annotates pod ns/name with a fresh value and waits until the collector's watch delivers
// it: every change made before Mark is then seen by the time the watch reaches it (after an
// apiserver restart the collector's own watch must first resume or list again).
func (c *Collector) Mark(ctx context.Context, cs kubernetes.Interface, ns, name string, timeout time.Duration) error {
	value := strconv.FormatInt(time.Now().UnixNano(), 10)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, markerAnnotation, value)
	if _, err := cs.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, []byte(patch),
		metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("marking pod %s/%s: %w", ns, name, err)
	}
	return waitFor(ctx, timeout, "the pod watch to deliver a marker", func() (bool, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.marker == value, nil
	})
}

// BindEvent is one pod seen bound: when the driver's watch delivered it.
type BindEvent struct {
	Namespace, Name, Node string
	At                    time.Time
}

// Binds is every binding seen so far of namespace ns, in the order seen.
func (c *Collector) Binds(ns string) []BindEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []BindEvent
	for _, b := range c.binds {
		if b.Namespace == ns {
			out = append(out, b)
		}
	}
	return out
}

// Rebound is how many pods were seen moving from one node to another.
func (c *Collector) Rebound() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rebound
}

// Bound is how many pods of the namespaces were seen bound.
func (c *Collector) Bound(nss ...string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, ns := range nss {
		total += c.bound[ns]
	}
	return total
}

// FirstBound is when the first pod was seen bound (zero: none yet).
func (c *Collector) FirstBound() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.firstBound
}

// FirstBoundIn is when the first pod of ns was seen bound (zero: none yet).
func (c *Collector) FirstBoundIn(ns string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.firstIn[ns]
}

// LastBound is when the last pod of the namespaces was seen bound.
func (c *Collector) LastBound(nss ...string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var last time.Time
	for _, ns := range nss {
		if t := c.lastBound[ns]; t.After(last) {
			last = t
		}
	}
	return last
}

// StartSampling begins throughput samples of ns; phaseStart is the measured phase's t=0.
func (c *Collector) StartSampling(ns string, phaseStart time.Time) {
	c.doneCh = make(chan struct{})
	c.loopWG.Add(1)
	go func() {
		defer c.loopWG.Done()
		c.sampleLoop(ns, phaseStart)
	}()
}

func (c *Collector) sampleLoop(ns string, phaseStart time.Time) {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	started := false
	skipped := 0
	last := 0
	var lastTime time.Time
	for {
		select {
		case <-c.doneCh:
			return
		case <-ticker.C:
		}
		now := time.Now()
		scheduled := c.Bound(ns)
		if scheduled == 0 {
			continue
		}
		if !started { // the first sample is an outlier: sampling and creation start apart
			started, last, lastTime = true, scheduled, now
			continue
		}
		delta := scheduled - last
		if delta == 0 {
			skipped++
			continue
		}
		rate := float64(delta) / now.Sub(lastTime).Seconds()
		c.mu.Lock()
		for i := 0; i <= skipped; i++ {
			c.samples = append(c.samples, rate)
		}
		c.series = append(c.series, Sample{T: now.Sub(phaseStart).Seconds(), Rate: rate})
		c.mu.Unlock()
		last, lastTime, skipped = scheduled, now, 0
	}
}

// StopSampling ends sampling and returns the samples (as recorded) and the time series.
func (c *Collector) StopSampling() ([]float64, []Sample) {
	if c.doneCh != nil {
		close(c.doneCh)
		c.loopWG.Wait()
		c.doneCh = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]float64(nil), c.samples...), append([]Sample(nil), c.series...)
}

// Close stops the informer.
func (c *Collector) Close() {
	c.StopSampling()
	close(c.stop)
	c.factory.Shutdown()
}
