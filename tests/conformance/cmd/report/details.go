package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Bounds on what -details prints per failed spec, so a CI log stays readable.
const (
	maxMessageLines = 15
	maxOutputLines  = 40
	maxLogHead      = 80
	maxLogTail      = 40
)

// writeDetails prints, for every spec that did not pass in some run, why: ginkgo's message and
// location, the spec's steps with their times, the tail of its output, and the scheduler's log
// lines from a second before the spec started to its end.
func writeDetails(w io.Writer, runs []run) {
	for i, r := range runs {
		names := make([]string, 0, len(r.specs))
		for n, o := range r.specs {
			if o.state != "passed" && o.report != nil {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			sp := r.specs[n].report
			fmt.Fprintf(w, "### run %d (seed %d): %s: %s\n\n", i+1, r.seed, n, sp.State)
			fmt.Fprintf(w, "%s to %s UTC\n", sp.StartTime.UTC().Format("15:04:05.000"),
				sp.EndTime.UTC().Format("15:04:05.000"))
			if f := sp.Failure; f != nil {
				fmt.Fprintf(w, "\nginkgo's message (%s at %s:%d):\n\n%s\n", f.FailureNodeType,
					f.Location.FileName, f.Location.LineNumber, indent(head(f.Message, maxMessageLines)))
			}
			fmt.Fprint(w, "\nsteps:\n\n")
			for _, ev := range sp.SpecEvents {
				if ev.SpecEventType == "By" {
					fmt.Fprintf(w, "    %s %s\n", ev.TimelineLocation.Time.UTC().Format("15:04:05.000"),
						ev.Message)
				}
			}
			fmt.Fprintf(w, "\nthe spec's output (last %d lines):\n\n%s\n", maxOutputLines,
				indent(tail(sp.CapturedGinkgoWriterOutput, maxOutputLines)))
			log := filepath.Join(r.dir, "scheduler.log")
			lines, err := logWindow(log, sp.StartTime.Add(-time.Second), sp.EndTime)
			if err != nil {
				fmt.Fprintf(w, "\n%s: %v\n\n", log, err)
				continue
			}
			fmt.Fprintf(w, "\n%s during the spec (%d lines; first %d and last %d):\n\n%s\n", log,
				len(lines), maxLogHead, maxLogTail, indent(strings.Join(ends(lines), "\n")))
		}
	}
}

// logWindow returns the klog lines of path stamped within [from, to] (a line without a stamp
// goes with the line before it).
func logWindow(path string, from, to time.Time) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if t, ok := klogTime(line, from); ok {
			in = !t.Before(from) && !t.After(to)
		}
		if in {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// klogTime reads the stamp of a klog header line ("I1126 16:41:57.414350 ..."), which has no
// year: it is taken from ref.
func klogTime(line string, ref time.Time) (time.Time, bool) {
	if len(line) < 21 || !strings.ContainsRune("IWEF", rune(line[0])) {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("0102 15:04:05.000000", line[1:21], time.Local)
	if err != nil {
		return time.Time{}, false
	}
	return t.AddDate(ref.Local().Year(), 0, 0), true
}

func head(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("[%d more lines]", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ends keeps the first maxLogHead and last maxLogTail lines.
func ends(lines []string) []string {
	if len(lines) <= maxLogHead+maxLogTail {
		return lines
	}
	out := append([]string{}, lines[:maxLogHead]...)
	out = append(out, fmt.Sprintf("[%d lines left out]", len(lines)-maxLogHead-maxLogTail))
	return append(out, lines[len(lines)-maxLogTail:]...)
}

func indent(s string) string {
	if s == "" {
		return "    (none)"
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}
