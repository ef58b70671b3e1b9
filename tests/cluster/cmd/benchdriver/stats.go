package main

// The arithmetic of the report: scheduler_perf's throughput summary, medians across runs, and
// quantiles from cumulative histogram buckets as Prometheus' histogram_quantile (and
// component-base's testutil) compute them.

import (
	"math"
	"sort"
)

// Throughput is scheduler_perf's SchedulingThroughput DataItem (pods/s).
type Throughput struct {
	Average float64 `json:"average"`
	Perc50  float64 `json:"perc50"`
	Perc90  float64 `json:"perc90"`
	Perc95  float64 `json:"perc95"`
	Perc99  float64 `json:"perc99"`
	Samples int     `json:"samples"`
}

// SummarizeThroughput: Average is the mean, PercN is sorted[ceil(len*N/100)-1]. No samples
// (the phase took under two seconds) gives zeros with Samples 0.
func SummarizeThroughput(samples []float64) Throughput {
	n := len(samples)
	if n == 0 {
		return Throughput{}
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	perc := func(p int) float64 { return s[int(math.Ceil(float64(n*p)/100))-1] }
	return Throughput{Average: sum / float64(n), Perc50: perc(50), Perc90: perc(90),
		Perc95: perc(95), Perc99: perc(99), Samples: n}
}

// Median of the values; NaN for none. An even count averages the middle two.
func Median(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Bucket is one cumulative histogram bucket.
type Bucket struct {
	UpperBound float64
	Count      float64
}

// HistogramQuantile is the q-quantile of cumulative buckets sorted by bound, the last being
// +Inf: linear interpolation inside the bucket holding rank q*total, the first bucket starting
// at 0, and the +Inf bucket answering the previous bound. NaN when there are no observations.
func HistogramQuantile(q float64, buckets []Bucket) float64 {
	if len(buckets) < 2 || buckets[len(buckets)-1].Count == 0 {
		return math.NaN()
	}
	rank := q * buckets[len(buckets)-1].Count
	b := sort.Search(len(buckets)-1, func(i int) bool { return buckets[i].Count >= rank })
	if b == 0 {
		return buckets[0].UpperBound * (rank / buckets[0].Count)
	}
	if b == len(buckets)-1 && math.IsInf(buckets[b].UpperBound, 1) {
		return buckets[len(buckets)-2].UpperBound
	}
	inBucket := buckets[b].Count - buckets[b-1].Count
	width := buckets[b].UpperBound - buckets[b-1].UpperBound
	return buckets[b-1].UpperBound + width*((rank-buckets[b-1].Count)/inBucket)
}
