package main

// The node-count sweep (issue 27, docs/benchmarks.md "Cost against node count"): workloads
// that name a sweep shape are one shape at several node counts. The report gives each shape a
// table across node counts and sweep.svg plots per-pod CPU and peak RSS against node count.

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
)

// sweepPoint is one scheduler's median figures for one shape at one node count.
type sweepPoint struct {
	nodes       int
	scheduler   string
	g           *Group
	cpuMsPerPod float64
	rssMiB      float64
}

// sweepShapes groups the workloads' groups by sweep shape, in first-seen order, each shape's
// points ordered by node count then scheduler (the groups' order).
func sweepShapes(workloads []string, groups map[string][]*Group) (shapes []string, points map[string][]sweepPoint) {
	points = map[string][]sweepPoint{}
	for _, wl := range workloads {
		gs := groups[wl]
		first := firstRun(gs)
		if first.Sweep == "" {
			continue
		}
		if _, ok := points[first.Sweep]; !ok {
			shapes = append(shapes, first.Sweep)
		}
		for _, g := range gs {
			points[first.Sweep] = append(points[first.Sweep], sweepPoint{nodes: first.Nodes,
				scheduler: g.Scheduler, g: g, cpuMsPerPod: g.median(cpu), rssMiB: g.median(rssMiB)})
		}
	}
	for _, s := range shapes {
		sort.SliceStable(points[s], func(i, j int) bool { return points[s][i].nodes < points[s][j].nodes })
	}
	return shapes, points
}

// SweepMarkdown is the sweep's section of results.md ("" when no run belongs to a sweep).
func SweepMarkdown(workloads []string, groups map[string][]*Group) string {
	shapes, points := sweepShapes(workloads, groups)
	if len(shapes) == 0 {
		return ""
	}
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("\n## Node-count sweep\n\nEach shape at every node count of the run (sweep.svg plots CPU " +
		"and RSS against node count). CPU ms per measured pod; start = process start to the first " +
		"binding of an init pod (initial lists included); restart = the backlog's second start " +
		"to its first binding (lists of every node and pending pod included).\n")
	for _, s := range shapes {
		p("\n### %s\n\n| nodes | scheduler | n | pods/s Average | elapsed pods/s | CPU ms/pod | "+
			"peak RSS MiB | algorithm p50 / p99 ms | start s | restart s | stowage / upstream "+
			"CPU, RSS |\n|---|---|---|---|---|---|---|---|---|---|---|\n", html.EscapeString(s))
		up := map[int]sweepPoint{}
		for _, pt := range points[s] {
			if pt.scheduler == "upstream" {
				up[pt.nodes] = pt
			}
		}
		for _, pt := range points[s] {
			m := pt.g.median
			rel := ""
			if u, ok := up[pt.nodes]; ok && pt.scheduler == "stowage" {
				rel = ratio(pt.cpuMsPerPod, u.cpuMsPerPod) + ", " + ratio(pt.rssMiB, u.rssMiB)
			}
			failed := ""
			if len(pt.g.Failed) > 0 {
				failed = fmt.Sprintf(" (%d failed: %s)", len(pt.g.Failed),
					strings.SplitN(pt.g.Failed[0].Error, "\n", 2)[0])
			}
			p("| %d | %s | %d%s | %s | %s | %s | %s | %s / %s | %s | %s | %s |\n", pt.nodes,
				pt.scheduler, len(pt.g.OK), failed, num(m(average), 0),
				num(m(func(r RunResult) float64 { return r.ElapsedRate }), 0),
				num(pt.cpuMsPerPod, 3), num(pt.rssMiB, 0),
				num(m(algorithmP(50)), 2), num(m(algorithmP(99)), 2),
				num(m(func(r RunResult) float64 { return r.StartToFirstBinding }), 2),
				num(m(func(r RunResult) float64 { return r.BacklogStartToFirstBinding }), 2), rel)
		}
	}
	return b.String()
}

// SweepSVG draws, for each shape, CPU per pod and peak RSS against node count (log scale),
// one line per scheduler; "" when no run belongs to a sweep.
func SweepSVG(workloads []string, groups map[string][]*Group) string {
	shapes, points := sweepShapes(workloads, groups)
	if len(shapes) == 0 {
		return ""
	}
	const width, panelW, panelH, left, top, bottom = 1000.0, 400.0, 280.0, 70.0, 40.0, 45.0
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n",
		width, panelH*float64(len(shapes)))
	p(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	metrics := []struct {
		title string
		value func(sweepPoint) float64
	}{
		{"CPU ms per measured pod", func(pt sweepPoint) float64 { return pt.cpuMsPerPod }},
		{"peak RSS MiB", func(pt sweepPoint) float64 { return pt.rssMiB }},
	}
	for i, s := range shapes {
		pts := points[s]
		minN, maxN := math.Inf(1), 0.0
		var ticks []int
		for _, pt := range pts {
			minN, maxN = math.Min(minN, float64(pt.nodes)), math.Max(maxN, float64(pt.nodes))
			if len(ticks) == 0 || ticks[len(ticks)-1] != pt.nodes {
				ticks = append(ticks, pt.nodes)
			}
		}
		if maxN <= minN {
			maxN = minN * 2
		}
		for k, mt := range metrics {
			x0, y0 := left+float64(k)*(panelW+left+30), float64(i)*panelH
			plotH := panelH - top - bottom
			maxV := 0.0
			for _, pt := range pts {
				if v := mt.value(pt); !math.IsNaN(v) {
					maxV = math.Max(maxV, v)
				}
			}
			step := niceStep(maxV*1.1, 5)
			maxV = math.Max(step, math.Ceil(maxV*1.1/step)*step)
			px := func(n float64) float64 {
				return x0 + (math.Log(n)-math.Log(minN))/(math.Log(maxN)-math.Log(minN))*panelW
			}
			py := func(v float64) float64 { return y0 + top + plotH - v/maxV*plotH }
			p(`<text x="%.0f" y="%.0f" font-size="14" font-weight="bold">%s: %s</text>`+"\n",
				x0, y0+22, html.EscapeString(s), mt.title)
			for _, n := range ticks {
				p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n",
					px(float64(n)), py(0), px(float64(n)), py(maxV))
				p(`<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", px(float64(n)), py(0)+16, n)
			}
			for v := 0.0; v <= maxV+1e-9; v += step {
				p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e0e0e0"/>`+"\n", x0, py(v), x0+panelW, py(v))
				p(`<text x="%.1f" y="%.1f" text-anchor="end">%g</text>`+"\n", x0-6, py(v)+4, v)
			}
			p(`<text x="%.1f" y="%.1f" text-anchor="middle">nodes (log scale)</text>`+"\n", x0+panelW/2, y0+panelH-8)
			var names []string
			byName := map[string][][2]float64{}
			for _, pt := range pts {
				v := mt.value(pt)
				if math.IsNaN(v) || len(pt.g.OK) == 0 {
					continue
				}
				if _, ok := byName[pt.scheduler]; !ok {
					names = append(names, pt.scheduler)
				}
				byName[pt.scheduler] = append(byName[pt.scheduler], [2]float64{px(float64(pt.nodes)), py(v)})
			}
			for j, name := range names {
				c, known := colors[name]
				if !known {
					c = extraColors[j%len(extraColors)]
				}
				var line []string
				for _, xy := range byName[name] {
					line = append(line, fmt.Sprintf("%.1f,%.1f", xy[0], xy[1]))
					p(`<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", xy[0], xy[1], c)
				}
				p(`<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", c,
					strings.Join(line, " "))
				ly := y0 + top + 10 + float64(j)*18
				p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n",
					x0+10, ly, x0+30, ly, c)
				p(`<text x="%.1f" y="%.1f">%s</text>`+"\n", x0+35, ly+4, html.EscapeString(name))
			}
		}
	}
	p("</svg>\n")
	return b.String()
}
