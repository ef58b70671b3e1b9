package main

// The measured phase of a run, in stream or backlog mode (see run.go), and the figures taken
// at its end: throughput samples, CPU, apiserver CPU, load, and the scheduler's own latency
// histograms (the difference between a scrape before and after).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Workload modes.
const (
	ModeStream  = "stream"
	ModeBacklog = "backlog"
)

// phase is what the end of a measured phase is compared against.
type phase struct {
	start         time.Time
	cpu0, api0    float64
	beforeMetrics string // "" when the scheduler serves no /metrics (or it is a fresh process)
	hasMetrics    bool
}

// beginMetrics scrapes /metrics if the scheduler serves it, noting why not otherwise.
func (x *runner) beginMetrics(p *phase) {
	if !x.spec.Metrics {
		x.r.MetricsNote = "serves no /metrics"
		return
	}
	text, err := scrapeWithRetry(x.ctx, NewScraper(x.port, x.cl.Token), 3)
	if err != nil {
		x.r.MetricsNote = "no /metrics: " + err.Error()
		return
	}
	p.beforeMetrics, p.hasMetrics = text, true
	x.saveMetrics("before", text)
}

// saveMetrics keeps a scrape beside the scheduler's log, for looking into a run afterwards.
func (x *runner) saveMetrics(when, text string) {
	name := fmt.Sprintf("%s-%s-%d.metrics-%s.txt", x.w.Slug(), x.spec.Name, x.r.Run, when)
	_ = os.WriteFile(filepath.Join(x.env.LogDir, name), []byte(text), 0o644)
}

func (x *runner) measureStream() (err error) {
	var p phase
	x.beginMetrics(&p)
	if p.cpu0, err = CPUSeconds(x.child.Pid()); err != nil {
		return err
	}
	p.api0, _ = CPUSeconds(x.cl.Pid())
	x.r.LoadAvg[0] = loadAvg1()
	p.start = time.Now()
	x.col.StartSampling(measureNS, p.start)
	creation := x.startCreation()
	// The churn runs beside the creation until every measured pod is bound.
	stopChurn, churned := make(chan struct{}), make(chan error, 1)
	if x.t.Churn != nil {
		go func() {
			n, err := Churn(x.ctx, x.cl.Client, churnNS, x.t.Churn,
				time.Duration(x.w.ChurnIntervalMilliseconds)*time.Millisecond, stopChurn)
			x.r.ChurnPods = n
			churned <- err
		}()
	} else {
		churned <- nil
	}
	defer func() {
		close(stopChurn)
		if churnErr := <-churned; churnErr != nil && err == nil {
			err = churnErr
		}
	}()
	err = x.waitBound([]string{measureNS}, x.w.MeasurePods, "measured phase: scheduling the measured pods",
		creation.Poll)
	if err == nil { // every pod bound, perhaps before the creator returned
		err = creation.Wait()
	}
	if err != nil {
		x.col.StopSampling()
		return err
	}
	x.r.CreatorSeconds, x.r.CreatorRate = creation.done.res.Seconds, creation.done.res.Rate()
	return x.finish(p)
}

func (x *runner) measureBacklog() error {
	x.stopScheduler()
	ctx, cancel := context.WithTimeout(x.ctx, x.timeout)
	defer cancel()
	res, err := CreatePods(ctx, x.cl.Client, measureNS, 0, x.w.MeasurePods, x.t.Pod, x.w.PodHook())
	if err != nil {
		return fmt.Errorf("backlog: %w", err)
	}
	if err := x.waitPodClaims(ctx); err != nil { // dra_run.go
		return fmt.Errorf("backlog: %w", err)
	}
	x.r.CreatorSeconds, x.r.CreatorRate = res.Seconds, res.Rate()
	// The second process's whole life is measured: its CPU from zero, its metrics from empty.
	p := phase{hasMetrics: x.spec.Metrics}
	p.api0, _ = CPUSeconds(x.cl.Pid())
	x.r.LoadAvg[0] = loadAvg1()
	if err := x.startScheduler("-backlog"); err != nil {
		return err
	}
	p.start = x.child.Started
	x.col.StartSampling(measureNS, p.start)
	if err := x.waitBound([]string{measureNS}, x.w.MeasurePods, "backlog: scheduling the measured pods", nil); err != nil {
		x.col.StopSampling()
		return err
	}
	x.r.BacklogStartToFirstBinding = x.col.FirstBoundIn(measureNS).Sub(p.start).Seconds()
	if !x.spec.Metrics {
		x.r.MetricsNote = "serves no /metrics"
	}
	return x.finish(p)
}

// finish records the figures of a measured phase that ended with every measured pod bound.
func (x *runner) finish(p phase) error {
	samples, series := x.col.StopSampling()
	r, w := x.r, x.w
	r.LoadAvg[1] = loadAvg1()
	r.MeasureSeconds = x.col.LastBound(measureNS).Sub(p.start).Seconds()
	r.ElapsedRate = float64(w.MeasurePods) / r.MeasureSeconds
	r.Throughput, r.Series = SummarizeThroughput(samples), series
	cpu1, err := CPUSeconds(x.child.Pid())
	if err != nil {
		return err
	}
	r.CPUPer1000Pods = (cpu1 - p.cpu0) * 1000 / float64(w.MeasurePods)
	if api1, err := CPUSeconds(x.cl.Pid()); err == nil {
		r.APIServerCPUPer1000Pods = (api1 - p.api0) * 1000 / float64(w.MeasurePods)
	}
	if !p.hasMetrics {
		return nil
	}
	after, err := scrapeWithRetry(x.ctx, NewScraper(x.port, x.cl.Token), 3)
	if err != nil {
		r.MetricsNote = "no /metrics after the measured phase: " + err.Error()
		return nil
	}
	x.saveMetrics("after", after)
	r.AttemptLatency = latency(p.beforeMetrics, after,
		"scheduler_scheduling_attempt_duration_seconds", map[string]string{"result": "scheduled"})
	r.AlgorithmLatency = latency(p.beforeMetrics, after,
		"scheduler_scheduling_algorithm_duration_seconds", nil)
	if r.AttemptLatency == nil || r.AlgorithmLatency == nil {
		r.MetricsNote = "/metrics lacks a scheduling latency histogram"
	}
	return nil
}

func scrapeWithRetry(ctx context.Context, s *Scraper, attempts int) (string, error) {
	var err error
	for i := 0; i < attempts; i++ {
		var text string
		if text, err = s.Scrape(ctx); err == nil {
			return text, nil
		}
		time.Sleep(time.Second)
	}
	return "", err
}

// latency is the histogram's summary over after-before; nil when absent or empty.
func latency(before, after, name string, selector map[string]string) *Latency {
	a, ok := ParseHistogram(after, name, selector)
	if !ok {
		return nil
	}
	b, _ := ParseHistogram(before, name, selector)
	d := a.Sub(b)
	if d.Count <= 0 {
		return nil
	}
	return &Latency{P50Ms: d.Quantile(0.5) * 1000, P99Ms: d.Quantile(0.99) * 1000,
		AvgMs: d.Sum / d.Count * 1000, Count: d.Count}
}

// measuredCreation is CreatePods of the measured pods running in the background while the
// caller waits for their bindings.
type measuredCreation struct {
	ch   chan creationOutcome
	done *creationOutcome // once the creator returned
}

type creationOutcome struct {
	res CreateResult
	err error
}

func (x *runner) startCreation() *measuredCreation {
	c := &measuredCreation{ch: make(chan creationOutcome, 1)}
	go func() {
		res, err := CreatePods(x.ctx, x.cl.Client, measureNS, 0, x.w.MeasurePods, x.t.Pod, x.w.PodHook())
		c.ch <- creationOutcome{res, err}
	}()
	return c
}

// Poll notes the creator's result if it has returned, and returns its error.
func (c *measuredCreation) Poll() error {
	if c.done == nil {
		select {
		case o := <-c.ch:
			c.done = &o
		default:
			return nil
		}
	}
	return c.done.err
}

// Wait waits until the creator has returned, and returns its error.
func (c *measuredCreation) Wait() error {
	if c.done == nil {
		o := <-c.ch
		c.done = &o
	}
	return c.done.err
}
