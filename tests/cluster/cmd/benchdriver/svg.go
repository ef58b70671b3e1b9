package main

// throughput.svg: one panel per workload, throughput over time (the 1 s samples) of each
// scheduler's median run (the run whose Average is nearest the median). Hand-written SVG so
// the one command needs no plotting package. t=0 is the start of the measured phase: creation
// of the measured pods (stream) or the scheduler's restart (backlog); the first sample comes
// a second or two later because scheduler_perf skips the first.

import (
	"fmt"
	"html"
	"math"
	"strings"
)

var colors = map[string]string{"ceiling": "#7f7f7f", "ceiling-events": "#2ca02c",
	"upstream": "#1f77b4", "stowage": "#ff7f0e"}

var extraColors = []string{"#2ca02c", "#d62728", "#9467bd", "#8c564b"}

// niceStep is a 1/2/5 x 10^k step giving about n ticks over span.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			return m * mag
		}
	}
	return 10 * mag
}

// medianRun is the successful run whose Average is nearest the group's median.
func medianRun(g *Group) (RunResult, bool) {
	if len(g.OK) == 0 {
		return RunResult{}, false
	}
	m := g.median(average)
	best := g.OK[0]
	for _, r := range g.OK[1:] {
		if math.Abs(r.Throughput.Average-m) < math.Abs(best.Throughput.Average-m) {
			best = r
		}
	}
	return best, true
}

// ThroughputSVG draws the plot.
func ThroughputSVG(workloads []string, groups map[string][]*Group) string {
	const width, panelH, left, right, top, bottom = 900.0, 300.0, 70.0, 180.0, 40.0, 45.0
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	height := panelH * float64(len(workloads))
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, height)
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	for i, wl := range workloads {
		y0 := float64(i) * panelH
		plotW, plotH := width-left-right, panelH-top-bottom
		maxT, maxR := 1.0, 1.0
		type line struct {
			name, color string
			run         RunResult
		}
		var lines []line
		for j, g := range groups[wl] {
			r, ok := medianRun(g)
			if !ok {
				continue
			}
			c, known := colors[g.Scheduler]
			if !known {
				c = extraColors[j%len(extraColors)]
			}
			lines = append(lines, line{g.Scheduler, c, r})
			for _, s := range r.Series {
				maxT, maxR = math.Max(maxT, s.T), math.Max(maxR, s.Rate)
			}
		}
		maxR *= 1.1
		xs, ys := niceStep(maxT, 8), niceStep(maxR, 5)
		maxT, maxR = math.Ceil(maxT/xs)*xs, math.Ceil(maxR/ys)*ys
		px := func(t float64) float64 { return left + t/maxT*plotW }
		py := func(r float64) float64 { return y0 + top + plotH - r/maxR*plotH }
		p(`<text x="%.0f" y="%.0f" font-size="14" font-weight="bold">%s: pods/s over time (1 s samples, median run)</text>`+"\n",
			left, y0+22, html.EscapeString(wl))
		for t := 0.0; t <= maxT+1e-9; t += xs {
			p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", px(t), py(0), px(t), py(maxR))
			p(`<text x="%.1f" y="%.1f" text-anchor="middle">%g</text>`+"\n", px(t), py(0)+16, t)
		}
		for r := 0.0; r <= maxR+1e-9; r += ys {
			p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", px(0), py(r), px(maxT), py(r))
			p(`<text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n", px(0)-6, py(r)+4, r)
		}
		xlabel := "seconds since the measured pods began to be created"
		if len(lines) > 0 && lines[0].run.Mode == ModeBacklog {
			xlabel = "seconds since the scheduler was started on the backlog"
		}
		p(`<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", left+plotW/2, y0+panelH-8, xlabel)
		for k, l := range lines {
			var pts []string
			for _, s := range l.run.Series {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.T), py(s.Rate)))
			}
			if len(pts) > 0 {
				p(`<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", l.color, strings.Join(pts, " "))
			}
			for _, s := range l.run.Series { // markers, so a phase with one sample still shows
				p(`<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`+"\n", px(s.T), py(s.Rate), l.color)
			}
			ly := y0 + top + 10 + float64(k)*20
			p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n",
				width-right+15, ly, width-right+35, ly, l.color)
			p(`<text x="%.1f" y="%.1f">%s (avg %.0f)</text>`+"\n", width-right+40, ly+4,
				html.EscapeString(l.name), l.run.Throughput.Average)
		}
	}
	p("</svg>\n")
	return b.String()
}
