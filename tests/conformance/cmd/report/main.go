// Command report turns the ginkgo JSON reports of one or more e2e runs into scripts/conformance's
// per-spec markdown table and says whether every selected spec passed in every run.
//
// Usage: report -title TEXT [-details FILE] run1.json [run2.json ...] > results.md
//
// A run whose report is missing or unreadable counts as one in which no spec ran. -details writes,
// for each spec that did not pass, what is needed to tell why without the run's files: ginkgo's whole
// message and location, the spec's steps, the tail of its output, and the scheduler's log during the
// spec (scheduler.log beside the run's report).
// Exit status: 0 every selected spec passed in every run, 1 otherwise, 2 a usage error.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	StartTime, EndTime      time.Time
	Failure                 *struct {
		Message         string
		FailureNodeType string
		Location        struct {
			FileName   string
			LineNumber int
		}
	}
	CapturedGinkgoWriterOutput string
	SpecEvents                 []struct {
		SpecEventType    string
		Message          string
		TimelineLocation struct{ Time time.Time }
	}
}

type suiteReport struct {
	SuiteConfig struct{ RandomSeed int64 }
	SpecReports []specReport
}

// outcome is one spec in one run.
type outcome struct {
	state   string
	seconds float64
	message string
	report  *specReport // kept for -details
}

// run is what one JSON report says: the outcome of each selected spec, by full name, and the seed
// ginkgo ordered the specs with (--ginkgo.seed repeats the order).
type run struct {
	specs map[string]outcome
	seed  int64
	dir   string // where the report and the run's logs are
}

func load(path string) (run, error) {
	r := run{specs: map[string]outcome{}, dir: filepath.Dir(path)}
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	var suites []suiteReport
	if err := json.Unmarshal(b, &suites); err != nil {
		return r, fmt.Errorf("%s: %w", path, err)
	}
	for _, s := range suites {
		r.seed = s.SuiteConfig.RandomSeed
		for i := range s.SpecReports {
			sp := &s.SpecReports[i]
			// Specs the focus or label filter left out are reported as skipped with no attempt; they were
			// not selected, so they are not in the table.
			if sp.LeafNodeType != "It" || sp.NumAttempts == 0 {
				continue
			}
			name := strings.TrimSpace(strings.Join(append(append([]string{}, sp.ContainerHierarchyTexts...),
				sp.LeafNodeText), " "))
			o := outcome{state: sp.State, seconds: sp.RunTime.Seconds(), report: sp}
			if sp.Failure != nil {
				o.message = firstLine(sp.Failure.Message)
			}
			r.specs[name] = o
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
		for n := range r.specs {
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
			o, ok := r.specs[n]
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
	fmt.Fprintf(w, "\n%d of %d specs passed in every run.", passedSpecs, len(sorted))
	seeds := make([]string, len(runs))
	for i, r := range runs {
		seeds[i] = fmt.Sprint(r.seed)
	}
	fmt.Fprintf(w, " Ginkgo's random seed per run (--ginkgo.seed repeats an order): %s.\n",
		strings.Join(seeds, ", "))
	if len(failures) > 0 {
		fmt.Fprintf(w, "\nWhy the others did not pass (first line of ginkgo's message):\n\n%s\n",
			strings.Join(failures, "\n"))
	}
	return allPassed
}

func main() {
	title := flag.String("title", "e2e results", "heading of the table")
	details := flag.String("details", "", "file to write the details of each spec that did not pass")
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
		}
		runs = append(runs, r)
	}
	passed := write(os.Stdout, *title, runs)
	if *details != "" {
		f, err := os.Create(*details)
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(2)
		}
		writeDetails(f, runs)
		if err := f.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(2)
		}
	}
	if !passed {
		os.Exit(1)
	}
}
