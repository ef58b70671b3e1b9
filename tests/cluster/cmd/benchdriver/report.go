package main

// The report: medians over the successful runs of each scheduler and workload, the ratios
// stowage/upstream and stowage/ceiling, every run's figures, the cycle benchmark, and the
// machine and command, as DIR/results.md; all runs as DIR/results.json; the plot as
// DIR/throughput.svg.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// ReportMeta says where and how the figures were made.
type ReportMeta struct {
	Command         string  `json:"command"`
	Commit          string  `json:"commit"`
	Machine         string  `json:"machine"`
	Date            string  `json:"date"`
	DurationSeconds float64 `json:"durationSeconds"`
	Cycle           string  `json:"-"` // path of bench_cycle's JSON output
}

// DescribeMachine is "N cores, <CPU model>, <RAM>, Linux <release>".
func DescribeMachine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%d cores (nproc), %s%s%s", runtime.NumCPU(), model, mem, kernel)
}

// LoadMeta reads the metadata of an earlier report in dir (results.json).
func LoadMeta(dir string) (ReportMeta, error) {
	var doc struct {
		Meta ReportMeta `json:"meta"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		return doc.Meta, err
	}
	err = json.Unmarshal(b, &doc)
	return doc.Meta, err
}

// LoadRuns reads DIR/runs/*.json in run order (start time).
func LoadRuns(dir string) ([]RunResult, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "runs", "*.json"))
	if err != nil {
		return nil, err
	}
	var runs []RunResult
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r RunResult
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs in %s", filepath.Join(dir, "runs"))
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].StartedAt < runs[j].StartedAt })
	return runs, nil
}

// Group is the runs of one workload and scheduler.
type Group struct {
	Workload, Scheduler string
	OK, Failed          []RunResult
}

// median of f over the successful runs; NaN when f is NaN for all (absent metric).
func (g *Group) median(f func(r RunResult) float64) float64 {
	var vs []float64
	for _, r := range g.OK {
		if v := f(r); !math.IsNaN(v) {
			vs = append(vs, v)
		}
	}
	return Median(vs)
}

// GroupRuns groups by workload (first-run order) and scheduler (ceiling, ceiling-events,
// upstream, stowage, then others by name).
func GroupRuns(runs []RunResult) (workloads []string, groups map[string][]*Group) {
	rank := map[string]int{"ceiling": 0, "ceiling-events": 1, "upstream": 2, "stowage": 3}
	groups = map[string][]*Group{}
	index := map[[2]string]*Group{}
	for _, r := range runs {
		if _, ok := groups[r.Workload]; !ok {
			workloads = append(workloads, r.Workload)
			groups[r.Workload] = nil
		}
		g := index[[2]string{r.Workload, r.Scheduler}]
		if g == nil {
			g = &Group{Workload: r.Workload, Scheduler: r.Scheduler}
			index[[2]string{r.Workload, r.Scheduler}] = g
			groups[r.Workload] = append(groups[r.Workload], g)
		}
		if r.Error == "" {
			g.OK = append(g.OK, r)
		} else {
			g.Failed = append(g.Failed, r)
		}
	}
	for _, gs := range groups {
		sort.SliceStable(gs, func(i, j int) bool {
			ri, oki := rank[gs[i].Scheduler]
			rj, okj := rank[gs[j].Scheduler]
			if oki != okj {
				return oki
			}
			if oki && ri != rj {
				return ri < rj
			}
			return gs[i].Scheduler < gs[j].Scheduler
		})
	}
	return workloads, groups
}

// WriteReport writes results.json, results.md, throughput.svg and, for a sweep, sweep.svg
// into dir.
func WriteReport(dir string, meta ReportMeta) error {
	runs, err := LoadRuns(dir)
	if err != nil {
		return err
	}
	workloads, groups := GroupRuns(runs)
	b, err := json.MarshalIndent(struct {
		Meta ReportMeta  `json:"meta"`
		Runs []RunResult `json:"runs"`
	}{meta, runs}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		return err
	}
	var cycle []CycleResult
	if meta.Cycle != "" {
		if cycle, err = LoadCycle(meta.Cycle); err != nil {
			return err
		}
	}
	md := Markdown(meta, workloads, groups, cycle)
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(md), 0o644); err != nil {
		return err
	}
	svg := ThroughputSVG(workloads, groups)
	if err := os.WriteFile(filepath.Join(dir, "throughput.svg"), []byte(svg), 0o644); err != nil {
		return err
	}
	if sweep := SweepSVG(workloads, groups); sweep != "" {
		return os.WriteFile(filepath.Join(dir, "sweep.svg"), []byte(sweep), 0o644)
	}
	return nil
}
