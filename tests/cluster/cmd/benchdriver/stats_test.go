package main

import (
	"math"
	"testing"
)

func TestSummarizeThroughputIndexesAsSchedulerPerf(t *testing.T) {
	// Ten samples 10..100: PercN = sorted[ceil(10*N/100)-1].
	s := []float64{100, 90, 80, 70, 60, 50, 40, 30, 20, 10}
	got := SummarizeThroughput(s)
	want := Throughput{Average: 55, Perc50: 50, Perc90: 90, Perc95: 100, Perc99: 100, Samples: 10}
	if got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if s[0] != 100 {
		t.Fatalf("input was reordered: %v", s)
	}
	if z := SummarizeThroughput(nil); z.Samples != 0 || z.Average != 0 {
		t.Fatalf("no samples: got %+v", z)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) should be NaN")
	}
}

func TestHistogramQuantileInterpolatesLikePrometheus(t *testing.T) {
	inf := math.Inf(1)
	// 10 observations <= 0.001, 30 more <= 0.002, 60 more <= 0.004, none above.
	b := []Bucket{{0.001, 10}, {0.002, 40}, {0.004, 100}, {inf, 100}}
	for _, c := range []struct{ q, want float64 }{
		{0.05, 0.0005},                    // first bucket starts at 0
		{0.25, 0.0015},                    // rank 25: halfway through (0.001, 0.002]
		{0.5, 0.002 + 0.002*(10.0/60.0)},  // rank 50: 10 of 60 into (0.002, 0.004]
		{0.99, 0.002 + 0.002*(59.0/60.0)}, // rank 99
	} {
		if got := HistogramQuantile(c.q, b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("q=%v: got %v, want %v", c.q, got, c.want)
		}
	}
	// Observations beyond the last finite bound answer that bound.
	over := []Bucket{{0.001, 1}, {0.002, 2}, {inf, 10}}
	if got := HistogramQuantile(0.99, over); got != 0.002 {
		t.Errorf("+Inf bucket: got %v, want 0.002", got)
	}
	if !math.IsNaN(HistogramQuantile(0.5, []Bucket{{0.001, 0}, {inf, 0}})) {
		t.Error("empty histogram should be NaN")
	}
}
