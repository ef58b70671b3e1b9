package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sweepRun(shape, wl, sched string, nodes int, cpuPer1000 float64, rssMiB int64) RunResult {
	return RunResult{Workload: wl, Scheduler: sched, Sweep: shape, Nodes: nodes, Mode: ModeBacklog,
		CPUPer1000Pods: cpuPer1000, PeakRSSBytes: rssMiB << 20}
}

func TestSweepGathersEachShapeByNodeCount(t *testing.T) {
	runs := []RunResult{
		sweepRun("Basic", "Sweep/Basic/15000Nodes", "upstream", 15000, 4, 400),
		sweepRun("Basic", "Sweep/Basic/15000Nodes", "stowage", 15000, 1, 100),
		sweepRun("Basic", "Sweep/Basic/5000Nodes", "upstream", 5000, 2, 200),
		sweepRun("Basic", "Sweep/Basic/5000Nodes", "stowage", 5000, 0.5, 50),
		sweepRun("Spread", "Sweep/Spread/5000Nodes", "stowage", 5000, 3, 60),
		{Workload: "SchedulingBasic/500Nodes", Scheduler: "stowage", Nodes: 500},
	}
	workloads, groups := GroupRuns(runs)
	shapes, points := sweepShapes(workloads, groups)
	if strings.Join(shapes, ",") != "Basic,Spread" {
		t.Fatalf("shapes %v, want Basic,Spread (a workload without sweep is left out)", shapes)
	}
	var order []string
	for _, pt := range points["Basic"] {
		order = append(order, pt.scheduler+"@"+strings.TrimSuffix(strings.TrimSpace(
			strings.Split(pt.g.Workload, "/")[2]), "Nodes"))
	}
	if got := strings.Join(order, " "); got != "upstream@5000 stowage@5000 upstream@15000 stowage@15000" {
		t.Fatalf("points in order %q, want node count first, then the groups' order", got)
	}
	md := SweepMarkdown(workloads, groups)
	// stowage / upstream at 15000 nodes: CPU 1/4, RSS 100/400.
	if !strings.Contains(md, "| 15000 | stowage | 1 | n/a | 0 | 1.000 | 100 |") ||
		!strings.Contains(md, "| 0.25, 0.25 |") {
		t.Fatalf("sweep table lacks the 15000-node stowage row or its ratios:\n%s", md)
	}
	svg := SweepSVG(workloads, groups)
	if n := strings.Count(svg, "<polyline"); n != 2*2+2*1 {
		t.Fatalf("%d lines, want one per scheduler and metric of each shape (6)", n)
	}
	if SweepMarkdown(workloads[len(workloads)-1:], groups) != "" {
		t.Fatal("a run without a sweep shape made a sweep section")
	}
}

func TestRelistModeIsAcceptedButNotWithChurn(t *testing.T) {
	dir := t.TempDir()
	write := func(extra string) error {
		path := filepath.Join(dir, "w.yaml")
		body := "workloads:\n- name: R\n  mode: relist\n  nodes: 1\n  initPods: 1\n  measurePods: 1\n" +
			"  qps: 1\n  burst: 1\n  timeoutSeconds: 10\n" + extra
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadWorkloads(path)
		return err
	}
	if err := write(""); err != nil {
		t.Fatalf("relist mode refused: %v", err)
	}
	err := write("  churnTemplate: {}\n  churnIntervalMilliseconds: 100\n")
	if err == nil || !strings.Contains(err.Error(), "relist mode has no creation phase") {
		t.Fatalf("churn in relist mode: got %v, want an error naming the relist mode", err)
	}
}
