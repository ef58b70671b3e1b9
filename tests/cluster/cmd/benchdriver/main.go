// Command benchdriver runs stowage, upstream kube-scheduler and a round-robin binder (the
// apiserver's binding ceiling) one at a time over the scheduler_perf workloads of a workloads
// file, each run on a fresh test cluster, and writes the raw results (JSON), a markdown table
// and a throughput plot (SVG). scripts/bench is the one command that builds everything and
// calls it; see docs/benchmarks.md.
//
// Usage: benchdriver -workloads-file bench/workloads.yaml -out DIR [-set full|smoke]
//
//	[-workloads a,b] [-runs N] [-schedulers ceiling,upstream,stowage (and ceiling-events)] [-report-only] ...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/klog/v2"
)

func main() {
	wfile := flag.String("workloads-file", "bench/workloads.yaml", "workload definitions")
	names := flag.String("workloads", "", "comma-separated workload names (default: the set)")
	set := flag.String("set", "full", "workload set to run when -workloads is empty")
	runs := flag.Int("runs", 3, "runs per scheduler and workload")
	scheds := flag.String("schedulers", "ceiling,upstream,stowage",
		"schedulers, in run order (also ceiling-events: the binder posting kube-scheduler's Events)")
	out := flag.String("out", "", "output directory (required)")
	stowage := flag.String("stowage", "", "stowage binary")
	upstream := flag.String("upstream", "tests/cluster/bin/kube-scheduler", "kube-scheduler binary")
	binder := flag.String("binder", "tests/cluster/bin/benchbinder", "round-robin binder binary")
	testcluster := flag.String("testcluster", "tests/cluster/bin/testcluster", "testcluster binary")
	kcm := flag.String("kube-controller-manager", "",
		"kube-controller-manager binary, for workloads with volumes.pvController (default: beside -testcluster)")
	verbosity := flag.Int("v", 2, "log verbosity given to both schedulers (scheduler_perf uses 2)")
	workers := flag.Int("binder-workers", 16, "concurrent bindings of the ceiling binder")
	cycle := flag.String("cycle", "", "bench_cycle JSON output to include in the report")
	command := flag.String("command", "", "the command line to print in the report")
	commit := flag.String("commit", "", "source revision to print in the report")
	reportOnly := flag.Bool("report-only", false, "only rebuild the report from OUT/runs")
	flag.Parse()
	if *out == "" {
		fatal(fmt.Errorf("-out is required"))
	}
	meta := ReportMeta{Command: *command, Commit: *commit, Cycle: *cycle,
		Machine: DescribeMachine(), Date: time.Now().UTC().Format("2006-01-02 15:04 MST")}
	if *reportOnly {
		// Re-rendering keeps when, where and how the runs were made; flags given now win.
		if old, err := LoadMeta(*out); err == nil {
			cycle := meta.Cycle
			if *command != "" {
				old.Command = *command
			}
			if *commit != "" {
				old.Commit = *commit
			}
			meta, meta.Cycle = old, cycle
		}
		fatal(WriteReport(*out, meta))
		return
	}
	all, err := LoadWorkloads(*wfile)
	fatal(err)
	ws, err := SelectWorkloads(all, *names, *set)
	fatal(err)
	specs, err := Schedulers(strings.Split(*scheds, ","), map[string]string{
		"stowage": *stowage, "upstream": *upstream, "ceiling": *binder, "ceiling-events": *binder},
		*verbosity, *workers)
	fatal(err)
	if *runs < 1 {
		fatal(fmt.Errorf("-runs must be at least 1"))
	}
	if *kcm == "" {
		*kcm = filepath.Join(filepath.Dir(*testcluster), "kube-controller-manager")
	}
	env := RunEnv{TestCluster: *testcluster, WorkDir: filepath.Join(*out, "work"),
		LogDir: filepath.Join(*out, "logs"), ControllerManager: *kcm}
	for _, d := range []string{env.WorkDir, env.LogDir, filepath.Join(*out, "runs")} {
		fatal(os.MkdirAll(d, 0o755))
	}
	// client-go's own log lines (watch restarts and the like) go to a file, not the progress.
	klogFile, err := os.Create(filepath.Join(*out, "driver.log"))
	fatal(err)
	defer klogFile.Close()
	klog.LogToStderr(false)
	klog.SetOutput(klogFile)
	start := time.Now()
	total, done, failed := len(ws)**runs*len(specs), 0, 0
	for i := range ws {
		w := &ws[i]
		for run := 1; run <= *runs; run++ {
			for _, spec := range specs { // interleaved, so drift of a noisy machine hits all alike
				done++
				if w.Mode == ModeFailover && !spec.Metrics {
					// The binder has no leader election: two of them would both bind.
					fmt.Fprintf(os.Stderr, "[%d/%d] %s, %s: skipped (the failover mode runs schedulers "+
						"with leader election only)\n", done, total, w.Name, spec.Name)
					continue
				}
				fmt.Fprintf(os.Stderr, "[%d/%d %s] %s, %s, run %d ... ", done, total,
					time.Since(start).Round(time.Second), w.Name, spec.Name, run)
				r := RunOnce(env, w, spec, run)
				path := filepath.Join(*out, "runs", fmt.Sprintf("%s-%s-%d.json", w.Slug(), spec.Name, run))
				b, _ := json.MarshalIndent(r, "", "  ")
				fatal(os.WriteFile(path, b, 0o644))
				if r.Error != "" {
					failed++
					fmt.Fprintf(os.Stderr, "FAILED: %s\n", r.Error)
					continue
				}
				if f := r.Failover; f != nil {
					fmt.Fprintf(os.Stderr, "%s, load %.1f-%.1f\n", f.Summary(), r.LoadAvg[0], r.LoadAvg[1])
					continue
				}
				fmt.Fprintf(os.Stderr, "%.0f pods/s average, %.0f elapsed, creator %.0f/s, "+
					"CPU %.2f s/1000 pods, load %.1f-%.1f\n", r.Throughput.Average, r.ElapsedRate,
					r.CreatorRate, r.CPUPer1000Pods, r.LoadAvg[0], r.LoadAvg[1])
			}
		}
	}
	_ = os.RemoveAll(env.WorkDir)
	meta.DurationSeconds = time.Since(start).Seconds()
	fatal(WriteReport(*out, meta))
	fmt.Fprintf(os.Stderr, "benchdriver: %d runs in %s; report: %s\n", total,
		time.Since(start).Round(time.Second), filepath.Join(*out, "results.md"))
	if failed > 0 {
		fatal(fmt.Errorf("%d of %d runs failed (see the report)", failed, total))
	}
}

func fatal(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchdriver:", err)
		os.Exit(1)
	}
}

// Schedulers builds the specs in the order given. Both real schedulers get the same flags: the
// configuration file, a secure port on loopback with /metrics open, and the same -v.
func Schedulers(order []string, binaries map[string]string, verbosity, workers int) ([]SchedulerSpec, error) {
	serving := func(cfg string, port int) []string {
		return []string{"--config=" + cfg, fmt.Sprintf("--secure-port=%d", port),
			"--bind-address=127.0.0.1",
			"--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
			fmt.Sprintf("-v=%d", verbosity)}
	}
	var out []SchedulerSpec
	for _, name := range order {
		name = strings.TrimSpace(name)
		bin := binaries[name]
		if bin == "" {
			return nil, fmt.Errorf("scheduler %q: unknown, or its binary flag is empty", name)
		}
		if st, err := os.Stat(bin); err != nil || st.IsDir() {
			return nil, fmt.Errorf("scheduler %q: binary %s not found", name, bin)
		}
		binder := name == "ceiling" || name == "ceiling-events"
		spec := SchedulerSpec{Name: name, Binary: bin, Metrics: !binder, Args: serving}
		if binder {
			// ceiling-events also makes kube-scheduler's other writes: the Scheduled Event per
			// binding and, for a pod with claims, the nomination before PreBind.
			events := name == "ceiling-events"
			spec.Args = func(cfg string, _ int) []string {
				return []string{"--config=" + cfg, fmt.Sprintf("--workers=%d", workers),
					fmt.Sprintf("--events=%v", events), fmt.Sprintf("--nominate=%v", events)}
			}
		}
		out = append(out, spec)
	}
	return out, nil
}
