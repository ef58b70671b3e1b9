// Command soak runs a pod churn against each scheduler in turn on one running test cluster and
// reports how the scheduler's resident memory follows the pods that came and went: RSS at the
// start and end of the churn, after it, and its growth per thousand pods churned.
//
//	soak -testcluster BIN -stowage BIN -upstream BIN -out DIR [-duration 3m] [-rate 40]
//	     [-lifetime 5s] [-nodes 100] [-runs 1]
//
// Each scheduler runs alone (the other is stopped) with the same flags and a configuration that
// only names the kubeconfig and turns leader election off, as a new user would start it.
// It starts the test cluster itself (or uses a running one given -kubeconfig); scripts/soak
// builds it and runs it.
package main

import (
	"context"
	"crypto/tls"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"stowage.dev/tests/cluster/internal/loopback"
)

const namespace = "soak"

// Result is one scheduler's run.
type Result struct {
	Scheduler       string   `json:"scheduler"`
	Run             int      `json:"run"`
	Summary         Summary  `json:"summary"`
	Created         int64    `json:"created"`
	CreatedFit      int64    `json:"createdFit"` // created pods that fit a node
	Deleted         int64    `json:"deleted"`
	Failed          int64    `json:"failed"`
	BoundFit        int64    `json:"boundFit"`
	BoundTooBig     int64    `json:"boundTooBig"`
	PendingAtDelete int64    `json:"pendingAtDelete"`
	Samples         []Sample `json:"samples"`
	Error           string   `json:"error,omitempty"`
}

type options struct {
	kubeconfig, out, verbosity       string
	duration, warmup, settle, sample time.Duration
	lifetime                         time.Duration
	rate                             float64
	nodes, runs                      int
	qps, burst                       int
	binaries                         map[string]string
	order                            []string
}

func main() {
	var o options
	var stowage, upstream, schedulers, testcluster string
	flag.StringVar(&testcluster, "testcluster", "", "test cluster binary, started for the soak")
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "admin kubeconfig of a running cluster instead")
	flag.StringVar(&stowage, "stowage", "", "stowage binary")
	flag.StringVar(&upstream, "upstream", "", "upstream kube-scheduler binary")
	flag.StringVar(&schedulers, "schedulers", "stowage,upstream", "which to run, in order")
	flag.DurationVar(&o.duration, "duration", 5*time.Minute, "churn time per scheduler and run")
	flag.DurationVar(&o.warmup, "warmup", time.Minute, "churn left out of the figures at the start")
	flag.DurationVar(&o.settle, "settle", 30*time.Second, "sampling after the churn stopped")
	flag.DurationVar(&o.sample, "sample", 5*time.Second, "RSS sampling period")
	flag.DurationVar(&o.lifetime, "lifetime", 5*time.Second, "from a pod's creation to its deletion")
	flag.Float64Var(&o.rate, "rate", 40, "pods created per second")
	flag.IntVar(&o.nodes, "nodes", 100, "nodes")
	flag.IntVar(&o.runs, "runs", 1, "runs per scheduler (the report gives medians)")
	flag.StringVar(&o.out, "out", "", "directory for samples, logs and results (required)")
	flag.StringVar(&o.verbosity, "v", "0", "the schedulers' -v")
	flag.IntVar(&o.qps, "qps", 0, "clientConnection.qps of both schedulers (0: the default, 50)")
	flag.IntVar(&o.burst, "burst", 0, "clientConnection.burst of both schedulers (0: the default, 100)")
	flag.Parse()
	if (o.kubeconfig == "") == (testcluster == "") || o.out == "" {
		fatal(fmt.Errorf("-out and one of -testcluster and -kubeconfig are required"))
	}
	o.binaries = map[string]string{"stowage": stowage, "upstream": upstream}
	for _, s := range strings.Split(schedulers, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if o.binaries[s] == "" {
			fatal(fmt.Errorf("scheduler %q: unknown, or its binary flag is empty", s))
		}
		o.order = append(o.order, s)
	}
	fatal(os.MkdirAll(o.out, 0o755))
	var cl *Cluster
	if testcluster != "" {
		var err error
		cl, err = StartCluster(testcluster, 2*time.Minute)
		fatal(err)
		o.kubeconfig = cl.Kubeconfig
	}
	code, err := soak(o)
	if cl != nil {
		cl.Stop()
	}
	fatal(err)
	os.Exit(code)
}

// soak runs every scheduler and writes the report; the exit status is 1 when a run failed, and
// an error is returned when none could start.
func soak(o options) (int, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return 2, err
	}
	cfg.QPS, cfg.Burst = -1, 0 // the driver must never be what limits the churn
	cfg.UserAgent = "stowage-soak"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 2, err
	}
	ctx := context.Background()
	if err := setup(ctx, cs, o.nodes); err != nil {
		return 2, err
	}
	schedCfg := filepath.Join(o.out, "scheduler-config.yaml")
	limits := ""
	if o.qps > 0 {
		limits += fmt.Sprintf("  qps: %d\n", o.qps)
	}
	if o.burst > 0 {
		limits += fmt.Sprintf("  burst: %d\n", o.burst)
	}
	if err := os.WriteFile(schedCfg, []byte(fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
%sleaderElection:
  leaderElect: false
`, o.kubeconfig, limits)), 0o600); err != nil {
		return 2, err
	}

	var results []Result
	for run := 1; run <= o.runs; run++ {
		for _, name := range o.order {
			r := runOne(ctx, cs, o, name, run, schedCfg)
			if r.Error != "" {
				fmt.Fprintf(os.Stderr, "soak: %s run %d: %s\n", name, run, r.Error)
			}
			results = append(results, r)
			writeSamples(filepath.Join(o.out, fmt.Sprintf("%s-%d.csv", name, run)), r.Samples)
		}
	}
	b, _ := json.MarshalIndent(results, "", "  ")
	report := Report(results, o)
	for _, f := range []struct {
		name string
		data []byte
	}{{"results.json", b}, {"results.md", []byte(report)}} {
		if err := os.WriteFile(filepath.Join(o.out, f.name), f.data, 0o644); err != nil {
			return 2, err
		}
	}
	fmt.Print(report)
	for _, r := range results {
		if r.Error != "" {
			return 1, nil
		}
	}
	return 0, nil
}

func fatal(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
}

// setup creates the namespace and the nodes (kept across runs; existing ones are fine).
func setup(ctx context.Context, cs kubernetes.Interface, nodes int) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx,
		&v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("namespace: %w", err)
	}
	for i := 0; i < nodes; i++ {
		_, err := cs.CoreV1().Nodes().Create(ctx, NodeAt(i), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("node %d: %w", i, err)
		}
	}
	return nil
}

// runOne starts the scheduler, churns, samples its RSS throughout and after, and stops it.
func runOne(ctx context.Context, cs kubernetes.Interface, o options, name string, run int, schedCfg string) Result {
	r := Result{Scheduler: name, Run: run}
	port, err := loopback.FreePort()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	logPath := filepath.Join(o.out, fmt.Sprintf("%s-%d.log", name, run))
	log, err := os.Create(logPath)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer log.Close()
	cmd := exec.Command(o.binaries[name], "--config="+schedCfg, fmt.Sprintf("--secure-port=%d", port),
		"--bind-address=127.0.0.1", "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
		"-v="+o.verbosity)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		r.Error = fmt.Sprintf("starting %s: %v", name, err)
		return r
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	pid := cmd.Process.Pid
	if err := waitHealthy(port, exited, time.Minute); err != nil {
		r.Error = fmt.Sprintf("%s: %v (log %s)", name, err, logPath)
		return r
	}

	ch := &Churner{CS: cs, NS: namespace, Prefix: fmt.Sprintf("%s-%d", name, run), Rate: o.rate, Lifetime: o.lifetime}
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	if err := ch.Watch(wctx); err != nil {
		r.Error = err.Error()
		return r
	}
	start := time.Now()
	sample := func(phase string) bool {
		kb, err := RSSKB(pid)
		if err != nil {
			r.Error = fmt.Sprintf("%s exited during the run (log %s)", name, logPath)
			return false
		}
		r.Samples = append(r.Samples, Sample{Seconds: time.Since(start).Seconds(),
			Churned: ch.C.Deleted.Load(), RSSKB: kb, Phase: phase})
		return true
	}
	if !sample("start") {
		return r
	}
	cctx, stopChurn := context.WithTimeout(ctx, o.duration)
	done := make(chan struct{})
	go func() { ch.Run(cctx); close(done) }()
	fmt.Fprintf(os.Stderr, "soak: %s run %d: churning %.0f pods/s for %s\n", name, run, o.rate, o.duration)
	tick := time.NewTicker(o.sample)
	for churning := true; churning; {
		select {
		case <-done:
			churning = false
		case <-tick.C:
			phase := "churn"
			if time.Since(start) < o.warmup {
				phase = "warmup"
			}
			if !sample(phase) {
				stopChurn()
				<-done
				tick.Stop()
				return r
			}
		}
	}
	stopChurn()
	// What the scheduler holds: its queue, cache and in-flight gauges at the end of the churn
	// and after it, for a look beside the RSS.
	metricsPath := filepath.Join(o.out, fmt.Sprintf("%s-%d-metrics.txt", name, run))
	snapshotMetrics(port, metricsPath, "end of churn")
	defer snapshotMetrics(port, metricsPath, "after the churn")
	// The last pods are gone; the scheduler is idle from here on.
	settleEnd := time.Now().Add(o.settle)
	for time.Now().Before(settleEnd) {
		<-tick.C
		if !sample("settle") {
			break
		}
	}
	tick.Stop()
	r.Created, r.Deleted, r.Failed = ch.C.Created.Load(), ch.C.Deleted.Load(), ch.C.Failed.Load()
	r.CreatedFit = ch.C.CreatedFit.Load()
	r.BoundFit, r.BoundTooBig, r.PendingAtDelete = ch.C.BoundFit.Load(), ch.C.BoundTooBig.Load(), ch.C.PendingAtDelete.Load()
	r.Summary = Summarize(r.Samples)
	fmt.Fprintf(os.Stderr, "soak: %s run %d: %d pods churned, RSS %d -> %d KiB, %.1f KiB per 1000 pods (%.1f in the second half)\n",
		name, run, r.Deleted, r.Summary.StartKB, r.Summary.EndKB, r.Summary.SlopeKBPer1000, r.Summary.LateSlopeKBPer1000)
	return r
}

// waitHealthy polls /healthz on the secure port until it answers 200.
func waitHealthy(port int, exited <-chan struct{}, timeout time.Duration) error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // loopback probe only
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("exited before it was healthy")
		default:
		}
		if resp, err := hc.Get(fmt.Sprintf("https://127.0.0.1:%d/healthz", port)); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("not healthy within %s", timeout)
}

// gauges are the families snapshotMetrics keeps: what the scheduler holds per pod, by upstream's
// names (both schedulers serve them).
var gauges = []string{"scheduler_pending_pods", "scheduler_cache_size", "scheduler_inflight_events",
	"scheduler_unschedulable_pods", "scheduler_goroutines", "process_resident_memory_bytes",
	"go_memstats_heap_inuse_bytes", "rest_client_requests_total",
	"rest_client_rate_limiter_duration_seconds_sum", "rest_client_rate_limiter_duration_seconds_count"}

// snapshotMetrics appends the gauges' samples from /metrics to path, under a heading.
func snapshotMetrics(port int, path, heading string) {
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // loopback probe only
	resp, err := hc.Get(fmt.Sprintf("https://127.0.0.1:%d/metrics", port))
	if err != nil {
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "# %s\n", heading)
	for _, line := range strings.Split(string(body), "\n") {
		for _, g := range gauges {
			if strings.HasPrefix(line, g+"{") || strings.HasPrefix(line, g+" ") {
				fmt.Fprintln(f, line)
			}
		}
	}
}

func writeSamples(path string, samples []Sample) {
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	w := csv.NewWriter(f)
	_ = w.Write([]string{"seconds", "pods_churned", "rss_kib", "phase"})
	for _, s := range samples {
		_ = w.Write([]string{strconv.FormatFloat(s.Seconds, 'f', 1, 64),
			strconv.FormatInt(s.Churned, 10), strconv.FormatInt(s.RSSKB, 10), s.Phase})
	}
	w.Flush()
}

// Report is the results as a markdown table, one row per scheduler with the medians over runs.
func Report(results []Result, o options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Memory under churn: %d nodes, %.0f pods/s each deleted %s after creation "+
		"(a third with a zone spread and a preferred anti-affinity, a tenth too big to fit), %s "+
		"per run after %s of warm-up, %d run(s); medians over runs.\n\n",
		o.nodes, o.rate, o.lifetime, o.duration, o.warmup, o.runs)
	b.WriteString("| scheduler | pods churned | RSS start (MiB) | RSS end (MiB) | after churn (MiB) | peak (MiB) | slope (KiB per 1000 pods) | slope, second half | fit pods bound | left pending | too-big bound |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	type row struct {
		end, settled int64
		slope        float64
	}
	rows := map[string]row{}
	for _, name := range o.order {
		var churned, start, end, settled, peak []int64
		var slope, late []float64
		var bound, fit, pending, big []int64
		for _, r := range results {
			if r.Scheduler != name || r.Error != "" {
				continue
			}
			s := r.Summary
			churned = append(churned, s.Churned)
			start, end, settled, peak = append(start, s.StartKB), append(end, s.EndKB),
				append(settled, s.SettledKB), append(peak, s.PeakKB)
			slope, late = append(slope, s.SlopeKBPer1000), append(late, s.LateSlopeKBPer1000)
			bound = append(bound, r.BoundFit)
			fit = append(fit, r.CreatedFit)
			pending, big = append(pending, r.PendingAtDelete), append(big, r.BoundTooBig)
		}
		if len(start) == 0 {
			fmt.Fprintf(&b, "| %s | failed: see the log | | | | | | | | | |\n", name)
			continue
		}
		rows[name] = row{median(end), median(settled), medianFloat(slope)}
		mib := func(kb int64) string { return fmt.Sprintf("%.1f", float64(kb)/1024) }
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %.1f | %.1f | %d of %d | %d | %d |\n", name,
			median(churned), mib(median(start)), mib(median(end)), mib(median(settled)),
			mib(median(peak)), medianFloat(slope), medianFloat(late), median(bound), median(fit),
			median(pending), median(big))
	}
	// Ratios only between runs of this invocation: both schedulers saw the same cluster and load.
	if st, ok := rows["stowage"]; ok {
		if up, ok := rows["upstream"]; ok && up.end > 0 && up.settled > 0 {
			fmt.Fprintf(&b, "\nstowage against upstream in this run: RSS at the end of the churn %.2fx, "+
				"after it %.2fx; growth %.1f against %.1f KiB per 1000 pods.\n",
				float64(st.end)/float64(up.end), float64(st.settled)/float64(up.settled), st.slope, up.slope)
		}
	}
	return b.String()
}
