// Command report turns the ginkgo JSON reports of one or more e2e runs into scripts/conformance's
// per-spec markdown table and says whether every selected spec passed in every run.
//
// Usage: report -title TEXT run1.json [run2.json ...] > results.md
//
// A run whose report is missing or unreadable counts as one in which no spec ran.
// Exit status: 0 every selected spec passed in every run, 1 otherwise, 2 a usage error.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// specReport is the part of ginkgo's types.SpecReport the table needs.
type specReport struct {
	ContainerHierarchyTexts []string
	LeafNodeText            string
	LeafNodeType            string
	State                   string
	NumAttempts             int
	RunTime                 time.Duration
	Failure                 *struct{ Message string }
}

type suiteReport struct {
	SpecReports []specReport
}

// outcome is one spec in one run.
type outcome struct {
	state   string
	seconds float64
	message string
}

// run is what one JSON report says: the outcome of each selected spec, by full name.
type run map[string]outcome

func load(path string) (run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var suites []suiteReport
	if err := json.Unmarshal(b, &suites); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := run{}
	for _, s := range suites {
		for _, sp := range s.SpecReports {
			// Specs the focus or label filter left out are reported as skipped with no attempt; they were
			// not selected, so they are not in the table.
			if sp.LeafNodeType != "It" || sp.NumAttempts == 0 {
				continue
			}
			name := strings.TrimSpace(strings.Join(append(append([]string{}, sp.ContainerHierarchyTexts...),
				sp.LeafNodeText), " "))
			o := outcome{state: sp.State, seconds: sp.RunTime.Seconds()}
			if sp.Failure != nil {
				o.message = firstLine(sp.Failure.Message)
			}
			r[name] = o
		}
	}
	return r, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

// write prints the table and returns whether every spec passed in every run.
func write(w io.Writer, title string, runs []run) bool {
	names := map[string]bool{}
	for _, r := range runs {
		for n := range r {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)

	fmt.Fprintf(w, "## %s\n\n| spec |", title)
	for i := range runs {
		fmt.Fprintf(w, " run %d |", i+1)
	}
	fmt.Fprint(w, " passed |\n|---|")
	for range runs {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprint(w, "---|\n")

	allPassed := len(sorted) > 0
	passedSpecs := 0
	var failures []string
	for _, n := range sorted {
		fmt.Fprintf(w, "| %s |", strings.ReplaceAll(n, "|", "\\|"))
		passes := 0
		for i, r := range runs {
			o, ok := r[n]
			switch {
			case !ok:
				fmt.Fprint(w, " not run |")
			default:
				fmt.Fprintf(w, " %s %.0f s |", o.state, o.seconds)
				if o.state == "passed" {
					passes++
				} else if o.message != "" {
					failures = append(failures, fmt.Sprintf("* run %d, %s: %s: %s", i+1, n, o.state, o.message))
				}
			}
		}
		fmt.Fprintf(w, " %d/%d |\n", passes, len(runs))
		if passes == len(runs) {
			passedSpecs++
		} else {
			allPassed = false
		}
	}
	fmt.Fprintf(w, "\n%d of %d specs passed in every run.\n", passedSpecs, len(sorted))
	if len(failures) > 0 {
		fmt.Fprintf(w, "\nWhy the others did not pass (first line of ginkgo's message):\n\n%s\n",
			strings.Join(failures, "\n"))
	}
	return allPassed
}

func main() {
	title := flag.String("title", "e2e results", "heading of the table")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: report -title TEXT run1.json [run2.json ...]")
		os.Exit(2)
	}
	var runs []run
	for _, p := range flag.Args() {
		r, err := load(p)
		if err != nil {
			// A run that died before writing its report still counts: every spec in it is "not run".
			fmt.Fprintln(os.Stderr, "report:", err)
			r = run{}
		}
		runs = append(runs, r)
	}
	if !write(os.Stdout, *title, runs) {
		os.Exit(1)
	}
}
