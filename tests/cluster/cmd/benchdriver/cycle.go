package main

// The API-free cycle benchmark's results (bench/cycle, Google Benchmark's JSON output), so the
// report shows them beside the runs against the apiserver.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// CycleResult is one benchmark: per-iteration (= per-pod) times in nanoseconds.
type CycleResult struct {
	Name       string
	RealNs     float64
	CPUNs      float64 // the benchmark thread only
	ProcessNs  float64 // every thread of the process (counter process_cpu_ns_per_pod); NaN if absent
	SnapshotNs float64 // wall time in UpdateSnapshot (counter update_snapshot_ns); NaN if absent
	ScheduleNs float64 // wall time in SchedulePod (counter schedule_pod_ns); NaN if absent
	Iterations int64
}

var unitNs = map[string]float64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}

// LoadCycle reads the iteration entries of a Google Benchmark JSON file.
func LoadCycle(path string) ([]CycleResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cycle benchmark output: %w", err)
	}
	var doc struct {
		Benchmarks []map[string]any `json:"benchmarks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []CycleResult
	for _, e := range doc.Benchmarks {
		if rt, _ := e["run_type"].(string); rt == "aggregate" {
			continue
		}
		unit, _ := e["time_unit"].(string)
		scale, ok := unitNs[unit]
		if !ok {
			return nil, fmt.Errorf("%s: unknown time_unit %q", path, unit)
		}
		name, _ := e["name"].(string)
		real, _ := e["real_time"].(float64)
		cpu, _ := e["cpu_time"].(float64)
		counter := func(key string) float64 {
			if v, ok := e[key].(float64); ok {
				return v
			}
			return math.NaN()
		}
		iters, _ := e["iterations"].(float64)
		out = append(out, CycleResult{Name: name, RealNs: real * scale, CPUNs: cpu * scale,
			ProcessNs: counter("process_cpu_ns_per_pod"), SnapshotNs: counter("update_snapshot_ns"),
			ScheduleNs: counter("schedule_pod_ns"), Iterations: int64(iters)})
	}
	return out, nil
}
