package main

// One run: one scheduler, one workload, on a fresh cluster.
//
//  1. start a test cluster; create the nodes and the init pods (no scheduler runs yet);
//  2. start the scheduler; the first binding times its start-up; wait for every init pod;
//  3. scrape /metrics and read the scheduler's CPU time, then create the measured pods as fast
//     as possible while sampling throughput, until every measured pod is bound;
//  4. read CPU, peak RSS and /metrics again; stop the scheduler and the cluster.
//
// Every wait is bounded by the workload's timeout; a run that times out or whose scheduler
// exits fails with a message saying which phase and why.

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"
)

const (
	initNS    = "sched-init"
	measureNS = "sched-measure"
)

// SchedulerSpec says how to run one scheduler.
type SchedulerSpec struct {
	Name    string
	Binary  string
	Metrics bool // serves /metrics on --secure-port
	Args    func(configPath string, port int) []string
}

// Latency is a histogram summary over the measured phase, in milliseconds.
type Latency struct {
	P50Ms float64 `json:"p50Ms"`
	P99Ms float64 `json:"p99Ms"`
	AvgMs float64 `json:"avgMs"`
	Count float64 `json:"count"`
}

// RunResult is everything recorded about one run (written as JSON).
type RunResult struct {
	Workload    string `json:"workload"`
	Scheduler   string `json:"scheduler"`
	Run         int    `json:"run"`
	StartedAt   string `json:"startedAt"`
	Error       string `json:"error,omitempty"`
	Nodes       int    `json:"nodes"`
	InitPods    int    `json:"initPods"`
	MeasurePods int    `json:"measurePods"`
	QPS         int    `json:"qps"`
	Burst       int    `json:"burst"`

	NodeCreateRate      float64 `json:"nodeCreatePodsPerSecond"`
	CreatorRate         float64 `json:"creatorPodsPerSecond"` // measured pods created per second
	CreatorSeconds      float64 `json:"creatorSeconds"`
	StartToFirstBinding float64 `json:"startToFirstBindingSeconds"`
	StartToInitDone     float64 `json:"startToInitScheduledSeconds"`

	Throughput     Throughput `json:"throughput"`
	Series         []Sample   `json:"series"`
	MeasureSeconds float64    `json:"measureSeconds"` // creation start to last binding
	ElapsedRate    float64    `json:"elapsedPodsPerSecond"`

	CPUPer1000Pods          float64 `json:"cpuSecondsPer1000Pods"`
	CPUTotal                float64 `json:"cpuSecondsTotal"`
	PeakRSSBytes            int64   `json:"peakRSSBytes"`
	APIServerCPUPer1000Pods float64 `json:"apiserverCpuSecondsPer1000Pods"`

	// The machine's 1-minute load average when the measured phase began and ended: the
	// machines are shared, and a busy neighbour shows here.
	LoadAvg [2]float64 `json:"loadavg1"`

	AttemptLatency   *Latency `json:"attemptLatency,omitempty"`
	AlgorithmLatency *Latency `json:"algorithmLatency,omitempty"`
	MetricsNote      string   `json:"metricsNote,omitempty"`
}

// RunEnv is what every run shares.
type RunEnv struct {
	TestCluster string
	WorkDir     string // cluster data and configs (removed per run)
	LogDir      string
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func writeConfig(path, kubeconfig string, w *Workload) error {
	cfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: %d
  burst: %d
leaderElection:
  leaderElect: false
`, kubeconfig, w.QPS, w.Burst)
	return os.WriteFile(path, []byte(cfg), 0o600)
}

// RunOnce performs one run; failures are returned in RunResult.Error.
func RunOnce(env RunEnv, w *Workload, spec SchedulerSpec, run int) RunResult {
	r := RunResult{Workload: w.Name, Scheduler: spec.Name, Run: run,
		StartedAt: time.Now().UTC().Format(time.RFC3339), Nodes: w.Nodes, InitPods: w.InitPods,
		MeasurePods: w.MeasurePods, QPS: w.QPS, Burst: w.Burst}
	if err := runOnce(env, w, spec, &r); err != nil {
		r.Error = err.Error()
	}
	return r
}

func runOnce(env RunEnv, w *Workload, spec SchedulerSpec, r *RunResult) error {
	timeout := time.Duration(w.TimeoutSeconds) * time.Second
	// Setup, init phase and measured phase each get the workload's bound, plus start-up slack.
	ctx, cancel := context.WithTimeout(context.Background(), 3*timeout+3*time.Minute)
	defer cancel()
	t, err := w.Templates()
	if err != nil {
		return err
	}
	cl, err := StartCluster(env.TestCluster, env.WorkDir, 2*time.Minute)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	defer cl.Stop()
	for _, ns := range []string{initNS, measureNS} {
		if err := CreateNamespace(ctx, cl.Client, ns); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
	}
	setupCtx, setupCancel := context.WithTimeout(ctx, timeout)
	defer setupCancel()
	nodes, err := CreateNodes(setupCtx, cl.Client, w, t)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	r.NodeCreateRate = nodes.Rate()
	if _, err := CreatePods(setupCtx, cl.Client, initNS, w.InitPods, t.InitPod); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	col, err := StartCollector(setupCtx, cl.Client)
	if err != nil {
		return fmt.Errorf("setup: pod informer: %w", err)
	}
	defer col.Close()

	base := fmt.Sprintf("%s-%s-%d", w.Slug(), spec.Name, r.Run)
	cfgPath := filepath.Join(cl.Dir, "scheduler-config.yaml")
	if err := writeConfig(cfgPath, cl.Kubeconfig, w); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	child, err := StartChild(spec.Name, spec.Binary, spec.Args(cfgPath, port),
		filepath.Join(env.LogDir, base+".log"))
	if err != nil {
		return err
	}
	defer func() {
		cpu, rss := child.Stop(20 * time.Second)
		r.CPUTotal = cpu
		if r.PeakRSSBytes == 0 {
			r.PeakRSSBytes = rss
		}
	}()

	// Init phase: start-up, then every init pod bound.
	err = waitFor(ctx, timeout, "init phase: scheduling the init pods", func() (bool, error) {
		if !child.Alive() {
			return false, child.ExitError()
		}
		return col.Bound(initNS) >= w.InitPods, nil
	})
	if err != nil {
		return fmt.Errorf("%w (%d/%d bound)", err, col.Bound(initNS), w.InitPods)
	}
	r.StartToFirstBinding = col.FirstBound().Sub(child.Started).Seconds()
	r.StartToInitDone = col.LastBound(initNS).Sub(child.Started).Seconds()

	var scraper *Scraper
	var before string
	if spec.Metrics {
		scraper = NewScraper(port, cl.Token)
		before, err = scrapeWithRetry(ctx, scraper, 3)
		if err != nil {
			r.MetricsNote = "no /metrics: " + err.Error()
			scraper = nil
		}
	} else {
		r.MetricsNote = "serves no /metrics"
	}
	cpu0, err := CPUSeconds(child.Pid())
	if err != nil {
		return err
	}
	api0, _ := CPUSeconds(cl.Pid())

	// Measured phase.
	r.LoadAvg[0] = loadAvg1()
	phaseStart := time.Now()
	col.StartSampling(measureNS, phaseStart)
	type outcome struct {
		res CreateResult
		err error
	}
	created := make(chan outcome, 1)
	go func() {
		res, err := CreatePods(ctx, cl.Client, measureNS, w.MeasurePods, t.Pod)
		created <- outcome{res, err}
	}()
	var creation *outcome
	err = waitFor(ctx, timeout, "measured phase: scheduling the measured pods", func() (bool, error) {
		if !child.Alive() {
			return false, child.ExitError()
		}
		if creation == nil {
			select {
			case o := <-created:
				if o.err != nil {
					return false, o.err
				}
				creation = &o
			default:
			}
		}
		return creation != nil && col.Bound(measureNS) >= w.MeasurePods, nil
	})
	samples, series := col.StopSampling()
	if err != nil {
		return fmt.Errorf("%w (%d/%d bound)", err, col.Bound(measureNS), w.MeasurePods)
	}
	r.CreatorSeconds, r.CreatorRate = creation.res.Seconds, creation.res.Rate()
	r.MeasureSeconds = col.LastBound(measureNS).Sub(phaseStart).Seconds()
	r.ElapsedRate = float64(w.MeasurePods) / r.MeasureSeconds
	r.Throughput, r.Series = SummarizeThroughput(samples), series
	cpu1, err := CPUSeconds(child.Pid())
	if err != nil {
		return err
	}
	r.LoadAvg[1] = loadAvg1()
	r.CPUPer1000Pods = (cpu1 - cpu0) * 1000 / float64(w.MeasurePods)
	if api1, err := CPUSeconds(cl.Pid()); err == nil {
		r.APIServerCPUPer1000Pods = (api1 - api0) * 1000 / float64(w.MeasurePods)
	}
	if rss, err := PeakRSSBytes(child.Pid()); err == nil {
		r.PeakRSSBytes = rss
	}
	if scraper != nil {
		after, err := scrapeWithRetry(ctx, scraper, 3)
		if err != nil {
			r.MetricsNote = "no /metrics after the measured phase: " + err.Error()
		} else {
			r.AttemptLatency = latency(before, after, "scheduler_scheduling_attempt_duration_seconds",
				map[string]string{"result": "scheduled"})
			r.AlgorithmLatency = latency(before, after, "scheduler_scheduling_algorithm_duration_seconds", nil)
			if r.AttemptLatency == nil || r.AlgorithmLatency == nil {
				r.MetricsNote = "/metrics lacks a scheduling latency histogram"
			}
		}
	}
	return nil
}

// loadAvg1 is the first field of /proc/loadavg (0 if unreadable).
func loadAvg1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	var v float64
	fmt.Sscanf(string(b), "%f", &v)
	return v
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
