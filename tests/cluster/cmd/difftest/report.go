package main

// The summary and the disagreements, each with what reproduces it.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Report gathers every result of a run.
type Report struct {
	Modes   []string          `json:"modes"`
	Nodes   int               `json:"nodes"`
	Pods    int               `json:"pods"`
	Out     string            `json:"-"`
	Seconds float64           `json:"seconds"`
	Results []Result          `json:"results"`
	States  map[uint64]string `json:"states"` // seed -> state file
}

// Add records one state's results in one mode.
func (r *Report) Add(seed uint64, stateFile string, rs []Result) {
	if r.States == nil {
		r.States = map[uint64]string{}
	}
	r.States[seed] = stateFile
	r.Results = append(r.Results, rs...)
}

// Counts of a set of results.
type Counts struct {
	Compared, Agreed, Ties, Disagreements, NotCompared, Retried, Reordered, Owed int
}

// Count tallies results; ties are agreements too.
func Count(rs []Result) Counts {
	var c Counts
	for _, x := range rs {
		switch x.Verdict {
		case NotCompared:
			c.NotCompared++
			continue
		case Retried:
			c.Retried++
			continue
		case Reordered:
			c.Reordered++
			continue
		case Agree:
			c.Agreed++
		case TieAgree:
			c.Agreed++
			c.Ties++
		case Disagree:
			c.Disagreements++
		}
		c.Compared++
		if x.Owed != "" {
			c.Owed++
		}
	}
	return c
}

// Tally is one line of counts.
func Tally(rs []Result) string {
	c := Count(rs)
	s := fmt.Sprintf("%d compared, %d agreed (%d by a tie), %d disagree", c.Compared, c.Agreed, c.Ties,
		c.Disagreements)
	if c.Retried > 0 {
		s += fmt.Sprintf(", %d retried by both (or after a binding failure) with another outcome (not compared)", c.Retried)
	}
	if c.Reordered > 0 {
		s += fmt.Sprintf(", %d after another pod's retry fell elsewhere (not compared)", c.Reordered)
	}
	if c.NotCompared > 0 {
		s += fmt.Sprintf(", %d not compared after a divergence", c.NotCompared)
	}
	return s
}

// Disagreements counts them.
func (r *Report) Disagreements() int { return Count(r.Results).Disagreements }

// WriteJSON writes every result.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Print writes the summary, the owed parts and each disagreement.
func (r *Report) Print(w io.Writer) {
	c := Count(r.Results)
	seeds := make([]uint64, 0, len(r.States))
	for s := range r.States {
		seeds = append(seeds, s)
	}
	slices.Sort(seeds)
	fmt.Fprintf(w, "difftest: %d states (seeds %d-%d), %d nodes and %d pods each, modes %s, %.0f s: %s\n",
		len(seeds), seeds[0], seeds[len(seeds)-1], r.Nodes, r.Pods, strings.Join(r.Modes, ","),
		r.Seconds, Tally(r.Results))
	for _, m := range r.Modes {
		var rs []Result
		for _, x := range r.Results {
			if x.Mode == m {
				rs = append(rs, x)
			}
		}
		fmt.Fprintf(w, "  %-8s %s\n", m+":", Tally(rs))
	}
	if c.Disagreements > 0 {
		kinds := map[string]int{}
		for _, x := range r.Results {
			if x.Verdict == Disagree {
				kinds[x.Mode+", "+x.Kind]++
			}
		}
		fmt.Fprintln(w, "disagreements by mode and kind:")
		printCounts(w, kinds)
	}
	if c.Owed > 0 {
		shapes := map[string]int{}
		for _, x := range r.Results {
			if x.Owed != "" && x.Verdict != NotCompared && x.Verdict != Retried && x.Verdict != Reordered {
				shapes[OwedShape(x.Owed)]++
			}
		}
		fmt.Fprintf(w, "owed to plugins stowage does not have yet (cut from upstream's message): %d messages\n", c.Owed)
		printCounts(w, shapes)
	}
	for _, x := range r.Results {
		if x.Verdict != Disagree {
			continue
		}
		fmt.Fprintf(w, "\nDISAGREE seed %d, %s mode, pod %s (%s)\n", x.Seed, x.Mode, x.Upstream.Key(), x.Kind)
		up := x.Upstream
		if core, owed := SplitOwed(up.Message); owed != "" {
			up.Message = core
		}
		left, right := "upstream: ", "stowage:  "
		switch x.Mode {
		case ModeExplain:
			right = "explain:  "
		case ModeSimulate:
			left, right = "live:     ", "simulate: "
		}
		fmt.Fprintf(w, "  %s%s\n  %s%s\n", left, up, right, x.Stowage)
		if len(x.Scores) > 0 {
			fmt.Fprintf(w, "  upstream's final scores: %s\n", formatScores(x.Scores))
		}
		for _, n := range []string{x.Upstream.Node, x.Stowage.Node} {
			if p := x.Plugins[n]; p != nil {
				fmt.Fprintf(w, "  upstream's plugin scores on %s: %s\n", n, formatScores(p))
			}
		}
		fmt.Fprintf(w, "  state: %s\n  rerun:   scripts/difftest --state %s --modes %s\n",
			r.States[x.Seed], r.States[x.Seed], x.Mode)
	}
}

// formatScores lists scores highest first, ties by name.
func formatScores(s Scores) string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		if s[a] != s[b] {
			if s[a] > s[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s=%d", n, s[n])
	}
	return strings.Join(parts, " ")
}

// printCounts lists counts by key, keys sorted.
func printCounts(w io.Writer, counts map[string]int) {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %4d x %s\n", counts[k], k)
	}
}
