package main

// RSS samples of the scheduler under test and what they say per thousand pods churned.

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Sample is the scheduler's resident set at one moment of its run.
type Sample struct {
	Seconds float64 // since the churn started (negative before it)
	Churned int64   // pods created and deleted so far
	RSSKB   int64   // VmRSS
	Phase   string  // "start", "warmup", "churn" or "settle"
}

// RSSKB is VmRSS of the process, in KiB.
func RSSKB(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}

// Summary is one run's memory under churn.
type Summary struct {
	StartKB, EndKB, SettledKB, PeakKB int64
	// SlopeKBPer1000 is RSS growth per thousand pods churned after the warm-up: the median of
	// the slopes between every two samples (Theil-Sen), so one noisy sample moves it little.
	SlopeKBPer1000 float64
	// LateSlopeKBPer1000 is the same over the second half of those samples: a leak keeps its
	// slope, a heap that is still warming up (glibc's caches, Go's heap) flattens.
	LateSlopeKBPer1000 float64
	Churned            int64 // pods churned after the warm-up
}

// Summarize takes the start as the median of the first three churn samples after the warm-up,
// the end as the median of the last three, and the settled size as the median of the samples
// taken after the churn stopped.
func Summarize(samples []Sample) Summary {
	var churn, settle []Sample
	var s Summary
	for _, x := range samples {
		if x.RSSKB > s.PeakKB {
			s.PeakKB = x.RSSKB
		}
		switch x.Phase {
		case "churn":
			churn = append(churn, x)
		case "settle":
			settle = append(settle, x)
		}
	}
	if len(churn) == 0 {
		return s
	}
	rss := func(xs []Sample) []int64 {
		out := make([]int64, len(xs))
		for i, x := range xs {
			out[i] = x.RSSKB
		}
		return out
	}
	k := min(3, len(churn))
	s.StartKB = median(rss(churn[:k]))
	s.EndKB = median(rss(churn[len(churn)-k:]))
	if len(settle) > 0 {
		s.SettledKB = median(rss(settle))
	}
	s.Churned = churn[len(churn)-1].Churned - churn[0].Churned
	s.SlopeKBPer1000 = theilSen(churn)
	s.LateSlopeKBPer1000 = theilSen(churn[len(churn)/2:])
	return s
}

// theilSen is the median of the slopes between every two samples, in KiB per 1000 pods.
func theilSen(xs []Sample) float64 {
	var slopes []float64
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			if dp := xs[j].Churned - xs[i].Churned; dp > 0 {
				slopes = append(slopes, float64(xs[j].RSSKB-xs[i].RSSKB)*1000/float64(dp))
			}
		}
	}
	return medianFloat(slopes)
}

func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int64(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianFloat(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
