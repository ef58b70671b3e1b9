package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A ginkgo report of one run: one spec passed, one failed, one left out by the focus.
const reportJSON = `[{"SuiteConfig":{"RandomSeed":42},"SpecReports":[
 {"ContainerHierarchyTexts":["[sig-scheduling] SchedulerPreemption"],"LeafNodeText":"works","LeafNodeType":"It",
  "State":"passed","NumAttempts":1,"RunTime":2000000000},
 {"ContainerHierarchyTexts":["[sig-scheduling] SchedulerPreemption"],"LeafNodeText":"times out","LeafNodeType":"It",
  "State":"failed","NumAttempts":1,"RunTime":300000000000,
  "StartTime":"2026-11-26T16:50:10.000Z","EndTime":"2026-11-26T16:55:10.000Z",
  "Failure":{"Message":"Timed out after 300.000s.\nExpected pod to be running","FailureNodeType":"It",
   "Location":{"FileName":"preemption.go","LineNumber":181}},
  "CapturedGinkgoWriterOutput":"Created pod: pod0-0\nCreated pod: pod0-1\n",
  "SpecEvents":[{"SpecEventType":"By","Message":"Wait for pods to be scheduled.",
   "TimelineLocation":{"Time":"2026-11-26T16:50:10.500Z"}}]},
 {"LeafNodeText":"not selected","LeafNodeType":"It","State":"skipped","NumAttempts":0}]}]`

// The scheduler's log: a line before the failed spec, two during it (one continued on a second
// line), and one after.
const schedulerLog = `I1126 16:50:08.000000     1 schedule_one.cc:184] Successfully bound pod="old/a"
I1126 16:50:11.000000     1 default_preemption.cc:153] the target node for the preemption is determined
I1126 16:50:11.500000     1 schedule_one.cc:239] unable to schedule pod ns/pod0-1: 0/4 nodes are available
  a continuation line
I1126 16:56:00.000000     1 schedule_one.cc:184] Successfully bound pod="later/b"
`

func writeRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "report.json"), []byte(reportJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scheduler.log"), []byte(schedulerLog), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "report.json")
}

func TestTableCountsSelectedSpecsAndGivesTheSeed(t *testing.T) {
	r, err := load(writeRun(t))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if write(&out, "title", []run{r}) {
		t.Fatal("a failed spec must make the table say not every spec passed")
	}
	s := out.String()
	for _, want := range []string{
		"| [sig-scheduling] SchedulerPreemption works | passed 2 s | 1/1 |",
		"| [sig-scheduling] SchedulerPreemption times out | failed 300 s | 0/1 |",
		"1 of 2 specs passed in every run.",
		"--ginkgo.seed repeats an order): 42.",
		"failed: Timed out after 300.000s.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "not selected") {
		t.Errorf("a spec the focus left out is in the table:\n%s", s)
	}
}

func TestDetailsGiveTheWholeMessageStepsOutputAndTheSchedulerLogOfTheSpec(t *testing.T) {
	time.Local = time.UTC // the klog stamps and the report's times are both UTC here
	r, err := load(writeRun(t))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeDetails(&out, []run{r})
	s := out.String()
	for _, want := range []string{
		"### run 1 (seed 42): [sig-scheduling] SchedulerPreemption times out: failed",
		"ginkgo's message (It at preemption.go:181):",
		"    Expected pod to be running",
		"    16:50:10.500 Wait for pods to be scheduled.",
		"    Created pod: pod0-1",
		"the target node for the preemption is determined",
		"unable to schedule pod ns/pod0-1",
		"  a continuation line",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("details lack %q:\n%s", want, s)
		}
	}
	for _, unwanted := range []string{"old/a", "later/b", "SchedulerPreemption works"} {
		if strings.Contains(s, unwanted) {
			t.Errorf("details hold %q, from outside the failed spec:\n%s", unwanted, s)
		}
	}
}

func TestEndsKeepsTheHeadAndTailOfALongLog(t *testing.T) {
	var lines []string
	for i := 0; i < maxLogHead+maxLogTail+10; i++ {
		lines = append(lines, "line")
	}
	got := ends(lines)
	if len(got) != maxLogHead+maxLogTail+1 || got[maxLogHead] != "[10 lines left out]" {
		t.Fatalf("ends kept %d lines, marker %q", len(got), got[maxLogHead])
	}
}
