package main

// One run: one scheduler, one workload, on a fresh cluster.
//
//  1. start a test cluster; create the nodes and the init pods (no scheduler runs yet);
//  2. start the scheduler; the first binding times its start-up; wait for every init pod;
//  3. measure (measure.go), in one of two modes:
//     stream (scheduler_perf's way): create the measured pods as fast as possible while the
//     scheduler runs, sampling throughput until every one is bound;
//     backlog: stop the scheduler, create every measured pod, start it again and sample
//     throughput until the backlog is bound, so creation never competes with scheduling;
//     (failover, with two instances under leader election and the leader killed mid-run, has
//     its own sequence: failover.go);
//  4. read CPU, peak RSS and /metrics; stop the scheduler and the cluster.
//
// Every wait is bounded by the workload's timeout; a run that times out or whose scheduler
// exits fails with a message saying which phase and why.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"sigs.k8s.io/yaml"
	"stowage.dev/tests/cluster/internal/loopback"
)

const (
	initNS    = "sched-init"
	measureNS = "sched-measure"
	churnNS   = "sched-churn"
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
	Mode        string `json:"mode"`
	StartedAt   string `json:"startedAt"`
	Error       string `json:"error,omitempty"`
	Nodes       int    `json:"nodes"`
	InitPods    int    `json:"initPods"`
	MeasurePods int    `json:"measurePods"`
	QPS         int    `json:"qps"`
	Burst       int    `json:"burst"`

	NodeCreateRate float64 `json:"nodeCreatePodsPerSecond"`
	// Storage shapes: volumes and claims created during set-up, and how fast.
	StorageObjects    int     `json:"storageObjects,omitempty"`
	StorageCreateRate float64 `json:"storageCreatePerSecond,omitempty"`
	// DRA shapes: slices and claims created during set-up, and how fast.
	DRAObjects          int     `json:"draObjects,omitempty"`
	DRACreateRate       float64 `json:"draCreatePerSecond,omitempty"`
	CreatorRate         float64 `json:"creatorPodsPerSecond"` // measured pods created per second
	CreatorSeconds      float64 `json:"creatorSeconds"`
	StartToFirstBinding float64 `json:"startToFirstBindingSeconds"`
	StartToInitDone     float64 `json:"startToInitScheduledSeconds"`
	// Pods the churn created while the measured phase ran (workloads with churnTemplate).
	ChurnPods int `json:"churnPods,omitempty"`
	// Backlog mode: from the second start (every measured pod pending) to its first binding.
	BacklogStartToFirstBinding float64 `json:"backlogStartToFirstBindingSeconds,omitempty"`

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

	// The failover mode's figures (failover.go).
	Failover *FailoverResult `json:"failover,omitempty"`
	// The relist mode's figures (relist.go).
	Relist *RelistResult `json:"relist,omitempty"`
	// The workload's sweep shape, if it is part of the node-count sweep (sweep.go).
	Sweep string `json:"sweep,omitempty"`
}

// RunEnv is what every run shares.
type RunEnv struct {
	TestCluster string
	WorkDir     string // cluster data and configs (removed per run)
	LogDir      string
	// ControllerManager is kube-controller-manager, for workloads with volumes.pvController
	// or dra.resourceClaimController.
	ControllerManager string
}

// writeConfig writes the KubeSchedulerConfiguration every scheduler of the run gets (the
// binder reads clientConnection only): the client limits of the workload, leader election as
// the mode wants it (leaderElectionConfig: off, except in the failover mode), and the
// workload's schedulerConfig merged in.
func writeConfig(path, kubeconfig string, w *Workload) error {
	b, err := schedulerConfig(kubeconfig, w)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// schedulerConfig is the YAML writeConfig writes.
func schedulerConfig(kubeconfig string, w *Workload) ([]byte, error) {
	le, err := json.Marshal(leaderElectionConfig(w))
	if err != nil {
		return nil, err
	}
	cfg, err := objectTemplate(fmt.Sprintf(`{"apiVersion":"kubescheduler.config.k8s.io/v1",
 "kind":"KubeSchedulerConfiguration",
 "clientConnection":{"kubeconfig":%q,"qps":%d,"burst":%d},
 "leaderElection":%s}`, kubeconfig, w.QPS, w.Burst, le), w.SchedulerConfig)
	if err != nil {
		return nil, fmt.Errorf("scheduler configuration: %w", err)
	}
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("scheduler configuration: %w", err)
	}
	return b, nil
}

// leaderElectionConfig is the configuration's leaderElection: off in the stream and backlog
// modes (one scheduler, nothing to elect), on in the failover mode with the workload's lease
// settings (upstream's defaults unless it says otherwise) on the upstream lock,
// kube-system/kube-scheduler, the same for both instances.
func leaderElectionConfig(w *Workload) map[string]any {
	if w.Mode != ModeFailover {
		return map[string]any{"leaderElect": false}
	}
	f := w.FailoverSettings()
	return map[string]any{
		"leaderElect":       true,
		"leaseDuration":     goDuration(f.LeaseDurationSeconds),
		"renewDeadline":     goDuration(f.RenewDeadlineSeconds),
		"retryPeriod":       goDuration(f.RetryPeriodSeconds),
		"resourceLock":      "leases",
		"resourceName":      leaseName,
		"resourceNamespace": leaseNamespace,
	}
}

// RunOnce performs one run; failures are returned in RunResult.Error.
func RunOnce(env RunEnv, w *Workload, spec SchedulerSpec, run int) RunResult {
	r := RunResult{Workload: w.Name, Scheduler: spec.Name, Run: run, Mode: w.Mode,
		StartedAt: time.Now().UTC().Format(time.RFC3339), Nodes: w.Nodes, InitPods: w.TotalInitPods(),
		MeasurePods: w.MeasurePods, QPS: w.QPS, Burst: w.Burst, Sweep: w.Sweep}
	x := &runner{env: env, w: w, spec: spec, r: &r,
		timeout: time.Duration(w.TimeoutSeconds) * time.Second}
	// Setup, init phase, creation and measured phase each get the workload's bound.
	ctx, cancel := context.WithTimeout(context.Background(), 4*x.timeout+3*time.Minute)
	defer cancel()
	x.ctx = ctx
	do := x.run
	if w.Mode == ModeFailover {
		do = x.runFailover // failover.go
	}
	err := do()
	x.cleanup()
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// runner holds one run's cluster, collector and current scheduler process.
type runner struct {
	env     RunEnv
	w       *Workload
	spec    SchedulerSpec
	r       *RunResult
	ctx     context.Context
	timeout time.Duration
	t       Templates
	cl      *Cluster
	col     *Collector
	cfgPath string
	child   *Child
	port    int
	kcm     *Child // kube-controller-manager's PV binder or resourceclaim controller, if asked for
	// The failover mode's second instance (failover.go), while both run.
	standby     *Child
	standbyPort int
}

func (x *runner) cleanup() {
	x.stopScheduler()
	x.stopStandby()
	if x.kcm != nil {
		x.kcm.Stop(20 * time.Second)
	}
	if x.col != nil {
		x.col.Close()
	}
	if x.cl != nil {
		x.cl.Stop()
	}
}

// setup starts the cluster and creates the namespaces, nodes and init pods.
func (x *runner) setup() error {
	var err error
	if x.t, err = x.w.Templates(); err != nil {
		return err
	}
	if x.cl, err = StartCluster(x.env.TestCluster, x.env.WorkDir, 2*time.Minute); err != nil {
		return err
	}
	if err := CreatePriorityClasses(x.ctx, x.cl.Client, x.w.PriorityClasses); err != nil {
		return err
	}
	for _, ns := range append(x.w.InitNamespaceNames(), measureNS, churnNS) {
		if err := CreateNamespace(x.ctx, x.cl.Client, ns, x.w.NamespaceLabels); err != nil {
			return err
		}
	}
	if err := x.startControllers(); err != nil { // dra_run.go
		return err
	}
	ctx, cancel := context.WithTimeout(x.ctx, x.timeout)
	defer cancel()
	nodes, err := CreateNodes(ctx, x.cl.Client, x.w, x.t)
	if err != nil {
		return err
	}
	x.r.NodeCreateRate = nodes.Rate()
	storage, err := StorageSetup(ctx, x.cl.Client, x.w, x.t)
	if err != nil {
		return err
	}
	x.r.StorageObjects, x.r.StorageCreateRate = storage.Count, storage.Rate()
	dra, err := DRASetup(ctx, x.cl.Client, x.w, x.t)
	if err != nil {
		return err
	}
	x.r.DRAObjects, x.r.DRACreateRate = dra.Count, dra.Rate()
	// One template after another, as scheduler_perf's successive createPods ops; the
	// scheduler is not running yet, so its queue sees them in this order.
	for k, template := range x.t.InitPods {
		for _, ns := range x.w.InitNamespaceNames() {
			if _, err := CreatePods(ctx, x.cl.Client, ns, k*x.w.InitPods, x.w.InitPods, template,
				x.w.PodHook()); err != nil {
				return err
			}
		}
	}
	if x.col, err = StartCollector(ctx, x.cl.Client); err != nil {
		return fmt.Errorf("pod informer: %w", err)
	}
	x.cfgPath = filepath.Join(x.cl.Dir, "scheduler-config.yaml")
	return writeConfig(x.cfgPath, x.cl.Kubeconfig, x.w)
}

// startScheduler starts the scheduler on a free port; its log is named after the run.
func (x *runner) startScheduler(suffix string) error {
	var err error
	x.child, x.port, err = x.launch(suffix)
	return err
}

// launch starts one scheduler process on a free port, its log named after the run and suffix.
func (x *runner) launch(suffix string) (*Child, int, error) {
	port, err := loopback.FreePort()
	if err != nil {
		return nil, 0, err
	}
	log := fmt.Sprintf("%s-%s-%d%s.log", x.w.Slug(), x.spec.Name, x.r.Run, suffix)
	c, err := StartChild(x.spec.Name, x.spec.Binary, x.spec.Args(x.cfgPath, port),
		filepath.Join(x.env.LogDir, log))
	return c, port, err
}

// stopScheduler stops the current process, adding its CPU to the total and keeping the
// largest peak RSS seen. Peak RSS is VmHWM read just before the stop: rusage's ru_maxrss of a
// child also counts the memory of the driver it was forked from (Linux keeps the high-water
// mark across exec), so it would report the driver's size for a small scheduler.
func (x *runner) stopScheduler() {
	if x.child == nil {
		return
	}
	if rss, err := PeakRSSBytes(x.child.Pid()); err == nil && rss > x.r.PeakRSSBytes {
		x.r.PeakRSSBytes = rss
	}
	x.r.CPUTotal += x.child.Stop(20 * time.Second)
	x.child = nil
}

// waitBound waits until n pods of the namespaces are bound, failing if the scheduler exits.
func (x *runner) waitBound(nss []string, n int, what string, also func() error) error {
	err := waitFor(x.ctx, x.timeout, what, func() (bool, error) {
		if !x.child.Alive() {
			return false, x.child.ExitError()
		}
		if also != nil {
			if err := also(); err != nil {
				return false, err
			}
		}
		return x.col.Bound(nss...) >= n, nil
	})
	if err != nil {
		return fmt.Errorf("%w (%d/%d bound)", err, x.col.Bound(nss...), n)
	}
	return nil
}

func (x *runner) run() error {
	if err := x.setup(); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	if err := x.startScheduler(""); err != nil {
		return err
	}
	initNSs := x.w.InitNamespaceNames()
	if err := x.waitBound(initNSs, x.w.TotalInitPods(), "init phase: scheduling the init pods", nil); err != nil {
		return err
	}
	x.r.StartToFirstBinding = x.col.FirstBound().Sub(x.child.Started).Seconds()
	x.r.StartToInitDone = x.col.LastBound(initNSs...).Sub(x.child.Started).Seconds()
	measure := x.measureStream
	switch x.w.Mode {
	case ModeBacklog:
		measure = x.measureBacklog
	case ModeRelist:
		measure = x.measureRelist // relist.go
	}
	if err := measure(); err != nil {
		return err
	}
	return x.verifyClaims() // dra_run.go
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
