package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// explainOf decodes a `stowage explain -o json` answer of the shape the binary prints.
func explainOf(t *testing.T, text string) *explanation {
	t.Helper()
	var e explanation
	if err := json.Unmarshal([]byte(text), &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

const twoNodes = `{"filter":[{"node":"a","code":"Success"},{"node":"b","code":"Success"},
  {"node":"c","code":"Unschedulable","plugin":"NodeResourcesFit"}],
 "scores":[{"node":"a","total":150,"plugins":[{"plugin":"NodeResourcesFit","weighted":50},{"plugin":"ImageLocality","weighted":100}]},
  {"node":"b","total":120,"plugins":[{"plugin":"NodeResourcesFit","weighted":20},{"plugin":"ImageLocality","weighted":100}]}],
 "best":["a"]}`

func TestCompareExplanation(t *testing.T) {
	upScores := Scores{"a": 150, "b": 120}
	upPlugins := PluginScores{"a": {"NodeResourcesFit": 50, "ImageLocality": 100, "VolumeBinding": 0},
		"b": {"NodeResourcesFit": 20, "ImageLocality": 100, "VolumeBinding": 0}}
	bound := Outcome{Pod: "p", Node: "a"}
	if k := compareExplanation(bound, explainOf(t, twoNodes), upScores, upPlugins); k != "" {
		t.Fatalf("equal answers judged %q", k)
	}
	// A plugin score upstream logged differently, though the totals agree.
	other := PluginScores{"a": {"NodeResourcesFit": 40, "ImageLocality": 110}, "b": upPlugins["b"]}
	if k := compareExplanation(bound, explainOf(t, twoNodes), upScores, other); k != "explain: plugin scores" {
		t.Fatalf("got %q", k)
	}
	// Upstream's totals make b the pick.
	if k := compareExplanation(Outcome{Pod: "p", Node: "b"}, explainOf(t, twoNodes), Scores{"a": 150, "b": 160}, upPlugins); k != "explain: final scores + explain: pick" {
		t.Fatalf("got %q", k)
	}
	// Upstream found c feasible too.
	if k := compareExplanation(bound, explainOf(t, twoNodes), Scores{"a": 150, "b": 120, "c": 1}, upPlugins); k != "explain: feasible nodes" {
		t.Fatalf("got %q", k)
	}
	// One feasible node: upstream logs no scores.
	one := `{"filter":[{"node":"a","code":"Success"},{"node":"b","code":"Unschedulable"}],"best":["a"]}`
	if k := compareExplanation(bound, explainOf(t, one), nil, nil); k != "" {
		t.Fatalf("got %q", k)
	}
	if k := compareExplanation(Outcome{Pod: "p", Node: "b"}, explainOf(t, one), nil, nil); k != "explain: feasible nodes" {
		t.Fatalf("got %q", k)
	}
}

func TestCompareExplanationOfAnUnschedulablePod(t *testing.T) {
	e := explainOf(t, `{"filter":[{"node":"a","code":"Unschedulable"}],"best":[],
	  "unschedulable":"0/1 nodes are available: 1 Insufficient cpu."}`)
	up := Outcome{Pod: "p", Reason: "Unschedulable", Message: "0/1 nodes are available: 1 Insufficient cpu. " +
		"preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}
	if k := compareExplanation(up, e, nil, nil); k != "" {
		t.Fatalf("upstream's message with preemption's part appended judged %q", k)
	}
	up.Message = "0/1 nodes are available: 1 Insufficient memory."
	if k := compareExplanation(up, e, nil, nil); k != "explain: message" {
		t.Fatalf("got %q", k)
	}
	if k := compareExplanation(Outcome{Pod: "p", Node: "a"}, e, nil, nil); k != "explain: unschedulable" {
		t.Fatalf("got %q", k)
	}
}

func TestAttemptMessages(t *testing.T) {
	log := `I1130 08:57:11.922319 2315 schedule_one.cc:45] Attempting to schedule pod pod="ns/p"
I1130 08:57:11.922372 2315 schedule_one.cc:255] unable to schedule pod ns/p: 0/2 nodes are available: 2 Insufficient cpu.
I1130 08:57:11.922404 2315 schedule_one.cc:45] Attempting to schedule pod pod="ns/q"
I1130 08:57:11.959926 2315 schedule_one.cc:45] Attempting to schedule pod pod="ns/p"
I1130 08:57:11.960204 2315 schedule_one.cc:255] unable to schedule pod ns/p: 0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods.
`
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := attemptMessages(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"0/2 nodes are available: 2 Insufficient cpu.",
		"0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods."}
	if !slices.Equal(got["ns/p"], want) || !slices.Equal(got["ns/q"], []string{""}) {
		t.Fatalf("got %q", got)
	}
}
