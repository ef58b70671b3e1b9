package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const scrape1 = `# HELP scheduler_scheduling_attempt_duration_seconds [STABLE] Scheduling attempt latency
# TYPE scheduler_scheduling_attempt_duration_seconds histogram
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.001"} 10
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.002"} 20
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="+Inf"} 20
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="scheduled"} 0.02
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="scheduled"} 20
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="0.001"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="0.002"} 0
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="unschedulable",le="+Inf"} 7
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="unschedulable"} 7
scheduler_scheduling_algorithm_duration_seconds_bucket{le="0.001"} 5
scheduler_scheduling_algorithm_duration_seconds_bucket{le="+Inf"} 5
scheduler_scheduling_algorithm_duration_seconds_count 5
scheduler_scheduling_algorithm_duration_seconds_sum 0.001
`

const scrape2 = `scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.001"} 10
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="0.002"} 120
scheduler_scheduling_attempt_duration_seconds_bucket{profile="default-scheduler",result="scheduled",le="+Inf"} 120
scheduler_scheduling_attempt_duration_seconds_sum{profile="default-scheduler",result="scheduled"} 0.17
scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="scheduled"} 120
`

func TestParseHistogramSelectsAndSums(t *testing.T) {
	h, ok := ParseHistogram(scrape1, "scheduler_scheduling_attempt_duration_seconds",
		map[string]string{"result": "scheduled"})
	if !ok || h.Count != 20 || h.Buckets[0.002] != 20 || h.Buckets[math.Inf(1)] != 20 || h.Sum != 0.02 {
		t.Fatalf("scheduled series: ok=%v %+v", ok, h)
	}
	all, _ := ParseHistogram(scrape1, "scheduler_scheduling_attempt_duration_seconds", nil)
	if all.Count != 27 || all.Buckets[math.Inf(1)] != 27 {
		t.Fatalf("all series summed: %+v", all)
	}
	alg, ok := ParseHistogram(scrape1, "scheduler_scheduling_algorithm_duration_seconds", nil)
	if !ok || alg.Count != 5 {
		t.Fatalf("unlabelled count line: ok=%v %+v", ok, alg)
	}
	if _, ok := ParseHistogram(scrape1, "scheduler_missing_seconds", nil); ok {
		t.Fatal("an absent histogram was reported found")
	}
}

func TestLatencyCoversOnlyTheDelta(t *testing.T) {
	l := latency(scrape1, scrape2, "scheduler_scheduling_attempt_duration_seconds",
		map[string]string{"result": "scheduled"})
	if l == nil {
		t.Fatal("no latency")
	}
	// The 100 new observations all fell in (0.001, 0.002]: p50 is halfway through it.
	if l.Count != 100 || math.Abs(l.P50Ms-1.5) > 1e-9 || math.Abs(l.AvgMs-1.5) > 1e-9 {
		t.Fatalf("got %+v", *l)
	}
	if latency(scrape1, scrape2, "scheduler_scheduling_algorithm_duration_seconds", nil) != nil {
		t.Fatal("a histogram missing from the second scrape must be n/a")
	}
}

func TestParseSampleHandlesEscapes(t *testing.T) {
	n, l, v, ok := parseSample(`m{a="x\"y",b="z,}"} 3.5 1700000000`)
	if !ok || n != "m" || l["a"] != `x"y` || l["b"] != "z,}" || v != 3.5 {
		t.Fatalf("got %q %v %v %v", n, l, v, ok)
	}
}

func TestMergePatchAndTemplates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.yaml")
	yaml := `workloads:
- name: A
  sets: [x]
  nodes: 3
  initPods: 1
  measurePods: 2
  qps: 10
  burst: 20
  timeoutSeconds: 60
  nodeLabelsByIndex: {zone: [z1, z2]}
  podTemplate:
    metadata: {labels: {app: a}}
    spec: {priority: 7}
`
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := LoadWorkloads(path)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := ws[0].Templates()
	if err != nil {
		t.Fatal(err)
	}
	n := ws[0].NodeAt(tm, 3)
	if n.Name != "scheduler-perf-00003" || n.Labels["zone"] != "z2" ||
		n.Status.Capacity.Cpu().String() != "4" || n.Status.Conditions[0].Type != "Ready" {
		t.Fatalf("node: %+v", n)
	}
	p := PodAt(tm.Pod, "ns", 5)
	req := p.Spec.Containers[0].Resources.Requests
	if p.Name != "pod-000005" || p.Namespace != "ns" || p.Labels["app"] != "a" ||
		*p.Spec.Priority != 7 || req.Cpu().String() != "100m" || req.Memory().String() != "500Mi" {
		t.Fatalf("pod: %+v", p)
	}
	if tm.InitPods[0].Labels["app"] != "a" {
		t.Fatal("the init pod should default to the measured pod's patch")
	}
	if _, err := SelectWorkloads(ws, "B", ""); err == nil || !strings.Contains(err.Error(), "known: A") {
		t.Fatalf("unknown name: %v", err)
	}
	bad := strings.Replace(yaml, "priority: 7", "prority: 7", 1)
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, _ = LoadWorkloads(path)
	if _, err := ws[0].Templates(); err == nil || !strings.Contains(err.Error(), "prority") {
		t.Fatalf("a misspelt template field must be an error, got %v", err)
	}
	if got := MergePatch(map[string]any{"a": 1.0, "b": 2.0}, map[string]any{"a": nil, "c": 3.0}); len(got.(map[string]any)) != 2 {
		t.Fatalf("null deletes: %v", got)
	}
}
