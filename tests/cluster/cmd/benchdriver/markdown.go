package main

// results.md: one table per workload (medians of the successful runs), the ratios, each run's
// figures, failures with their reasons, and the cycle benchmark.

import (
	"fmt"
	"math"
	"strings"
)

func num(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

func ratio(a, b float64) string {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func attemptP(q int) func(r RunResult) float64 {
	return func(r RunResult) float64 {
		if r.AttemptLatency == nil {
			return math.NaN()
		}
		if q == 50 {
			return r.AttemptLatency.P50Ms
		}
		return r.AttemptLatency.P99Ms
	}
}

func algorithmP(q int) func(r RunResult) float64 {
	return func(r RunResult) float64 {
		if r.AlgorithmLatency == nil {
			return math.NaN()
		}
		if q == 50 {
			return r.AlgorithmLatency.P50Ms
		}
		return r.AlgorithmLatency.P99Ms
	}
}

// tp reads a throughput figure; NaN when the phase was too short for any 1 s sample.
func tp(f func(t Throughput) float64) func(r RunResult) float64 {
	return func(r RunResult) float64 {
		if r.Throughput.Samples == 0 {
			return math.NaN()
		}
		return f(r.Throughput)
	}
}

var average = tp(func(t Throughput) float64 { return t.Average })

func cpu(r RunResult) float64    { return r.CPUPer1000Pods }
func rssMiB(r RunResult) float64 { return float64(r.PeakRSSBytes) / (1 << 20) }

// Markdown renders the report.
func Markdown(meta ReportMeta, workloads []string, groups map[string][]*Group, cycle []CycleResult) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# stowage benchmark results\n\n")
	p("* date: %s\n* machine: %s\n", meta.Date, meta.Machine)
	if meta.Commit != "" {
		p("* source: %s\n", meta.Commit)
	}
	if meta.Command != "" {
		p("* command: `%s`\n", meta.Command)
	}
	if meta.DurationSeconds > 0 {
		p("* duration of the API runs: %.1f min\n", meta.DurationSeconds/60)
	}
	p("\nEach figure is the median over the successful runs (n). pods/s are scheduler_perf's " +
		"SchedulingThroughput (1 s samples of the measured pods' bindings: Average, Perc50-99; " +
		"n/a when the phase was over before a second sample); " +
		"elapsed = measured pods / (start of the measured phase to last binding). Mode stream " +
		"creates the measured pods while the scheduler runs (scheduler_perf); backlog creates " +
		"them all with the scheduler stopped, then starts it again (its whole second life is " +
		"measured). CPU and apiserver CPU are " +
		"seconds per 1000 measured pods during the measured phase; peak RSS is VmHWM. Latencies " +
		"come from each scheduler's own /metrics (delta over the measured phase; attempt = " +
		"result=\"scheduled\"); n/a = the scheduler does not serve that metric.\n")
	for _, wl := range workloads {
		gs := groups[wl]
		if len(gs) == 0 {
			continue
		}
		first := firstRun(gs)
		if first.Mode == ModeFailover {
			b.WriteString(FailoverMarkdown(wl, gs)) // failover.go
			continue
		}
		p("\n## %s\n\n%d nodes, %d init pods, %d measured pods, client qps %d / burst %d, "+
			"mode %s\n\n", wl, first.Nodes, first.InitPods, first.MeasurePods, first.QPS,
			first.Burst, first.Mode)
		p("| scheduler | n | pods/s Average | Perc50 | Perc90 | Perc95 | Perc99 | elapsed pods/s " +
			"| CPU s/1000 pods | peak RSS MiB | attempt p50 / p99 ms | algorithm p50 / p99 ms " +
			"| start to 1st binding s | creator pods/s | apiserver CPU s/1000 pods |\n")
		p("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		byName := map[string]*Group{}
		for _, g := range gs {
			byName[g.Scheduler] = g
			m := g.median
			p("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s | %s | %s |\n",
				g.Scheduler, len(g.OK), num(m(average), 0),
				num(m(tp(func(t Throughput) float64 { return t.Perc50 })), 0),
				num(m(tp(func(t Throughput) float64 { return t.Perc90 })), 0),
				num(m(tp(func(t Throughput) float64 { return t.Perc95 })), 0),
				num(m(tp(func(t Throughput) float64 { return t.Perc99 })), 0),
				num(m(func(r RunResult) float64 { return r.ElapsedRate }), 0),
				num(m(cpu), 2), num(m(rssMiB), 0),
				num(m(attemptP(50)), 2), num(m(attemptP(99)), 2),
				num(m(algorithmP(50)), 2), num(m(algorithmP(99)), 2),
				num(m(func(r RunResult) float64 { return r.StartToFirstBinding }), 2),
				num(m(func(r RunResult) float64 { return r.CreatorRate }), 0),
				num(m(func(r RunResult) float64 { return r.APIServerCPUPer1000Pods }), 2))
		}
		if s, u, c := byName["stowage"], byName["upstream"], byName["ceiling"]; s != nil {
			p("\n")
			if u != nil {
				p("stowage / upstream: pods/s %s, CPU per pod %s, peak RSS %s.  ",
					ratio(s.median(average), u.median(average)), ratio(s.median(cpu), u.median(cpu)),
					ratio(s.median(rssMiB), u.median(rssMiB)))
			}
			if c != nil {
				p("stowage / ceiling: pods/s %s.  ", ratio(s.median(average), c.median(average)))
			}
			if ce := byName["ceiling-events"]; ce != nil {
				p("stowage / ceiling-events: pods/s %s.", ratio(s.median(average), ce.median(average)))
			}
			p("\n")
		}
		var bound []string
		for _, g := range gs {
			for _, r := range g.OK {
				if r.Mode == ModeStream && r.CreatorRate < 1.5*r.ElapsedRate {
					bound = append(bound, fmt.Sprintf("%s #%d (%.0f created/s, %.0f bound/s)",
						g.Scheduler, r.Run, r.CreatorRate, r.ElapsedRate))
				}
			}
		}
		if len(bound) > 0 {
			p("\nCreation was not well ahead of scheduling (creator < 1.5 x elapsed pods/s) in: %s. In "+
				"stream mode creation and binding share the apiserver; see the backlog mode.\n",
				strings.Join(bound, ", "))
		}
		p("\nRuns (Average pods/s, elapsed pods/s, CPU s/1000 pods, peak RSS MiB, machine load " +
			"average at the start and end of the measured phase):\n\n")
		for _, g := range gs {
			var parts []string
			for _, r := range g.OK {
				part := fmt.Sprintf("#%d %.0f, %.0f, %.2f, %.0f, load %.1f-%.1f", r.Run,
					r.Throughput.Average, r.ElapsedRate, r.CPUPer1000Pods, rssMiB(r),
					r.LoadAvg[0], r.LoadAvg[1])
				if r.Mode == ModeBacklog {
					part += fmt.Sprintf(", restart to 1st binding %.2f s", r.BacklogStartToFirstBinding)
				}
				parts = append(parts, part)
			}
			for _, r := range g.Failed {
				msg := strings.SplitN(r.Error, "\n", 2)[0]
				parts = append(parts, fmt.Sprintf("#%d FAILED: %s", r.Run, msg))
			}
			note := ""
			if len(g.OK) > 0 && g.OK[0].MetricsNote != "" {
				note = " (" + g.OK[0].MetricsNote + ")"
			}
			p("* %s: %s%s\n", g.Scheduler, strings.Join(parts, "; "), note)
		}
		if first.Mode == ModeRelist {
			b.WriteString(RelistMarkdown(gs)) // relist.go
		}
	}
	b.WriteString(SweepMarkdown(workloads, groups)) // sweep.go
	if len(cycle) > 0 {
		p("\n## Scheduling cycle without the API (bench_cycle)\n\n")
		p("Google Benchmark, one iteration = one pod through UpdateSnapshot + Algorithm::SchedulePod " +
			"+ AssumePod on a synthetic snapshot with the default plugins.\n\n")
		p("| benchmark | wall us/pod | CPU us/pod (all threads) | UpdateSnapshot us | SchedulePod us " +
			"| iterations |\n|---|---|---|---|---|---|\n")
		for _, c := range cycle {
			p("| %s | %.0f | %s | %s | %s | %d |\n", c.Name, c.RealNs/1e3, num(c.ProcessNs/1e3, 0),
				num(c.SnapshotNs/1e3, 0), num(c.ScheduleNs/1e3, 0), c.Iterations)
		}
	}
	return b.String()
}

func firstRun(gs []*Group) RunResult {
	for _, g := range gs {
		if len(g.OK) > 0 {
			return g.OK[0]
		}
		if len(g.Failed) > 0 {
			return g.Failed[0]
		}
	}
	return RunResult{}
}
