package main

// Running one state under one scheduler on the shared apiserver, in one mode:
//
//	serial:  the scheduler runs; pods are created one at a time, each waited for until it is
//	         bound or marked unschedulable. An unschedulable pod is deleted at once, so it is
//	         never retried later. When a pin (upstream's outcomes) is given, a pod the scheduler
//	         placed elsewhere is moved to upstream's node (deleted and created bound), so every
//	         pod of both runs is scheduled against the same cluster whatever came before.
//	batch:   the scheduler runs; all pods are created in order, then waited for together.
//
// Nodes and pods are created only once the scheduler has decided a sentinel pod, so none comes
// from its initial list: that list is replayed in Go map order (client-go's WatchList fills a
// temporary store and replaces from its List), so upstream itself takes such pods in a random
// order, and keeps the image size of a random node.
// Created one by one while it runs, pods are taken in creation order (one priority, FIFO), so
// in batch mode the states stay equal while the placements agree; compare.go stops comparing
// at the first placement that differs.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// Modes in the order they run.
const (
	ModeSerial = "serial"
	ModeBatch  = "batch"
)

// placeholder is the only node while a scheduler starts (see Run).
var placeholder = v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "placeholder"},
	Spec: v1.NodeSpec{Unschedulable: true}}

// sentinel is a pod that fits no node: once it is marked unschedulable the scheduler has
// synced and runs its loop. It is deleted before the state's pods come, leaving no trace.
var sentinel = v1.Pod{
	ObjectMeta: metav1.ObjectMeta{Name: "sentinel", Namespace: namespace},
	Spec: v1.PodSpec{NodeSelector: map[string]string{"difftest.example.com/none": "none"},
		Containers: []v1.Container{{Name: "c", Image: "registry.example.com/tiny:1"}}},
}

// Outcome is what a scheduler made of one pod.
type Outcome struct {
	Namespace string `json:"namespace,omitempty"` // difftest when empty
	Pod       string `json:"pod"`
	Node      string `json:"node,omitempty"`
	Reason    string `json:"reason,omitempty"`  // PodScheduled reason when not bound
	Message   string `json:"message,omitempty"` // PodScheduled message when not bound
	// ObservedGeneration of the PodScheduled condition when not bound (the scheduler sets it).
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Attempts is how many times the scheduler's log says it tried the pod.
	Attempts int `json:"attempts,omitempty"`
	// Nominated is the first status.nominatedNodeName the pod had; Victims the pods deleted or
	// left terminating with the DisruptionTarget condition while it was decided, but those an
	// earlier pod preempted (serial mode, victims.go).
	Nominated string   `json:"nominated,omitempty"`
	Victims   []string `json:"victims,omitempty"`
	// Claims: what became of each of the pod's claims (storage profile, volumes.go).
	Claims []ClaimOutcome `json:"claims,omitempty"`
	// pod is the pod as the apiserver admitted it (its priority) and onNodes the pods bound to
	// each node when it came: what the preemption model reads (preemption profile).
	pod     *v1.Pod
	onNodes map[string][]*v1.Pod
	// boundBefore: the pods that ended bound whose last attempt came before this pod's last one,
	// sorted: the pods its deciding cycle saw placed (batch mode).
	boundBefore []string
	// retriedAfterBindingFailure: the pod's second attempt came after a binding cycle failed in
	// PreBind (batch mode; sched.go).
	retriedAfterBindingFailure bool
	// claimsPinned: serial mode moved the pod to upstream's node and gave its ResourceClaims
	// upstream's devices (dra.go), so later pods see the same devices in use.
	claimsPinned bool
	// extended: the pod asks for example.com/gpu, which the DRA flow's class provides where a
	// node lacks it (dra profile): its Filter and scores on such nodes read the devices claims
	// hold, as a claim's allocation does, so claims that ended differently before it leave it
	// not compared (compare.go).
	extended bool
}

// Key is "namespace/name", as schedulers log pods.
func (o Outcome) Key() string {
	if o.Namespace == "" {
		return namespace + "/" + o.Pod
	}
	return o.Namespace + "/" + o.Pod
}

func (o Outcome) String() string {
	var pre, claims string
	if len(o.Victims) > 0 {
		pre = fmt.Sprintf("nominated to %q evicting %v, ", o.Nominated, o.Victims)
	} else if o.Nominated != "" {
		pre = fmt.Sprintf("nominated to %q, ", o.Nominated)
	}
	if len(o.Claims) > 0 {
		parts := make([]string, len(o.Claims))
		for i, c := range o.Claims {
			parts[i] = c.String()
		}
		claims = "; claims: " + strings.Join(parts, "; ")
	}
	if o.Node != "" {
		return pre + "bound to " + o.Node + claims
	}
	return pre + fmt.Sprintf("%s %q (observedGeneration %d)", o.Reason, o.Message, o.ObservedGeneration) + claims
}

// Runner drives one apiserver.
type Runner struct {
	cs         kubernetes.Interface
	kubeconfig string
	dir        string        // scheduler logs and configuration
	quiet      time.Duration // batch modes: how long nothing may change before outcomes are read
	podTimeout time.Duration
	pods       corelisters.PodLister
	changed    chan struct{}
	// The objects of the state last applied (objects.go): its key and the UIDs of its owners.
	applied string
	uids    map[string]types.UID
	// The storage profile: the state's volumes (volumes.go), and whether outcomes read claims.
	volumes volumeInfo
	storage bool
	// The dra profile: whether outcomes read the pods' ResourceClaims (dra.go).
	dra        bool
	unreleased string // the last claim found allocated and reserved by nobody (dra.go)
	// What the informers saw of preemption since the state's pods began to come (victims.go).
	mu        sync.Mutex
	victims   []victim           // pods deleted or terminating with the DisruptionTarget condition
	evicted   map[types.UID]bool // the same, as a set
	nominated map[string]string  // pod -> the first status.nominatedNodeName it had
	// victim -> the pod its Preempted event names as the related object (the preemptor)
	preemptors map[types.UID]types.UID
	handled    uint64 // the newest pod resourceVersion the handlers have seen (victims.go)
}

// NewRunner starts a pod informer (every namespace: the cluster holds only the test's).
func NewRunner(ctx context.Context, cs kubernetes.Interface, kubeconfig, dir string, quiet time.Duration) (*Runner, error) {
	x := &Runner{cs: cs, kubeconfig: kubeconfig, dir: dir, quiet: quiet, podTimeout: 30 * time.Second,
		changed: make(chan struct{}, 1)}
	f := informers.NewSharedInformerFactory(cs, 0)
	inf := f.Core().V1().Pods()
	x.pods = inf.Lister()
	x.resetEvictions()
	notify := func(obj any, deleted bool) {
		x.observe(obj, deleted)
		select {
		case x.changed <- struct{}{}:
		default:
		}
	}
	events, err := x.watchPreemptedEvents(f)
	if err != nil {
		return nil, err
	}
	_, err = inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { notify(obj, false) },
		UpdateFunc: func(_, obj any) { notify(obj, false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			notify(obj, true)
		}})
	if err != nil {
		return nil, err
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.Informer().HasSynced, events.HasSynced) {
		return nil, fmt.Errorf("pod and event informers did not sync")
	}
	_, err = cs.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}},
		metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	return x, writeSchedulerConfig(filepath.Join(dir, "scheduler-config.yaml"), kubeconfig, nil)
}

// schedulerConfig is the path of the configuration file for st: the common one, written once,
// or, for a state that names its scoring (the dra profile), one of its own.
func (x *Runner) schedulerConfig(st *State) (string, error) {
	if st.Scoring == nil {
		return filepath.Join(x.dir, "scheduler-config.yaml"), nil
	}
	path := filepath.Join(x.dir, fmt.Sprintf("scheduler-config-%d.yaml", st.Seed))
	return path, writeSchedulerConfig(path, x.kubeconfig, st.Scoring)
}

// boundPods returns the pods bound to each node, as the informer has them.
func (x *Runner) boundPods() map[string][]*v1.Pod {
	l, _ := x.pods.List(labels.Everything())
	out := map[string][]*v1.Pod{}
	for _, p := range l {
		if p.Spec.NodeName != "" {
			out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
		}
	}
	return out
}

// setStartTime gives a bound pod the start time a kubelet would report; upstream orders victims
// by it and would otherwise take the time of its cycle, different in every run. It returns once
// the informer has it, so the next pod's record of the nodes (serial) holds it.
func (x *Runner) setStartTime(ctx context.Context, ns, name string, t time.Time) error {
	patch := fmt.Sprintf(`{"status":{"startTime":%q}}`, t.UTC().Format(time.RFC3339))
	_, err := x.cs.CoreV1().Pods(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	if err != nil {
		return err
	}
	if !x.waitUntil(ctx, x.podTimeout, func() bool {
		p, err := x.pods.Pods(ns).Get(name)
		return err == nil && p.Status.StartTime != nil
	}) {
		return fmt.Errorf("pod %s/%s: start time not seen within %s", ns, name, x.podTimeout)
	}
	return nil
}

// waitUntil re-evaluates cond on every pod event (and every 250 ms) until it holds.
func (x *Runner) waitUntil(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	deadline := time.After(timeout)
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-deadline:
			return false
		case <-x.changed:
		case <-time.After(250 * time.Millisecond):
		}
	}
	return true
}

// outcome is the pod's decision, if it has one.
func (x *Runner) outcome(pod *v1.Pod) (Outcome, bool) {
	o := Outcome{Namespace: pod.Namespace, Pod: pod.Name}
	p, err := x.pods.Pods(pod.Namespace).Get(pod.Name)
	if err != nil {
		return o, false
	}
	x.mu.Lock()
	o.Nominated = x.nominated[o.Key()]
	x.mu.Unlock()
	if p.Spec.NodeName != "" {
		o.Node = p.Spec.NodeName
		return o, true
	}
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse {
			o.Reason, o.Message, o.ObservedGeneration = c.Reason, c.Message, c.ObservedGeneration
			return o, true
		}
	}
	return o, false
}

func (x *Runner) gone(pod *v1.Pod) bool {
	_, err := x.pods.Pods(pod.Namespace).Get(pod.Name)
	return apierrors.IsNotFound(err)
}

func (x *Runner) deletePod(ctx context.Context, pod *v1.Pod) error {
	err := x.cs.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if !x.waitUntil(ctx, x.podTimeout, func() bool { return x.gone(pod) }) {
		return fmt.Errorf("pod %s not deleted within %s", pod.Name, x.podTimeout)
	}
	return nil
}

// createPod creates pod, bound to node when node is set (no scheduler takes it then), with the
// UIDs of the owners it references.
func (x *Runner) createPod(ctx context.Context, pod *v1.Pod, node string) error {
	p := pod.DeepCopy()
	p.Spec.NodeName = node
	for i := range p.OwnerReferences {
		p.OwnerReferences[i].UID = x.uids[ownerKey(p.Namespace, p.OwnerReferences[i].Kind, p.OwnerReferences[i].Name)]
	}
	if _, err := x.cs.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}

// clearPods deletes every pod of the test's namespaces and waits until the informer saw them go.
func (x *Runner) clearPods(ctx context.Context) error {
	for _, ns := range append([]string{namespace}, extraNamespaces...) {
		err := x.cs.CoreV1().Pods(ns).DeleteCollection(ctx,
			metav1.DeleteOptions{GracePeriodSeconds: new(int64)}, metav1.ListOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	if !x.waitUntil(ctx, time.Minute, func() bool {
		l, _ := x.pods.List(labels.Everything())
		return len(l) == 0
	}) {
		return fmt.Errorf("pods not deleted within a minute")
	}
	return nil
}

// deleteNodes deletes every node of the cluster and waits until none is listed.
func (x *Runner) deleteNodes(ctx context.Context) error {
	if err := x.cs.CoreV1().Nodes().DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		return err
	}
	for i := 0; ; i++ {
		l, err := x.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(l.Items) == 0 {
			return nil
		}
		if i == 100 {
			return fmt.Errorf("%d nodes still present after deletion", len(l.Items))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// barrier returns once the scheduler decided the sentinel pod against n nodes: its message
// counts the nodes in its cache (with none, any message but one counting the placeholder). The sentinel is tried again until then, since a pod that fits
// no node is not retried when nodes come.
func (x *Runner) barrier(ctx context.Context, n int, alive func() bool) error {
	want := fmt.Sprintf("0/%d nodes are available", n)
	for attempt := 0; attempt < 100; attempt++ {
		if err := x.createPod(ctx, &sentinel, ""); err != nil {
			return err
		}
		var o Outcome
		var ok bool
		if !x.waitUntil(ctx, time.Minute, func() bool { o, ok = x.outcome(&sentinel); return ok || !alive() }) || !ok {
			return fmt.Errorf("no decision on a sentinel pod within a minute")
		}
		if err := x.deletePod(ctx, &sentinel); err != nil {
			return err
		}
		if strings.HasPrefix(o.Message, want) || (n == 0 && !strings.HasPrefix(o.Message, "0/1 nodes")) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the scheduler never saw all %d nodes", n)
}

// touchNodes binds a pod to every node and deletes it again. A scheduling cycle copies into its
// snapshot only the nodes changed since the last one, and upstream counts an image's nodes
// (ImageLocality's spread) when it copies a node: a sentinel tried while the nodes were still
// coming left those it copied with counts of that moment (upstream against itself then placed
// a pod differently). Touched, every node is copied again by the first pod's cycle.
func (x *Runner) touchNodes(ctx context.Context, nodes []v1.Node) error {
	touch := make([]v1.Pod, len(nodes))
	for i := range nodes {
		touch[i] = v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "touch-" + nodes[i].Name, Namespace: namespace},
			Spec: v1.PodSpec{TerminationGracePeriodSeconds: new(int64),
				Containers: []v1.Container{{Name: "c", Image: "registry.example.com/tiny:1"}}}}
		if err := x.createPod(ctx, &touch[i], nodes[i].Name); err != nil {
			return err
		}
	}
	for i := range touch {
		if err := x.deletePod(ctx, &touch[i]); err != nil {
			return err
		}
	}
	return nil
}

// Run schedules the state's pods with s in mode and returns each pod's outcome in pod order and
// the path of the scheduler's log. pin (serial mode only) maps a pod's name to upstream's outcome:
// its node ("" for unschedulable) and, with preemption, its victims (repin.go).
//
// The nodes are created one by one once the scheduler runs, so it adds them in creation order
// (an initial list would come in Go map order, see above): where nodes report one image at
// different sizes, upstream keeps the size of the first node that reported it. A placeholder
// node stands in until then, because a pod tried against no node at all is retried at once by
// stowage, in a loop.
func (x *Runner) Run(ctx context.Context, s Scheduler, tag, mode string, st State, pin map[string]Outcome) ([]Outcome, string, error) {
	logPath := filepath.Join(x.dir, fmt.Sprintf("%s-%s-%s.log", tag, mode, s.Name))
	cfg, err := x.schedulerConfig(&st)
	if err != nil {
		return nil, logPath, err
	}
	if err := x.clearPods(ctx); err != nil {
		return nil, logPath, err
	}
	if err := x.deleteNodes(ctx); err != nil {
		return nil, logPath, err
	}
	if err := x.applyObjects(ctx, &st); err != nil {
		return nil, logPath, err
	}
	x.storage = st.Profile == ProfileStorage
	if x.storage {
		if err := x.resetVolumes(ctx, &st); err != nil {
			return nil, logPath, err
		}
	}
	x.dra = st.Profile == ProfileDRA
	if x.dra {
		if err := x.resetClaims(ctx, &st); err != nil {
			return nil, logPath, err
		}
	}
	if _, err := x.cs.CoreV1().Nodes().Create(ctx, &placeholder, metav1.CreateOptions{}); err != nil {
		return nil, logPath, err
	}
	klog.InfoS("Starting the scheduler", "scheduler", s.Name, "mode", mode)
	proc, err := startScheduler(s, cfg, logPath)
	if err != nil {
		return nil, logPath, err
	}
	defer proc.stop()
	alive := func() bool { return proc.alive() }
	if err := x.barrier(ctx, 1, alive); err != nil {
		return nil, logPath, fmt.Errorf("%s: %w; see %s", s.Name, err, logPath)
	}
	if err := x.cs.CoreV1().Nodes().Delete(ctx, placeholder.Name, metav1.DeleteOptions{}); err != nil {
		return nil, logPath, err
	}
	for i := range st.Nodes {
		if _, err := x.cs.CoreV1().Nodes().Create(ctx, &st.Nodes[i], metav1.CreateOptions{}); err != nil {
			return nil, logPath, fmt.Errorf("creating node %s: %w", st.Nodes[i].Name, err)
		}
	}
	if err := x.barrier(ctx, len(st.Nodes), alive); err != nil {
		return nil, logPath, fmt.Errorf("%s: %w; see %s", s.Name, err, logPath)
	}
	if err := x.touchNodes(ctx, st.Nodes); err != nil {
		return nil, logPath, err
	}
	if x.dra {
		if err := x.waitFlowSlices(ctx, st.Nodes); err != nil {
			return nil, logPath, err
		}
	}
	// Existing pods come bound and before the pods, on the same informer, so the scheduler's
	// cache holds them when the first pod is tried.
	for i := range st.Existing {
		e := &st.Existing[i]
		if err := x.createPod(ctx, e, e.Spec.NodeName); err != nil {
			return nil, logPath, err
		}
		if e.Status.StartTime != nil {
			if err := x.setStartTime(ctx, e.Namespace, e.Name, e.Status.StartTime.Time); err != nil {
				return nil, logPath, err
			}
		}
	}
	if x.dra && len(st.Existing) > 0 {
		// The claims' new status reaches the scheduler before the sentinel's cycle ends.
		if err := x.holdClaims(ctx, &st); err != nil {
			return nil, logPath, err
		}
		if err := x.barrier(ctx, len(st.Nodes), alive); err != nil {
			return nil, logPath, fmt.Errorf("%s: %w; see %s", s.Name, err, logPath)
		}
	}
	x.resetEvictions()
	var out []Outcome
	if mode == ModeSerial {
		out, err = x.serial(ctx, st.Pods, pin, alive, st.Profile == ProfilePreemption)
	} else {
		for i := range st.Pods {
			if err := x.createPod(ctx, &st.Pods[i], ""); err != nil {
				return nil, logPath, err
			}
		}
		out, err = x.together(ctx, st.Pods, alive)
	}
	if err == nil && !alive() {
		err = fmt.Errorf("%s exited during the run; see %s", s.Name, logPath)
	}
	proc.stop()
	klog.InfoS("Scheduler stopped", "scheduler", s.Name, "mode", mode)
	if err != nil {
		return nil, logPath, err
	}
	return out, logPath, x.clearPods(ctx)
}

// serial runs the pods one at a time. With preemption, a pod's first decision is often "not
// schedulable" while it preempts: its outcome is read once it is bound or nothing changed for
// the quiet period, with the victims evicted meanwhile, and a pod left nominated (its victims
// terminating) stays, holding the room, as upstream's does. Every pod that ends bound gets a
// start time after the existing pods', as a kubelet would give it.
func (x *Runner) serial(ctx context.Context, pods []v1.Pod, pin map[string]Outcome, alive func() bool,
	preemption bool) ([]Outcome, error) {
	var out []Outcome
	mark := 0
	decided := map[types.UID]bool{} // the UIDs of the pods decided so far (preemption)
	// Set once a preemption differed from one upstream left nominated: no re-pinning can make the
	// clusters equal again, the later pods are not compared (compare.go), and upstream's later
	// victims may be pods this run already evicted.
	unpinnable := false
	for i := range pods {
		name := pods[i].Name
		var onNodes map[string][]*v1.Pod
		if preemption {
			onNodes = x.boundPods()
		}
		if err := x.createPod(ctx, &pods[i], ""); err != nil {
			return nil, err
		}
		var o Outcome
		var ok bool
		x.waitUntil(ctx, x.podTimeout, func() bool { o, ok = x.outcome(&pods[i]); return ok || !alive() })
		if !ok {
			o.Reason, o.Message = "Timeout", fmt.Sprintf("no decision within %s", x.podTimeout)
		}
		if preemption && ok {
			o = x.settle(ctx, &pods[i], alive)
			o.onNodes = onNodes
			var self types.UID
			if p, err := x.pods.Pods(pods[i].Namespace).Get(name); err == nil {
				o.pod, self = p, p.UID
				x.waitUntil(ctx, eventWait, func() bool { return x.handledUpTo(p.ResourceVersion) })
			}
			o.Victims, mark = x.attribute(ctx, decided, self, mark)
			decided[self] = true
		}
		if x.storage {
			var err error
			if o.Claims, err = x.claimOutcomes(ctx, &pods[i]); err != nil {
				return nil, err
			}
		}
		if x.dra {
			var err error
			if o.Claims, err = x.draClaimOutcomes(ctx, &pods[i]); err != nil {
				return nil, err
			}
			o.extended = requestsGPU(&pods[i])
		}
		out = append(out, o)
		up, pinned := pin[name]
		want := o.Node
		if pinned {
			want = up.Node
		}
		if preemption && pinned && !repinnable(up) &&
			(o.Node != up.Node || o.Nominated != up.Nominated || !slices.Equal(o.Victims, up.Victims)) {
			unpinnable = true
		}
		if preemption && pinned && !unpinnable && repinnable(up) && !slices.Equal(o.Victims, up.Victims) {
			if err := x.repinVictims(ctx, o.Victims, up.Victims, onNodes); err != nil {
				return nil, err
			}
			mark = x.victimMark() // upstream's victims evicted here belong to no later pod
		}
		started := startBase.Add(time.Duration(10000+i) * time.Minute)
		if o.Node != "" && o.Node == want {
			if preemption {
				if err := x.setStartTime(ctx, pods[i].Namespace, name, started); err != nil {
					return nil, err
				}
			}
			continue
		}
		if preemption && o.Node == "" && o.Nominated != "" && want == "" {
			continue
		}
		// Unschedulable pods leave (upstream never sees them again); misplaced ones move.
		if err := x.deletePod(ctx, &pods[i]); err != nil {
			return nil, err
		}
		if x.dra && want == "" {
			if err := x.releaseClaims(ctx, name); err != nil {
				return nil, err
			}
		}
		if want != "" {
			if err := x.createPod(ctx, &pods[i], want); err != nil {
				return nil, err
			}
			if x.dra {
				pinned, err := x.pinClaims(ctx, &pods[i], want, up.Claims)
				if err != nil {
					return nil, err
				}
				out[len(out)-1].claimsPinned = pinned
			}
			if preemption {
				if err := x.setStartTime(ctx, pods[i].Namespace, name, started); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// settle waits until the pod is bound or no pod changed for the quiet period, and returns its
// outcome then.
func (x *Runner) settle(ctx context.Context, pod *v1.Pod, alive func() bool) Outcome {
	deadline := time.After(x.podTimeout)
	for alive() {
		if o, ok := x.outcome(pod); ok && o.Node != "" {
			return o
		}
		select {
		case <-x.changed:
			continue
		case <-time.After(x.quiet):
		case <-deadline:
		case <-ctx.Done():
		}
		break
	}
	o, _ := x.outcome(pod)
	return o
}

// together waits until every pod has a decision and nothing changed for the quiet period (a
// pod retried at once shows its later message), then reads the outcomes.
func (x *Runner) together(ctx context.Context, pods []v1.Pod, alive func() bool) ([]Outcome, error) {
	decided := func() bool {
		for i := range pods {
			if _, ok := x.outcome(&pods[i]); !ok {
				return false
			}
		}
		return true
	}
	x.waitUntil(ctx, time.Duration(len(pods))*x.podTimeout/4+x.podTimeout, func() bool { return decided() || !alive() })
	for quiet := false; !quiet && alive(); {
		select {
		case <-x.changed:
		case <-time.After(x.quiet):
			quiet = true
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var out []Outcome
	for i := range pods {
		o, ok := x.outcome(&pods[i])
		if !ok {
			o.Reason, o.Message = "Timeout", "no decision by the end of the batch"
		}
		if x.storage {
			var err error
			if o.Claims, err = x.claimOutcomes(ctx, &pods[i]); err != nil {
				return nil, err
			}
		}
		if x.dra {
			var err error
			if o.Claims, err = x.draClaimOutcomes(ctx, &pods[i]); err != nil {
				return nil, err
			}
			o.extended = requestsGPU(&pods[i])
		}
		out = append(out, o)
	}
	return out, nil
}
