package main

// The relist mode (issue 27, docs/benchmarks.md "Start-up and relist"): the cost of the initial
// list and of a relist after 410 Gone at full size. Once the init pods are bound the scheduler
// is frozen (SIGSTOP), the measured pods are created and the apiserver is restarted on the same
// etcd. The new apiserver's watch cache begins at etcd's current revision, so when the
// scheduler is thawed (SIGCONT) every one of its watches resumes from a version that cache no
// longer holds, is answered 410 Gone and lists its kind again: nodes, pods and the rest at once.
// Events the apiserver wrote before it stopped may still wait in the frozen process's sockets;
// the rest of the measured pods reach it only through the relist.

import (
	"context"
	"fmt"
	"math"
	"strings"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ModeRelist is the relist mode.
const ModeRelist = "relist"

// RelistResult is what the relist mode measures beyond a measured phase's figures.
type RelistResult struct {
	// The initial list: the scheduler's VmHWM and CPU once every init pod is bound.
	InitialPeakRSSBytes int64   `json:"initialPeakRSSBytes"`
	InitialCPUSeconds   float64 `json:"initialCPUSeconds"`
	// VmRSS just before the freeze and once every measured pod is bound after the relist.
	RSSBeforeBytes int64 `json:"rssBeforeBytes"`
	RSSAfterBytes  int64 `json:"rssAfterBytes"`
	// How long the apiserver took to come back (the scheduler was frozen meanwhile).
	APIServerRestartSeconds float64 `json:"apiserverRestartSeconds"`
	// From the thaw to the first and to the last binding of a measured pod.
	ThawToFirstBinding float64 `json:"thawToFirstBindingSeconds"`
	ThawToAllBound     float64 `json:"thawToAllBoundSeconds"`
	// Pods seen moving from one node to another and bindings the new apiserver refused with
	// 409 Conflict (a second binding of a bound pod): both must be 0. Attempts that ended in an
	// error are reported only: a request written to a connection the restart closed fails once
	// and is retried. -1: not known (no /metrics).
	Rebound          int     `json:"rebound"`
	BindingConflicts float64 `json:"bindingConflicts"`
	AttemptErrors    float64 `json:"attemptErrors"`
}

func (x *runner) measureRelist() (err error) {
	pid := x.child.Pid()
	rl := &RelistResult{AttemptErrors: -1, BindingConflicts: -1}
	x.r.Relist = rl
	if rl.InitialPeakRSSBytes, err = PeakRSSBytes(pid); err != nil {
		return err
	}
	if rl.InitialCPUSeconds, err = CPUSeconds(pid); err != nil {
		return err
	}
	rl.RSSBeforeBytes, _ = currentRSSBytes(pid)
	var p phase
	x.beginMetrics(&p)
	p.cpu0 = rl.InitialCPUSeconds
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("relist: freezing the scheduler: %w", err)
	}
	frozen := true
	defer func() {
		if frozen {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	ctx, cancel := context.WithTimeout(x.ctx, x.timeout)
	defer cancel()
	res, err := CreatePods(ctx, x.cl.Client, measureNS, 0, x.w.MeasurePods, x.t.Pod, x.w.PodHook())
	if err != nil {
		return fmt.Errorf("relist: %w", err)
	}
	x.r.CreatorSeconds, x.r.CreatorRate = res.Seconds, res.Rate()
	// The pods' events may already sit in the frozen process's socket, so its pod watch could
	// end at the last of them, where the new watch cache begins. A write of a kind no scheduler
	// watches moves etcd's revision past every version the scheduler holds.
	if _, err := x.cl.Client.CoreV1().ConfigMaps(measureNS).Create(ctx, &v1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "relist-revision"}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("relist: %w", err)
	}
	restart := time.Now()
	if err := x.cl.Restart(x.env.TestCluster, x.timeout); err != nil {
		return fmt.Errorf("relist: %w", err)
	}
	rl.APIServerRestartSeconds = time.Since(restart).Seconds()
	// Bindings are timed by the driver's own pod watch, which the restart broke too.
	if err := x.col.Mark(ctx, x.cl.Client, x.w.InitNamespaceNames()[0], PodAt(x.t.Pod, "", 0).Name,
		x.timeout); err != nil {
		return fmt.Errorf("relist: %w", err)
	}
	p.api0, _ = CPUSeconds(x.cl.Pid())
	x.r.LoadAvg[0] = loadAvg1()
	p.start = time.Now()
	x.col.StartSampling(measureNS, p.start)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		x.col.StopSampling()
		return fmt.Errorf("relist: thawing the scheduler: %w", err)
	}
	frozen = false
	if err := x.waitBound([]string{measureNS}, x.w.MeasurePods, "relist: scheduling the measured pods", nil); err != nil {
		x.col.StopSampling()
		return err
	}
	rl.ThawToFirstBinding = x.col.FirstBoundIn(measureNS).Sub(p.start).Seconds()
	rl.ThawToAllBound = x.col.LastBound(measureNS).Sub(p.start).Seconds()
	rl.RSSAfterBytes, _ = currentRSSBytes(pid)
	before := p.beforeMetrics
	if err := x.finish(p); err != nil {
		return err
	}
	rl.Rebound = x.col.Rebound()
	// The apiserver's counters began at the restart, so they cover exactly this phase.
	if codes, err := x.apiserverBindingCodes(x.ctx); err == nil { // failover.go
		rl.BindingConflicts = codes["409"]
	}
	if before != "" {
		if after, err := scrapeWithRetry(x.ctx, NewScraper(x.port, x.cl.Token), 3); err == nil {
			attempts := func(text string) float64 {
				return CounterByLabel(text, "scheduler_schedule_attempts_total", nil, "result")["error"]
			}
			rl.AttemptErrors = attempts(after) - attempts(before)
		}
	}
	if rl.Rebound != 0 || rl.BindingConflicts > 0 {
		return fmt.Errorf("relist: %d pods moved between nodes and %.0f bindings were refused as "+
			"conflicts", rl.Rebound, rl.BindingConflicts)
	}
	return nil
}

// RelistMarkdown is the relist mode's table, below the workload's usual one.
func RelistMarkdown(gs []*Group) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("\nThe relist (medians): the initial list is the process's peak RSS and CPU once the init " +
		"pods are bound; the relist is from the thaw to the first and the last binding of a pod " +
		"created while the scheduler was frozen; RSS is VmRSS before the freeze and after the " +
		"last binding, peak RSS the whole life's.\n\n")
	p("| scheduler | n | initial peak RSS MiB | initial CPU s | apiserver restart s | thaw to 1st " +
		"binding s | thaw to all bound s | RSS before / after MiB | peak RSS MiB | moved, 409, " +
		"errors |\n|---|---|---|---|---|---|---|---|---|---|\n")
	rl := func(f func(*RelistResult) float64) func(RunResult) float64 {
		return func(r RunResult) float64 {
			if r.Relist == nil {
				return math.NaN()
			}
			return f(r.Relist)
		}
	}
	mib := func(v int64) float64 { return float64(v) / (1 << 20) }
	for _, g := range gs {
		m := g.median
		p("| %s | %d | %s | %s | %s | %s | %s | %s / %s | %s | %s, %s, %s |\n", g.Scheduler, len(g.OK),
			num(m(rl(func(r *RelistResult) float64 { return mib(r.InitialPeakRSSBytes) })), 0),
			num(m(rl(func(r *RelistResult) float64 { return r.InitialCPUSeconds })), 2),
			num(m(rl(func(r *RelistResult) float64 { return r.APIServerRestartSeconds })), 1),
			num(m(rl(func(r *RelistResult) float64 { return r.ThawToFirstBinding })), 2),
			num(m(rl(func(r *RelistResult) float64 { return r.ThawToAllBound })), 2),
			num(m(rl(func(r *RelistResult) float64 { return mib(r.RSSBeforeBytes) })), 0),
			num(m(rl(func(r *RelistResult) float64 { return mib(r.RSSAfterBytes) })), 0),
			num(m(rssMiB), 0),
			num(m(rl(func(r *RelistResult) float64 { return float64(r.Rebound) })), 0),
			num(m(rl(func(r *RelistResult) float64 { return r.BindingConflicts })), 0),
			num(m(rl(func(r *RelistResult) float64 { return r.AttemptErrors })), 0))
	}
	return b.String()
}
