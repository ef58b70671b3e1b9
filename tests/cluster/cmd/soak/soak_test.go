package main

import (
	"math"
	"strings"
	"testing"
)

// A steady 2 KiB per pod reads as 2000 KiB per thousand, and one wild sample barely moves it.
func TestSummarizeSlopeIsRobust(t *testing.T) {
	var s []Sample
	s = append(s, Sample{RSSKB: 1000, Phase: "start"}, Sample{Churned: 10, RSSKB: 99999, Phase: "warmup"})
	for i := int64(0); i < 20; i++ {
		kb := 20000 + 2*i*100
		if i == 7 {
			kb += 50000
		}
		s = append(s, Sample{Churned: 100 + i*100, RSSKB: kb, Phase: "churn"})
	}
	s = append(s, Sample{Churned: 2100, RSSKB: 23000, Phase: "settle"}, Sample{Churned: 2100, RSSKB: 23800, Phase: "settle"})
	got := Summarize(s)
	if math.Abs(got.SlopeKBPer1000-2000) > 1 {
		t.Errorf("slope %.1f KiB per 1000 pods, want 2000", got.SlopeKBPer1000)
	}
	if got.StartKB != 20200 || got.EndKB != 23600 || got.SettledKB != 23400 || got.PeakKB != 99999 {
		t.Errorf("start %d end %d settled %d peak %d", got.StartKB, got.EndKB, got.SettledKB, got.PeakKB)
	}
	if math.Abs(got.LateSlopeKBPer1000-2000) > 1 {
		t.Errorf("second-half slope %.1f, want 2000", got.LateSlopeKBPer1000)
	}
	if got.Churned != 1900 {
		t.Errorf("churned %d, want 1900 (after the warm-up)", got.Churned)
	}
}

// A heap that stops growing halfway shows a flat second half.
func TestSummarizeLateSlopeSeesALevelledHeap(t *testing.T) {
	var s []Sample
	for i := int64(0); i < 20; i++ {
		kb := 20000 + min(i, 10)*500
		s = append(s, Sample{Churned: i * 100, RSSKB: kb, Phase: "churn"})
	}
	if got := Summarize(s); got.LateSlopeKBPer1000 != 0 || got.SlopeKBPer1000 <= 0 {
		t.Errorf("slope %.1f, second half %.1f", got.SlopeKBPer1000, got.LateSlopeKBPer1000)
	}
}

// The mix is a tenth too big and a third of the rest (about) spread.
func TestKindMix(t *testing.T) {
	n := map[Kind]int{}
	for i := 0; i < 3000; i++ {
		n[KindAt(i)]++
	}
	if n[TooBig] != 300 || n[Spread] < 900 || n[Spread] > 1000 {
		t.Errorf("mix %v", n)
	}
	p := PodAt("ns", "x", 3)
	if p.Spec.Affinity == nil || len(p.Spec.TopologySpreadConstraints) != 1 {
		t.Errorf("pod 3 should be spread: %+v", p.Spec)
	}
}

// The report gives one row per scheduler and the ratio of stowage to upstream from the same run.
func TestReportComparesTheSchedulersOfOneRun(t *testing.T) {
	o := options{order: []string{"stowage", "upstream"}, runs: 1, nodes: 100, rate: 40}
	results := []Result{
		{Scheduler: "stowage", Summary: Summary{StartKB: 20480, EndKB: 20480, SettledKB: 20480, SlopeKBPer1000: 1.5}},
		{Scheduler: "upstream", Summary: Summary{StartKB: 81920, EndKB: 81920, SettledKB: 102400, SlopeKBPer1000: 40}},
	}
	got := Report(results, o)
	for _, want := range []string{"| stowage |", "| upstream |", "RSS at the end of the churn 0.25x, after it 0.20x",
		"growth 1.5 against 40.0 KiB per 1000 pods"} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}
