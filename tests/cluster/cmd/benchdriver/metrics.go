package main

// Reading a scheduler's own /metrics (Prometheus text format) over HTTPS: histograms only, the
// series matching a label selector summed, and the difference between two scrapes so the
// quantiles cover the measured phase alone.

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Histogram is a cumulative histogram: upper bound -> count, with its count and sum.
type Histogram struct {
	Buckets map[float64]float64
	Count   float64
	Sum     float64
}

// Sub is h - before, bucket by bucket (the scheduler's counters only grow).
func (h Histogram) Sub(before Histogram) Histogram {
	out := Histogram{Buckets: map[float64]float64{}, Count: h.Count - before.Count, Sum: h.Sum - before.Sum}
	for le, c := range h.Buckets {
		out.Buckets[le] = c - before.Buckets[le]
	}
	return out
}

// Quantile of the histogram (NaN when empty); a missing +Inf bucket is the total count.
func (h Histogram) Quantile(q float64) float64 {
	bs := make([]Bucket, 0, len(h.Buckets)+1)
	for le, c := range h.Buckets {
		bs = append(bs, Bucket{UpperBound: le, Count: c})
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].UpperBound < bs[j].UpperBound })
	if len(bs) == 0 || !math.IsInf(bs[len(bs)-1].UpperBound, 1) {
		bs = append(bs, Bucket{UpperBound: math.Inf(1), Count: h.Count})
	}
	return HistogramQuantile(q, bs)
}

// parseSample splits `name{a="x",b="y"} value [ts]` into its parts.
func parseSample(line string) (name string, labels map[string]string, value float64, ok bool) {
	labels = map[string]string{}
	rest := line
	if i := strings.IndexAny(line, "{ "); i < 0 {
		return "", nil, 0, false
	} else if line[i] == '{' {
		name = line[:i]
		rest = line[i+1:]
		for {
			rest = strings.TrimLeft(rest, " ,")
			if strings.HasPrefix(rest, "}") {
				rest = rest[1:]
				break
			}
			eq := strings.Index(rest, "=\"")
			if eq < 0 {
				return "", nil, 0, false
			}
			key := rest[:eq]
			rest = rest[eq+2:]
			var val strings.Builder
			closed := false
			for j := 0; j < len(rest); j++ {
				if rest[j] == '\\' && j+1 < len(rest) {
					j++
					switch rest[j] {
					case 'n':
						val.WriteByte('\n')
					default:
						val.WriteByte(rest[j])
					}
					continue
				}
				if rest[j] == '"' {
					rest, closed = rest[j+1:], true
					break
				}
				val.WriteByte(rest[j])
			}
			if !closed {
				return "", nil, 0, false
			}
			labels[key] = val.String()
		}
	} else {
		name = line[:i]
		rest = line[i:]
	}
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", nil, 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return "", nil, 0, false
	}
	return name, labels, v, true
}

// labelsMatch reports whether labels hold every label of selector with its value.
func labelsMatch(labels, selector map[string]string) bool {
	for k, want := range selector {
		if labels[k] != want {
			return false
		}
	}
	return true
}

// ParseHistogram sums every series of histogram `name` whose labels include selector. found
// is false when no series matched.
func ParseHistogram(text, name string, selector map[string]string) (h Histogram, found bool) {
	h.Buckets = map[float64]float64{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == '#' || !strings.HasPrefix(line, name+"_") {
			continue
		}
		n, labels, v, ok := parseSample(line)
		if !ok {
			continue
		}
		if !labelsMatch(labels, selector) {
			continue
		}
		switch n {
		case name + "_bucket":
			le, err := strconv.ParseFloat(labels["le"], 64) // "+Inf" parses as +Inf
			if err != nil {
				continue
			}
			h.Buckets[le] += v
			found = true
		case name + "_count":
			h.Count += v
			found = true
		case name + "_sum":
			h.Sum += v
		}
	}
	return h, found
}

// Scraper fetches https://127.0.0.1:<port>/metrics. The schedulers serve a self-signed
// certificate, so verification is skipped (loopback only). An anonymous request is tried
// first; on 401/403 the admin token is sent.
type Scraper struct {
	URL   string
	Token string
	hc    *http.Client
}

// NewScraper for the scheduler serving on port.
func NewScraper(port int, token string) *Scraper { return NewScraperPath(port, token, "/metrics") }

// NewScraperPath fetches another path of the scheduler's secure port (e.g. /readyz).
func NewScraperPath(port int, token, path string) *Scraper {
	return &Scraper{
		URL:   fmt.Sprintf("https://127.0.0.1:%d%s", port, path),
		Token: token,
		hc: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}},
	}
}

// Scrape returns the metrics text.
func (s *Scraper) Scrape(ctx context.Context) (string, error) {
	body, code, err := s.get(ctx, "")
	if err == nil && (code == http.StatusUnauthorized || code == http.StatusForbidden) {
		body, code, err = s.get(ctx, s.Token)
	}
	if err != nil {
		return "", err
	}
	if code != http.StatusOK {
		return "", fmt.Errorf("GET %s: HTTP %d: %.200s", s.URL, code, body)
	}
	return body, nil
}

func (s *Scraper) get(ctx context.Context, token string) (string, int, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", s.URL, nil)
	if err != nil {
		return "", 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("GET %s: %w", s.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return string(b), resp.StatusCode, err
}
