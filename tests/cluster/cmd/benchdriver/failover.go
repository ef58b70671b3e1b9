package main

// The failover mode (issue 27, "fail-over measured"): two instances of the scheduler under
// test run with leader election on the same lease, both warm, and the leader is killed with
// SIGKILL while it binds a stream of pods; the standby takes the lease and binds the rest.
//
//  1. set up the cluster as every run does (nodes, init pods);
//  2. start instance a alone and wait until it holds the lease kube-system/kube-scheduler;
//     start instance b (its own default identity, hostname_uuid), which waits as the standby;
//     wait for the init pods (a binds them) and for b's /readyz (caches synced: warm);
//  3. create the measured pods as a stream; once failover.killAfterPods of them are bound,
//     SIGKILL a (no lease release, as a crash);
//  4. wait until every measured pod is bound or no binding came for failover.settleSeconds
//     (after the lease could have moved); the rest are lost;
//  5. attribute each binding to an identity by the lease's holder timeline (a binding seen at
//     t belongs to the holder whose acquireTime is the last one before t) and compute the gap
//     (FailoverGap); count double bindings: pods seen moving node, successful bindings beyond
//     the pods bound, and the apiserver's 409 Conflicts on pods/binding; read both logs.
//
// Binding times are when the driver's pod watch delivered the binding (one clock for both
// instances, a few ms after the apiserver committed it). The schedulers' own log lines
// ("Successfully bound pod to node", -v=2, klog timestamps in microseconds) give a second gap.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

const (
	ModeFailover = "failover"
	// The lock both instances contend for: upstream's default resourceNamespace/resourceName.
	leaseNamespace = "kube-system"
	leaseName      = "kube-scheduler"
	// client-go's leaderelection JitterFactor: a standby retries every retryPeriod * [1, 2.2).
	leaderElectionJitter = 1.2
)

// FailoverSpec tunes the failover mode; zero fields take the defaults of FailoverSettings.
type FailoverSpec struct {
	// KillAfterPods: measured pods bound before the leader is killed (default measurePods/4).
	KillAfterPods int `json:"killAfterPods,omitempty"`
	// Lease settings of both instances (default upstream's: 15, 10 and 2 s).
	LeaseDurationSeconds float64 `json:"leaseDurationSeconds,omitempty"`
	RenewDeadlineSeconds float64 `json:"renewDeadlineSeconds,omitempty"`
	RetryPeriodSeconds   float64 `json:"retryPeriodSeconds,omitempty"`
	// SettleSeconds: once the lease could have moved, this long without a binding ends the
	// phase and the unbound measured pods count as lost (default 60).
	SettleSeconds float64 `json:"settleSeconds,omitempty"`
}

// FailoverSettings is the workload's failover spec with the defaults filled in.
func (w *Workload) FailoverSettings() FailoverSpec {
	var f FailoverSpec
	if w.Failover != nil {
		f = *w.Failover
	}
	if f.KillAfterPods == 0 {
		f.KillAfterPods = max(w.MeasurePods/4, 1)
	}
	if f.LeaseDurationSeconds == 0 {
		f.LeaseDurationSeconds = 15
	}
	if f.RenewDeadlineSeconds == 0 {
		f.RenewDeadlineSeconds = 10
	}
	if f.RetryPeriodSeconds == 0 {
		f.RetryPeriodSeconds = 2
	}
	if f.SettleSeconds == 0 {
		f.SettleSeconds = 60
	}
	return f
}

// checkFailover validates the failover fields as client-go's NewLeaderElector checks the lease
// settings.
func (w *Workload) checkFailover() error {
	if w.Mode != ModeFailover {
		if w.Failover != nil {
			return fmt.Errorf("failover needs mode %s", ModeFailover)
		}
		return nil
	}
	f := w.FailoverSettings()
	switch {
	case w.ChurnTemplate != nil:
		return fmt.Errorf("the failover mode takes no churn")
	case f.KillAfterPods < 1 || f.KillAfterPods >= w.MeasurePods:
		return fmt.Errorf("failover.killAfterPods must be at least 1 and below measurePods")
	case f.LeaseDurationSeconds < 0 || f.RenewDeadlineSeconds < 0 || f.RetryPeriodSeconds < 0 || f.SettleSeconds < 0:
		return fmt.Errorf("failover: durations must not be negative")
	case f.LeaseDurationSeconds <= f.RenewDeadlineSeconds:
		return fmt.Errorf("failover: leaseDurationSeconds must be greater than renewDeadlineSeconds")
	case f.RenewDeadlineSeconds <= leaderElectionJitter*f.RetryPeriodSeconds:
		return fmt.Errorf("failover: renewDeadlineSeconds must be greater than 1.2 x retryPeriodSeconds")
	}
	return nil
}

// goDuration writes seconds as a Go duration ("15s"), as metav1.Duration reads it.
func goDuration(seconds float64) string {
	return time.Duration(seconds * float64(time.Second)).String()
}

// FailoverResult is what a failover run records (RunResult.Failover).
type FailoverResult struct {
	Lease                string  `json:"lease"`
	LeaseDurationSeconds float64 `json:"leaseDurationSeconds"`
	RenewDeadlineSeconds float64 `json:"renewDeadlineSeconds"`
	RetryPeriodSeconds   float64 `json:"retryPeriodSeconds"`
	KillAfterPods        int     `json:"killAfterPods"`

	OldLeader    string `json:"oldLeader"` // lease holder identities
	NewLeader    string `json:"newLeader,omitempty"`
	OldLeaderPid int    `json:"oldLeaderPid"`
	NewLeaderPid int    `json:"newLeaderPid"`
	// From the standby's start to its /readyz answering 200 (its caches synced).
	StandbyReadySeconds float64 `json:"standbyReadySeconds"`

	KilledAt        string `json:"killedAt"`
	BoundBeforeKill int    `json:"measuredBoundBeforeKill"`
	// The old leader's last lease renewal the driver saw (it polls the Lease every 100 ms),
	// relative to the kill (negative: before it).
	LastRenewToKillSeconds float64 `json:"lastRenewToKillSeconds"`

	TookOver bool `json:"tookOver"` // the lease moved and the new holder bound a pod
	// The new holder's acquireTime (its own clock, written into the Lease) after the kill.
	KillToAcquireSeconds float64 `json:"killToAcquireSeconds,omitempty"`
	FailoverGap

	// Measured pods bound by each instance (attributed by the lease's holder timeline).
	OldLeaderBindings int `json:"oldLeaderBindings"`
	NewLeaderBindings int `json:"newLeaderBindings"`
	// Measured pods never bound by the end of the phase (every one is schedulable).
	Lost int `json:"lost"`
	// Double binding, three ways: pods the watch saw move from one node to another; bindings
	// the apiserver accepted (201 on pods/binding, whole run) beyond the pods bound; and the
	// binding attempts it refused with 409 Conflict (pod already assigned). The killed leader's
	// requests in flight show as 504 (its connection went away): some of them were committed
	// nonetheless, so 201 may fall short of the pods bound, never exceed it.
	Rebound          int     `json:"rebound"`
	DoubleBound      int     `json:"doubleBound"`
	Bindings201      float64 `json:"apiserverBindings201"`
	PodsBound        int     `json:"podsBound"`
	BindingConflicts float64 `json:"apiserverBindingConflicts409"`
	// Every code of pods/binding in apiserver_request_total, whole run.
	BindingCodes      map[string]float64 `json:"apiserverBindingCodes,omitempty"`
	BindingStatusNote string             `json:"apiserverMetricsNote,omitempty"`

	// From the schedulers' logs: measured pods each logged as bound, lines saying a binding
	// was refused as already assigned, and the gap between a's last and b's first bound line.
	LogBoundOld     int     `json:"logBoundOld"`
	LogBoundNew     int     `json:"logBoundNew"`
	LogConflicts    int     `json:"logConflicts"`
	LogGapSeconds   float64 `json:"logGapSeconds,omitempty"`
	LogKillToFirst  float64 `json:"logKillToFirstSeconds,omitempty"`
	LogNote         string  `json:"logNote,omitempty"`
	MeasuredSeconds float64 `json:"measuredSeconds"` // creation start to the end of the phase
}

// FailoverGap is the hole in the bindings around the kill.
type FailoverGap struct {
	LastOld  time.Time `json:"lastOldBinding"`
	FirstNew time.Time `json:"firstNewBinding"`
	// FirstNew - LastOld, FirstNew - kill, LastOld - kill (negative: before the kill).
	GapSeconds                float64 `json:"gapSeconds"`
	KillToFirstBindingSeconds float64 `json:"killToFirstBindingSeconds"`
	KillToLastOldSeconds      float64 `json:"killToLastOldSeconds"`
	// Bindings of the old leader seen after the kill (requests it had in flight).
	OldAfterKill int `json:"oldBindingsAfterKill"`
}

// ComputeGap finds the last binding of oldID and the first of newID in the binding times per
// identity and relates them to the kill.
func ComputeGap(byIdentity map[string][]time.Time, oldID, newID string, kill time.Time) (FailoverGap, error) {
	var g FailoverGap
	if len(byIdentity[oldID]) == 0 {
		return g, fmt.Errorf("no binding by the old leader %q", oldID)
	}
	if newID == "" || newID == oldID {
		return g, fmt.Errorf("the lease never moved from %q", oldID)
	}
	if len(byIdentity[newID]) == 0 {
		return g, fmt.Errorf("no binding by the new leader %q", newID)
	}
	for _, t := range byIdentity[oldID] {
		if t.After(g.LastOld) {
			g.LastOld = t
		}
		if t.After(kill) {
			g.OldAfterKill++
		}
	}
	for _, t := range byIdentity[newID] {
		if g.FirstNew.IsZero() || t.Before(g.FirstNew) {
			g.FirstNew = t
		}
	}
	g.GapSeconds = g.FirstNew.Sub(g.LastOld).Seconds()
	g.KillToFirstBindingSeconds = g.FirstNew.Sub(kill).Seconds()
	g.KillToLastOldSeconds = g.LastOld.Sub(kill).Seconds()
	return g, nil
}

// HolderSpan says identity holds the lease from From on (until the next span).
type HolderSpan struct {
	Identity string
	From     time.Time
}

// LeaseObservation is the Lease as the driver's poll saw it.
type LeaseObservation struct {
	At          time.Time
	Holder      string
	AcquireTime time.Time
	RenewTime   time.Time
}

// HolderTimeline turns polls of the Lease into holder spans: one per change of holder, from
// the acquireTime the holder wrote (its own clock) or, without one, from when it was seen.
func HolderTimeline(obs []LeaseObservation) []HolderSpan {
	var spans []HolderSpan
	for _, o := range obs {
		if o.Holder == "" || (len(spans) > 0 && spans[len(spans)-1].Identity == o.Holder) {
			continue
		}
		from := o.AcquireTime
		if from.IsZero() {
			from = o.At
		}
		spans = append(spans, HolderSpan{Identity: o.Holder, From: from})
	}
	return spans
}

// AttributeBindings gives each binding time to the holder of the lease at that time: the span
// with the last From not after it (the first span's holder for bindings before every span).
func AttributeBindings(times []time.Time, spans []HolderSpan) map[string][]time.Time {
	out := map[string][]time.Time{}
	if len(spans) == 0 {
		return out
	}
	sorted := append([]HolderSpan(nil), spans...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].From.Before(sorted[j].From) })
	for _, t := range times {
		k := sort.Search(len(sorted), func(i int) bool { return sorted[i].From.After(t) }) - 1
		if k < 0 {
			k = 0
		}
		id := sorted[k].Identity
		out[id] = append(out[id], t)
	}
	return out
}

// leasePoller reads the Lease every 100 ms and keeps every change it sees.
type leasePoller struct {
	cancel context.CancelFunc
	done   chan struct{}
	obs    []LeaseObservation // written by the poll goroutine until done is closed
}

func getLease(ctx context.Context, cs kubernetes.Interface) (*coordinationv1.Lease, error) {
	return cs.CoordinationV1().Leases(leaseNamespace).Get(ctx, leaseName, metav1.GetOptions{})
}

func observe(l *coordinationv1.Lease) LeaseObservation {
	o := LeaseObservation{At: time.Now()}
	if l.Spec.HolderIdentity != nil {
		o.Holder = *l.Spec.HolderIdentity
	}
	if l.Spec.AcquireTime != nil {
		o.AcquireTime = l.Spec.AcquireTime.Time
	}
	if l.Spec.RenewTime != nil {
		o.RenewTime = l.Spec.RenewTime.Time
	}
	return o
}

func startLeasePoller(ctx context.Context, cs kubernetes.Interface) *leasePoller {
	ctx, cancel := context.WithCancel(ctx)
	p := &leasePoller{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			if l, err := getLease(ctx, cs); err == nil {
				o := observe(l)
				if n := len(p.obs); n == 0 || p.obs[n-1].Holder != o.Holder ||
					!p.obs[n-1].RenewTime.Equal(o.RenewTime) || !p.obs[n-1].AcquireTime.Equal(o.AcquireTime) {
					p.obs = append(p.obs, o)
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

// Stop ends the polls and returns what they saw.
func (p *leasePoller) Stop() []LeaseObservation {
	p.cancel()
	<-p.done
	return p.obs
}

// waitLeaseHolder waits until the lease has a holder, failing if c exits first.
func (x *runner) waitLeaseHolder(c *Child, what string) (string, error) {
	var holder string
	err := waitFor(x.ctx, x.timeout, what, func() (bool, error) {
		if !c.Alive() {
			return false, c.ExitError()
		}
		l, err := getLease(x.ctx, x.cl.Client)
		if err != nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
			return false, nil // not created yet
		}
		holder = *l.Spec.HolderIdentity
		return true, nil
	})
	return holder, err
}

func (x *runner) stopStandby() {
	if x.standby != nil {
		x.r.CPUTotal += x.standby.Stop(20 * time.Second)
		x.standby = nil
	}
}

// runFailover is a failover run (see the top of this file).
func (x *runner) runFailover() error {
	f := x.w.FailoverSettings()
	fr := &FailoverResult{Lease: leaseNamespace + "/" + leaseName,
		LeaseDurationSeconds: f.LeaseDurationSeconds, RenewDeadlineSeconds: f.RenewDeadlineSeconds,
		RetryPeriodSeconds: f.RetryPeriodSeconds, KillAfterPods: f.KillAfterPods}
	x.r.Failover = fr
	if err := x.setup(); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	// The leader: started alone, so it is the one holding the lease.
	if err := x.startScheduler("-a"); err != nil {
		return err
	}
	a := x.child
	var err error
	if fr.OldLeader, err = x.waitLeaseHolder(a, "failover: instance a taking the lease"); err != nil {
		return err
	}
	fr.OldLeaderPid = a.Pid()
	// The standby: the lease is held, so it waits for it (while its informers run).
	if x.standby, x.standbyPort, err = x.launch("-b"); err != nil {
		return err
	}
	b := x.standby
	fr.NewLeaderPid = b.Pid()
	standbyAlive := func() error {
		if !b.Alive() {
			return b.ExitError()
		}
		return nil
	}
	initNSs := x.w.InitNamespaceNames()
	if err := x.waitBound(initNSs, x.w.TotalInitPods(), "init phase: scheduling the init pods", standbyAlive); err != nil {
		return err
	}
	x.r.StartToFirstBinding = x.col.FirstBound().Sub(a.Started).Seconds()
	x.r.StartToInitDone = x.col.LastBound(initNSs...).Sub(a.Started).Seconds()
	// Warm: the standby's /readyz includes its handlers' sync, as upstream's.
	probe := NewScraperPath(x.standbyPort, x.cl.Token, "/readyz")
	err = waitFor(x.ctx, x.timeout, "failover: the standby's /readyz", func() (bool, error) {
		if err := standbyAlive(); err != nil {
			return false, err
		}
		_, err := probe.Scrape(x.ctx)
		return err == nil, nil
	})
	if err != nil {
		return err
	}
	fr.StandbyReadySeconds = time.Since(b.Started).Seconds()
	if l, err := getLease(x.ctx, x.cl.Client); err != nil {
		return fmt.Errorf("failover: reading the lease: %w", err)
	} else if h := observe(l).Holder; h != fr.OldLeader {
		return fmt.Errorf("failover: the lease moved from %q to %q before the kill", fr.OldLeader, h)
	}
	return x.measureFailover(f, fr, a, b)
}

func (x *runner) measureFailover(f FailoverSpec, fr *FailoverResult, a, b *Child) error {
	x.r.LoadAvg[0] = loadAvg1()
	poller := startLeasePoller(x.ctx, x.cl.Client)
	var leaseObs []LeaseObservation
	stopPoller := func() {
		if poller != nil {
			leaseObs, poller = poller.Stop(), nil
		}
	}
	defer stopPoller()
	start := time.Now()
	x.col.StartSampling(measureNS, start)
	defer x.col.StopSampling()
	creation := x.startCreation()
	err := x.waitBound([]string{measureNS}, f.KillAfterPods, "failover: the leader binding before the kill",
		func() error {
			if !b.Alive() {
				return b.ExitError()
			}
			return creation.Poll()
		})
	if err != nil {
		return err
	}
	// The crash.
	fr.BoundBeforeKill = x.col.Bound(measureNS)
	kill := time.Now()
	a.Kill()
	x.stopScheduler() // reaps a: its CPU
	fr.KilledAt = kill.UTC().Format(time.RFC3339Nano)
	x.child, x.port, x.standby = b, x.standbyPort, nil
	// The standby's turn: wait for every pod, or until bindings stop once the lease could
	// have moved (the longest a standby waits is leaseDuration after its last look at the
	// lease plus one jittered retry; the driver adds settleSeconds).
	earliestEnd := kill.Add(time.Duration((f.LeaseDurationSeconds + (1+leaderElectionJitter)*f.RetryPeriodSeconds*2 +
		f.SettleSeconds) * float64(time.Second)))
	lastCount, lastProgress := x.col.Bound(measureNS), time.Now()
	err = waitFor(x.ctx, x.timeout, "failover: the new leader binding the rest", func() (bool, error) {
		if !b.Alive() {
			return false, b.ExitError()
		}
		if err := creation.Poll(); err != nil {
			return false, err
		}
		n := x.col.Bound(measureNS)
		if n >= x.w.MeasurePods {
			return true, nil
		}
		now := time.Now()
		if n != lastCount {
			lastCount, lastProgress = n, now
		}
		settled := creation.done != nil && now.After(earliestEnd) &&
			now.Sub(lastProgress) > time.Duration(f.SettleSeconds*float64(time.Second))
		return settled, nil
	})
	if err != nil {
		return fmt.Errorf("%w (%d/%d bound)", err, x.col.Bound(measureNS), x.w.MeasurePods)
	}
	end := time.Now()
	if err := creation.Wait(); err != nil { // everything bound, perhaps before the creator returned
		return err
	}
	x.r.CreatorSeconds, x.r.CreatorRate = creation.done.res.Seconds, creation.done.res.Rate()
	stopPoller()
	samples, series := x.col.StopSampling()
	x.r.LoadAvg[1] = loadAvg1()
	x.r.Throughput, x.r.Series = SummarizeThroughput(samples), series
	x.r.MeasureSeconds = x.col.LastBound(measureNS).Sub(start).Seconds()
	if x.r.MeasureSeconds > 0 {
		x.r.ElapsedRate = float64(x.col.Bound(measureNS)) / x.r.MeasureSeconds
	}
	fr.MeasuredSeconds = end.Sub(start).Seconds()
	x.analyseFailover(fr, leaseObs, kill, a, b)
	return nil
}

// analyseFailover fills in the figures once the phase is over.
func (x *runner) analyseFailover(fr *FailoverResult, obs []LeaseObservation, kill time.Time, a, b *Child) {
	// The old leader's last renewal before the kill.
	for _, o := range obs {
		if o.Holder == fr.OldLeader && !o.RenewTime.After(kill) {
			fr.LastRenewToKillSeconds = o.RenewTime.Sub(kill).Seconds()
		}
	}
	spans := HolderTimeline(obs)
	if len(spans) > 0 {
		if last := spans[len(spans)-1]; last.Identity != fr.OldLeader {
			fr.NewLeader = last.Identity
			fr.KillToAcquireSeconds = last.From.Sub(kill).Seconds()
		}
	}
	binds := x.col.Binds(measureNS)
	times := make([]time.Time, len(binds))
	for i, bd := range binds {
		times[i] = bd.At
	}
	if len(spans) == 0 { // no poll succeeded: everything before the kill is a's
		spans = []HolderSpan{{Identity: fr.OldLeader}}
	}
	byID := AttributeBindings(times, spans)
	fr.OldLeaderBindings = len(byID[fr.OldLeader])
	if fr.NewLeader != "" {
		fr.NewLeaderBindings = len(byID[fr.NewLeader])
	}
	if g, err := ComputeGap(byID, fr.OldLeader, fr.NewLeader, kill); err == nil {
		fr.FailoverGap, fr.TookOver = g, true
	}
	// What the apiserver holds: pods still unbound, pods bound.
	ctx, cancel := context.WithTimeout(x.ctx, time.Minute)
	defer cancel()
	for _, ns := range append(x.w.InitNamespaceNames(), measureNS) {
		pods, err := x.cl.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			fr.BindingStatusNote = "listing pods: " + err.Error()
			continue
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" {
				fr.PodsBound++
			} else if ns == measureNS {
				fr.Lost++
			}
		}
	}
	fr.Rebound = x.col.Rebound()
	codes, err := x.apiserverBindingCodes(ctx)
	if err != nil {
		fr.BindingStatusNote = "apiserver /metrics: " + err.Error()
	} else {
		fr.BindingCodes = codes
		fr.Bindings201 = codes["201"]
		fr.BindingConflicts = codes["409"]
		fr.DoubleBound = max(int(fr.Bindings201)-fr.PodsBound, 0)
	}
	fr.DoubleBound = max(fr.DoubleBound, fr.Rebound)
	// The logs: a bound line is written after the binding's response came back.
	year := kill.Year()
	la, errA := ReadBindLog(a.LogPath, measureNS, year)
	lb, errB := ReadBindLog(b.LogPath, measureNS, year)
	if errA != nil || errB != nil {
		fr.LogNote = fmt.Sprintf("reading the logs: %v %v", errA, errB)
		return
	}
	fr.LogBoundOld, fr.LogBoundNew = len(la.Bound), len(lb.Bound)
	fr.LogConflicts = la.Conflicts + lb.Conflicts
	if g, err := ComputeGap(map[string][]time.Time{"a": la.Bound, "b": lb.Bound}, "a", "b", kill); err == nil {
		fr.LogGapSeconds, fr.LogKillToFirst = g.GapSeconds, g.KillToFirstBindingSeconds
	} else {
		fr.LogNote = "logs: " + err.Error()
	}
}

// apiserverBindingCodes sums the apiserver's apiserver_request_total for pods/binding by code.
func (x *runner) apiserverBindingCodes(ctx context.Context) (map[string]float64, error) {
	raw, err := x.cl.Client.CoreV1().RESTClient().Get().AbsPath("/metrics").
		SetHeader("Accept", "text/plain").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	return CounterByLabel(string(raw), "apiserver_request_total",
		map[string]string{"resource": "pods", "subresource": "binding"}, "code"), nil
}

// CounterByLabel sums the series of counter name matching selector, grouped by label by.
func CounterByLabel(text, name string, selector map[string]string, by string) map[string]float64 {
	out := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		n, labels, v, ok := parseSample(line)
		if !ok || n != name {
			continue
		}
		if labelsMatch(labels, selector) {
			out[labels[by]] += v
		}
	}
	return out
}

// BindLog is what a scheduler's klog-format log says about bindings.
type BindLog struct {
	Bound     []time.Time // "Successfully bound pod to node" lines of the namespace
	Conflicts int         // lines saying a pod was already assigned (a refused second binding)
}

// ReadBindLog reads a scheduler log (klog text format, as both schedulers write it).
func ReadBindLog(path, ns string, year int) (BindLog, error) {
	var out BindLog
	f, err := os.Open(path)
	if err != nil {
		return out, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "Successfully bound pod to node") &&
			strings.Contains(line, `pod="`+ns+"/"):
			if t, ok := KlogTime(line, year); ok {
				out.Bound = append(out.Bound, t)
			}
		case strings.Contains(line, "already assigned to node"):
			out.Conflicts++
		}
	}
	return out, sc.Err()
}

// KlogTime parses the header of a klog line, "Lmmdd hh:mm:ss.uuuuuu ...", in local time (klog
// and stowage both write local time and no year).
func KlogTime(line string, year int) (time.Time, bool) {
	if len(line) < 21 || strings.IndexByte("IWEF", line[0]) < 0 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("20060102 15:04:05.000000", fmt.Sprintf("%04d%s", year, line[1:21]), time.Local)
	return t, err == nil
}

// Summary is the run's figures on one line (the driver's progress).
func (f *FailoverResult) Summary() string {
	if !f.TookOver {
		return fmt.Sprintf("NO TAKE-OVER (lease holder %q), %d lost, %d double-bound, %.0f binding 409s",
			f.NewLeader, f.Lost, f.DoubleBound, f.BindingConflicts)
	}
	return fmt.Sprintf("gap %.2f s, kill to first new binding %.2f s (lease acquired +%.2f s), "+
		"%d lost, %d double-bound, %.0f binding 409s", f.GapSeconds, f.KillToFirstBindingSeconds,
		f.KillToAcquireSeconds, f.Lost, f.DoubleBound, f.BindingConflicts)
}

// FailoverMarkdown is a failover workload's section of results.md: one row per run.
func FailoverMarkdown(wl string, gs []*Group) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	first := firstRun(gs)
	p("\n## %s\n\n%d nodes, %d init pods, %d measured pods (a stream), client qps %d / burst %d, "+
		"mode failover: two instances under leader election, the leader SIGKILLed mid-run.\n\n",
		wl, first.Nodes, first.InitPods, first.MeasurePods, first.QPS, first.Burst)
	if f := first.Failover; f != nil {
		p("Lease %s: leaseDuration %gs, renewDeadline %gs, retryPeriod %gs; killed after %d measured "+
			"pods were bound.\n\n", f.Lease, f.LeaseDurationSeconds, f.RenewDeadlineSeconds,
			f.RetryPeriodSeconds, f.KillAfterPods)
	}
	p("Times are when the driver's pod watch saw each binding; each binding belongs to the lease " +
		"holder of its time (the Lease's acquireTime). gap = new leader's first binding - old " +
		"leader's last; log gap: the same from the two schedulers' \"Successfully bound\" log lines. " +
		"lost = measured pods unbound at the end; double-bound = pods seen moving node plus " +
		"bindings the apiserver accepted beyond the pods bound; 409 = binding attempts the " +
		"apiserver refused (apiserver_request_total) / log lines \"already assigned\".\n\n")
	p("| scheduler | run | bound before kill | last renew to kill s | kill to lease acquired s | gap s " +
		"| kill to 1st new binding s | log gap s | old / new bindings (in flight after kill) | lost " +
		"| double-bound | 409 apiserver / logs | standby ready s | load |\n")
	p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, g := range gs {
		for _, r := range g.OK {
			f := r.Failover
			if f == nil {
				continue
			}
			gap, k2f, k2a := "none", "none", "none"
			if f.TookOver {
				gap, k2f = fmt.Sprintf("%.2f", f.GapSeconds), fmt.Sprintf("%.2f", f.KillToFirstBindingSeconds)
			}
			if f.NewLeader != "" {
				k2a = fmt.Sprintf("%.2f", f.KillToAcquireSeconds)
			}
			logGap := "n/a"
			if f.LogGapSeconds != 0 {
				logGap = fmt.Sprintf("%.2f", f.LogGapSeconds)
			}
			p("| %s | #%d | %d | %.2f | %s | %s | %s | %s | %d / %d (%d) | %d | %d | %.0f / %d | %.1f | %.1f-%.1f |\n",
				g.Scheduler, r.Run, f.BoundBeforeKill, f.LastRenewToKillSeconds, k2a, gap, k2f, logGap,
				f.OldLeaderBindings, f.NewLeaderBindings, f.OldAfterKill, f.Lost, f.DoubleBound,
				f.BindingConflicts, f.LogConflicts, f.StandbyReadySeconds, r.LoadAvg[0], r.LoadAvg[1])
		}
		for _, r := range g.Failed {
			p("| %s | #%d | FAILED: %s |||||||||||\n", g.Scheduler, r.Run,
				strings.ReplaceAll(strings.SplitN(r.Error, "\n", 2)[0], "|", "\\|"))
		}
	}
	for _, g := range gs {
		for _, r := range g.OK {
			if f := r.Failover; f != nil {
				codes := make([]string, 0, len(f.BindingCodes))
				for c, n := range f.BindingCodes {
					codes = append(codes, fmt.Sprintf("%s: %.0f", c, n))
				}
				sort.Strings(codes)
				p("\n* %s #%d: old leader %s (pid %d), new leader %s (pid %d); %d pods bound in all (init "+
					"and measured); the apiserver's pods/binding responses by code: %s", g.Scheduler, r.Run,
					f.OldLeader, f.OldLeaderPid, f.NewLeader, f.NewLeaderPid, f.PodsBound,
					strings.Join(codes, ", "))
				for _, note := range []string{f.BindingStatusNote, f.LogNote} {
					if note != "" {
						p("; %s", note)
					}
				}
				p(".")
			}
		}
	}
	p("\n")
	return b.String()
}
