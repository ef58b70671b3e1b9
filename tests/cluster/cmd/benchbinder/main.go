// Command benchbinder is the benchmark's ceiling: a "scheduler" with no scheduling logic that
// binds every pending pod of schedulerName default-scheduler to the next node round-robin.
// What it reaches is the most bindings per second this apiserver on this machine takes, at the
// client limits of the KubeSchedulerConfiguration it is given (clientConnection.kubeconfig,
// qps, burst), the same file the real schedulers get.
//
// Usage: benchbinder --config FILE [--workers N] [--events] [--nominate]
//
// It watches unbound pods and nodes with informers and binds from N workers (default 16,
// kube-scheduler's parallelism). It keeps no cache: an upper bound. By default it posts no
// events; with --events it posts the Scheduled Event kube-scheduler posts for every binding,
// through the same client-go events broadcaster and a client of its own (kube-scheduler's
// eventClient), so the benchmark can show what that Event costs the apiserver. A failed
// binding is retried with backoff unless the pod is already bound. With --nominate, a pod with
// claims gets the nominatedNodeName patch kube-scheduler 1.37 sends before a PreBind that has
// work, so that with both flags the binder makes every write a scheduler makes for such a pod.
// SIGTERM stops it.
//
// Pods with resource claims (dynamic resource allocation; automatic, no flag): a real
// scheduler can place such a pod only once its claims exist, and must write each claim's
// allocation and reservation before binding, so the binder does the same API work (dra.go).
// It watches ResourceSlices and ResourceClaims too, and for a pod with claims it waits until
// each exists (one made from a template is named in the pod's status.resourceClaimStatuses by
// kube-controller-manager's resourceclaim controller; the pod is queued again when its status
// or the claim changes), then for each claim not yet allocated takes free devices of one node
// (per node, the devices of its node-local ResourceSlice not allocated to any claim; nodes with
// devices taken round-robin; every device counts as matching, no selector is evaluated) and,
// as kube-scheduler's DynamicResources PreBind, adds the claim's finalizer with an update,
// then writes the allocation (the structured allocator's result for those devices, with the
// node selector of the node) and reservedFor the pod in one status update. A claim already
// allocated (shared by several pods) fixes the pod's node and gets the pod added to
// reservedFor. Then it binds. Beyond that free-device count it has no scheduling logic.
//
// A pod asking for extended resources that a DeviceClass backs (and no node advertises) gets
// the claim kube-scheduler makes for it at PreBind, with the same writes (extended.go): the
// binder watches DeviceClasses too. It takes nothing else from the configuration (a shape's
// scoring strategy, say, means nothing to it).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"sync"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/yaml"
)

// config is the part of KubeSchedulerConfiguration the binder uses.
type config struct {
	ClientConnection struct {
		Kubeconfig string  `json:"kubeconfig"`
		QPS        float32 `json:"qps"`
		Burst      int     `json:"burst"`
	} `json:"clientConnection"`
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchbinder:", err)
	os.Exit(1)
}

// nodeRing hands out node names round-robin.
type nodeRing struct {
	mu    sync.Mutex
	names []string
	next  int
}

func (r *nodeRing) set(names []string) {
	sort.Strings(names)
	r.mu.Lock()
	r.names = names
	r.mu.Unlock()
}

func (r *nodeRing) pick() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.names) == 0 {
		return "", false
	}
	n := r.names[r.next%len(r.names)]
	r.next++
	return n, true
}

func main() {
	cfgPath := flag.String("config", "", "KubeSchedulerConfiguration file (clientConnection is read)")
	workers := flag.Int("workers", 16, "concurrent bindings")
	withEvents := flag.Bool("events", false, "post kube-scheduler's Scheduled Event for every binding")
	nominate := flag.Bool("nominate", false, "patch nominatedNodeName before a pod's claim writes")
	flag.Parse()
	raw, err := os.ReadFile(*cfgPath)
	if err != nil {
		fail(err)
	}
	var cfg config
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		fail(fmt.Errorf("%s: %w", *cfgPath, err))
	}
	rc, err := clientcmd.BuildConfigFromFlags("", cfg.ClientConnection.Kubeconfig)
	if err != nil {
		fail(err)
	}
	rc.QPS, rc.Burst = cfg.ClientConnection.QPS, cfg.ClientConnection.Burst
	rc.ContentType = "application/vnd.kubernetes.protobuf"
	rc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	rc.UserAgent = "stowage-benchbinder"
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		fail(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	var recorder events.EventRecorder
	if *withEvents {
		ec, err := kubernetes.NewForConfig(rc)
		if err != nil {
			fail(err)
		}
		broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: ec.EventsV1()})
		broadcaster.StartRecordingToSink(ctx.Done())
		defer broadcaster.Shutdown()
		recorder = broadcaster.NewRecorder(scheme.Scheme, v1.DefaultSchedulerName)
	}

	factory := informers.NewSharedInformerFactory(cs, 0)
	nodes := factory.Core().V1().Nodes().Informer()
	ring := &nodeRing{}
	refresh := func(any) {
		var names []string
		for _, o := range nodes.GetStore().List() {
			names = append(names, o.(*v1.Node).Name)
		}
		ring.set(names)
	}
	_, _ = nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: refresh,
		DeleteFunc: refresh})

	pending := informers.NewSharedInformerFactoryWithOptions(cs, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = fields.AndSelectors(fields.OneTermEqualSelector("spec.nodeName", ""),
				fields.OneTermEqualSelector("spec.schedulerName", v1.DefaultSchedulerName)).String()
		}))
	pods := pending.Core().V1().Pods().Informer()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(p *v1.Pod) {
		if p.DeletionTimestamp == nil {
			queue.Add(p.Namespace + "/" + p.Name)
		}
	}
	_, _ = pods.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(o any) {
		if p, ok := o.(*v1.Pod); ok {
			enqueue(p)
		}
	}, UpdateFunc: func(_, o any) { // a pod with claims waits for the resourceclaim controller
		if p, ok := o.(*v1.Pod); ok && len(p.Spec.ResourceClaims) > 0 {
			enqueue(p)
		}
	}})
	slices := factory.Resource().V1().ResourceSlices().Informer()
	claims := factory.Resource().V1().ResourceClaims().Informer()
	classes := factory.Resource().V1().DeviceClasses().Informer()
	dra := newDRAState(cs, claims.GetStore(), classes.GetStore())
	dra.nominate = *nominate
	sliceHandler, _ := slices.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { dra.addSlice(o.(*resourceapi.ResourceSlice)) },
		UpdateFunc: func(_, o any) { dra.addSlice(o.(*resourceapi.ResourceSlice)) }})
	onClaim := func(o any) {
		c := o.(*resourceapi.ResourceClaim)
		dra.markAllocated(c)
		if ref := metav1.GetControllerOf(c); ref != nil && ref.Kind == "Pod" && c.Status.Allocation == nil {
			queue.Add(c.Namespace + "/" + ref.Name) // the pod it was made for
		}
	}
	claimHandler, _ := claims.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onClaim,
		UpdateFunc: func(_, o any) { onClaim(o) }})
	factory.Start(ctx.Done())
	pending.Start(ctx.Done())
	// The handlers too: an informer is synced when its store is, and a worker taking devices
	// before every listed claim's handler has marked them would take devices already held.
	cache.WaitForCacheSync(ctx.Done(), nodes.HasSynced, pods.HasSynced, slices.HasSynced, claims.HasSynced,
		classes.HasSynced, sliceHandler.HasSynced, claimHandler.HasSynced)
	refresh(nil)
	fmt.Fprintf(os.Stderr, "benchbinder: %d nodes (%d with devices), binding with %d workers at qps %v burst %d, events %v, nominations %v\n",
		len(nodes.GetStore().List()), len(dra.ring), *workers, rc.QPS, rc.Burst, *withEvents, *nominate)

	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				if o, ok, _ := pods.GetStore().GetByKey(key); ok {
					bind(ctx, cs, ring, dra, queue, recorder, key, o.(*v1.Pod))
				} else {
					queue.Forget(key) // bound (it left the pending informer) or deleted
				}
				queue.Done(key)
			}
		}()
	}
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
}

// bound remembers the pods bound here, which the pending informer may still hold a moment.
var bound sync.Map

func bind(ctx context.Context, cs kubernetes.Interface, ring *nodeRing, dra *draState,
	queue workqueue.TypedRateLimitingInterface[string], recorder events.EventRecorder, key string, p *v1.Pod) {
	if _, done := bound.Load(p.UID); done || p.Spec.NodeName != "" {
		queue.Forget(key)
		return
	}
	var node string
	ok := true
	if reqs, mappings := dra.extendedRequests(p); len(reqs) > 0 {
		var err error
		if node, err = dra.prepareExtended(ctx, p, reqs, mappings); err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "benchbinder: extended resources of %s: %v\n", key, err)
				queue.AddRateLimited(key)
			}
			return
		}
	} else if len(p.Spec.ResourceClaims) > 0 {
		var err error
		if node, ok, err = dra.prepare(ctx, p); err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(os.Stderr, "benchbinder: claims of %s: %v\n", key, err)
				queue.AddRateLimited(key)
			}
			return
		}
		if !ok { // a claim does not exist yet: its creation or the pod's status queues the pod
			queue.AddAfter(key, time.Second) // and, should an event be missed, this
			return
		}
	} else if node, ok = ring.pick(); !ok {
		queue.AddRateLimited(key) // no nodes yet
		return
	}
	b := &v1.Binding{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: p.UID},
		Target: v1.ObjectReference{Kind: "Node", Name: node}}
	err := cs.CoreV1().Pods(p.Namespace).Bind(ctx, b, metav1.CreateOptions{})
	switch {
	case err == nil:
		bound.Store(p.UID, true)
		queue.Forget(key)
		if recorder != nil { // kube-scheduler's words, after its binding succeeded
			recorder.Eventf(p, nil, v1.EventTypeNormal, "Scheduled", "Binding",
				"Successfully assigned %v/%v to %v", p.Namespace, p.Name, node)
		}
	case apierrors.IsConflict(err), apierrors.IsNotFound(err):
		queue.Forget(key)
	case ctx.Err() != nil:
	default:
		fmt.Fprintf(os.Stderr, "benchbinder: binding %s/%s to %s: %v\n", p.Namespace, p.Name, node, err)
		queue.AddRateLimited(key)
	}
}
