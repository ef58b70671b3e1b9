package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

const (
	fitMsg = "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s)."
	owed   = "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
)

func bound(pod, node string) Outcome { return Outcome{Pod: pod, Node: node} }
func unsched(pod, msg string) Outcome {
	return Outcome{Pod: pod, Reason: "Unschedulable", Message: msg}
}

// withOwedMarker makes the owed-part mechanism cut at marker for one test, as it did for the
// preemption text before DefaultPreemption landed.
func withOwedMarker(t *testing.T, marker string) {
	saved := owedMarkers
	owedMarkers = []string{marker}
	t.Cleanup(func() { owedMarkers = saved })
}

func TestCompare(t *testing.T) {
	withOwedMarker(t, " preemption: ")
	tie := map[string]Scores{"difftest/p": {"a": 90, "b": 90, "c": 10}}
	noTie := map[string]Scores{"difftest/p": {"a": 90, "b": 80, "c": 10}}
	for _, tc := range []struct {
		name     string
		up, st   Outcome
		scores   map[string]Scores
		want     Verdict
		wantOwed string
	}{
		{"same node", bound("p", "a"), bound("p", "a"), noTie, Agree, ""},
		{"other node of a tie", bound("p", "a"), bound("p", "b"), tie, TieAgree, ""},
		{"node outside the tie", bound("p", "a"), bound("p", "c"), tie, Disagree, ""},
		{"other node, no tie", bound("p", "a"), bound("p", "b"), noTie, Disagree, ""},
		{"other node, no scores (one feasible node)", bound("p", "a"), bound("p", "b"), nil, Disagree, ""},
		{"bound by one only", bound("p", "a"), unsched("p", fitMsg), tie, Disagree, ""},
		{"message equal once the preemption part is cut", unsched("p", fitMsg+" "+owed),
			unsched("p", fitMsg), nil, Agree, owed},
		{"message equal with the preemption part", unsched("p", fitMsg+" "+owed),
			unsched("p", fitMsg+" "+owed), nil, Agree, ""},
		{"reasons in another order", unsched("p", fitMsg+" "+owed),
			unsched("p", "0/3 nodes are available: 2 node(s) had untolerated taint(s), 1 Insufficient cpu."),
			nil, Disagree, owed},
		{"other reason", unsched("p", fitMsg), Outcome{Pod: "p", Reason: "SchedulerError", Message: fitMsg},
			nil, Disagree, ""},
		{"condition without observedGeneration", Outcome{Pod: "p", Reason: "Unschedulable", Message: fitMsg,
			ObservedGeneration: 1}, unsched("p", fitMsg), nil, Disagree, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, mode := range []string{ModeSerial, ModeBatch} {
				rs := Compare(7, mode, []Outcome{tc.up}, []Outcome{tc.st}, tc.scores)
				if len(rs) != 1 || rs[0].Verdict != tc.want || rs[0].Owed != tc.wantOwed {
					t.Fatalf("%s: got %+v, want verdict %s, owed %q", mode, rs, tc.want, tc.wantOwed)
				}
			}
		})
	}
}

// Pods of other namespaces find their scores under their own namespace, as upstream logs them.
func TestCompareReadsScoresOfThePodsNamespace(t *testing.T) {
	up, st := bound("p", "a"), bound("p", "b")
	up.Namespace, st.Namespace = "difftest-a", "difftest-a"
	scores := map[string]Scores{"difftest-a/p": {"a": 90, "b": 90}, "difftest/p": {"a": 90, "b": 10}}
	if rs := Compare(7, ModeSerial, []Outcome{up}, []Outcome{st}, scores); rs[0].Verdict != TieAgree {
		t.Fatalf("got %s, want a tie from difftest-a/p's scores", rs[0].Verdict)
	}
}

// In batch mode a pod both schedulers retried may see another cluster at its retry, so only its
// reason is compared; a pod tried again by one only, and every pod in serial mode, in full.
func TestCompareRetriedBatchPods(t *testing.T) {
	other := "0/3 nodes are available: 3 Insufficient cpu."
	retried := func(o Outcome) Outcome { o.Attempts = 2; return o }
	for _, tc := range []struct {
		name   string
		mode   string
		up, st Outcome
		want   Verdict
	}{
		{"batch, retried by both", ModeBatch, retried(unsched("p", fitMsg)), retried(unsched("p", other)), Retried},
		{"batch, retried by both, bound by one", ModeBatch, retried(unsched("p", fitMsg)), retried(bound("p", "a")), Retried},
		{"batch, retried by upstream only", ModeBatch, retried(unsched("p", fitMsg)), unsched("p", other), Disagree},
		{"batch, retried by stowage only", ModeBatch, unsched("p", fitMsg), retried(bound("p", "a")), Disagree},
		{"batch, tried once", ModeBatch, unsched("p", fitMsg), unsched("p", other), Disagree},
		{"batch, retried, another reason", ModeBatch, retried(unsched("p", fitMsg)),
			retried(Outcome{Pod: "p", Reason: "SchedulerError", Message: other}), Disagree},
		{"serial, retried", ModeSerial, retried(unsched("p", fitMsg)), retried(unsched("p", other)), Disagree},
	} {
		if rs := Compare(1, tc.mode, []Outcome{tc.up}, []Outcome{tc.st}, nil); rs[0].Verdict != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, rs[0].Verdict, tc.want)
		}
	}
	// Another pod's retry fell before this pod's cycle in one run only: not compared; but not
	// when this pod was itself retried by one scheduler only, nor in serial mode.
	saw := func(o Outcome, bound ...string) Outcome { o.boundBefore = bound; return o }
	for _, tc := range []struct {
		name   string
		mode   string
		up, st Outcome
		want   Verdict
	}{
		{"batch, another cluster", ModeBatch, saw(bound("p", "a"), "difftest/r"), saw(bound("p", "b")), Reordered},
		{"batch, another cluster, a message", ModeBatch, saw(unsched("p", fitMsg), "difftest/r"), saw(unsched("p", other)), Reordered},
		{"batch, the same cluster", ModeBatch, saw(bound("p", "a"), "difftest/r"), saw(bound("p", "b"), "difftest/r"), Disagree},
		{"batch, retried by upstream only", ModeBatch, retried(saw(bound("p", "a"), "difftest/r")), saw(unsched("p", other)), Disagree},
		{"serial, another cluster", ModeSerial, saw(bound("p", "a"), "difftest/r"), saw(bound("p", "b")), Disagree},
	} {
		if rs := Compare(1, tc.mode, []Outcome{tc.up}, []Outcome{tc.st}, nil); rs[0].Verdict != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, rs[0].Verdict, tc.want)
		}
	}
	// A retried pod placed differently still ends the batch's comparison.
	rs := Compare(1, ModeBatch, []Outcome{retried(bound("p", "a")), bound("q", "a")},
		[]Outcome{retried(unsched("p", other)), bound("q", "a")}, nil)
	if c := Count(rs); c != (Counts{Retried: 1, NotCompared: 1}) {
		t.Errorf("counts %+v", c)
	}
}

// SetAttempts counts the cycles of each pod in either scheduler's log format.
func TestSetAttempts(t *testing.T) {
	log := `I1126 04:02:45.681459   1 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-06"
I1126 04:02:45.756146   1 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-06"
I1126 04:06:40.435407   2 schedule_one.cc:64] Attempting to schedule pod pod="difftest-a/pod-03"
`
	path := filepath.Join(t.TempDir(), "sched.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	outs := []Outcome{{Pod: "pod-06"}, {Namespace: "difftest-a", Pod: "pod-03", Node: "a"}, {Pod: "pod-03"}}
	if err := SetAttempts(path, outs); err != nil {
		t.Fatal(err)
	}
	if outs[0].Attempts != 2 || outs[1].Attempts != 1 || outs[2].Attempts != 0 {
		t.Errorf("attempts %d %d %d, want 2 1 0", outs[0].Attempts, outs[1].Attempts, outs[2].Attempts)
	}
	// pod-03 was bound after pod-06's last attempt, so pod-06 did not see it; pod-03 saw nothing bound.
	if outs[0].boundBefore != nil || outs[1].boundBefore != nil {
		t.Errorf("boundBefore %v %v, want none", outs[0].boundBefore, outs[1].boundBefore)
	}
	if err := os.WriteFile(path, []byte(log+"I1 x] \"Attempting to schedule pod\" pod=\"difftest/pod-06\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetAttempts(path, outs); err != nil {
		t.Fatal(err)
	}
	if want := []string{"difftest-a/pod-03"}; !reflect.DeepEqual(outs[0].boundBefore, want) || outs[0].Attempts != 3 {
		t.Errorf("after a third attempt: boundBefore %v, attempts %d; want %v, 3", outs[0].boundBefore, outs[0].Attempts, want)
	}
}

// A pod retried after a binding cycle failed in PreBind (in either log format) is marked so.
func TestSetAttemptsSeesBindingFailures(t *testing.T) {
	log := `I1129 17:51:46.327430   1 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-00"
I1129 17:51:46.335430   1 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-01"
I1129 17:51:46.764378   1 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-00"
E1129 17:51:46.764008   1 schedule_one.go:1198] "Error scheduling pod; retrying" err="running PreBind plugin \"VolumeBinding\": Operation cannot be fulfilled" pod="difftest/vol-04"
I1129 17:51:46.833019   1 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-00"
I1129 17:52:58.200000   2 schedule_one.cc:44] Attempting to schedule pod pod="difftest/pod-02"
I1129 17:52:58.250000   2 schedule_one.cc:44] Attempting to schedule pod pod="difftest/pod-02"
I1129 17:52:58.497050   2 schedule_one.cc:255] unable to schedule pod difftest/pod-03: running PreBind plugin "VolumeBinding": HTTP 409 Conflict
I1129 17:52:58.500000   2 schedule_one.cc:44] Attempting to schedule pod pod="difftest/pod-02"
I1129 17:53:00.100000   2 schedule_one.cc:44] Attempting to schedule pod pod="difftest/pod-04"
I1129 17:53:00.200000   2 schedule_one.cc:44] Attempting to schedule pod pod="difftest/pod-04"
I1129 17:53:00.250000   2 schedule_one.cc:255] unable to schedule pod difftest/pod-05: running PreBind plugin "VolumeBinding": HTTP 409 Conflict
`
	path := filepath.Join(t.TempDir(), "sched.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	outs := []Outcome{{Pod: "pod-00"}, {Pod: "pod-01"}, {Pod: "pod-02"}, {Pod: "pod-04"}}
	if err := SetAttempts(path, outs); err != nil {
		t.Fatal(err)
	}
	// pod-00's retry came just before the failure's line (logged after the requeue); pod-02's
	// second attempt long before the failure; pod-04's just before one.
	var got []bool
	for _, o := range outs {
		got = append(got, o.retriedAfterBindingFailure)
	}
	if want := []bool{true, false, false, true}; !reflect.DeepEqual(got, want) {
		t.Errorf("retriedAfterBindingFailure %v, want %v", got, want)
	}
	// In batch mode a differing message of such a pod is no verdict; in serial mode it is.
	up, st := unsched("p", fitMsg), unsched("p", "0/3 nodes are available: 3 Insufficient cpu.")
	up.Attempts, up.retriedAfterBindingFailure, st.Attempts = 2, true, 1
	if rs := Compare(1, ModeBatch, []Outcome{up}, []Outcome{st}, nil); rs[0].Verdict != Retried {
		t.Errorf("batch: %s, want retried", rs[0].Verdict)
	}
	if rs := Compare(1, ModeSerial, []Outcome{up}, []Outcome{st}, nil); rs[0].Verdict != Disagree {
		t.Errorf("serial: %s, want disagree", rs[0].Verdict)
	}
}

// After a placement differs, later pods of a batch saw another cluster: they are not compared;
// serial mode re-pins every pod, so it keeps comparing.
func TestCompareStopsBatchAtFirstDivergence(t *testing.T) {
	scores := map[string]Scores{"difftest/p1": {"a": 5, "b": 5}}
	up := []Outcome{bound("p0", "a"), bound("p1", "a"), bound("p2", "a"), unsched("p3", fitMsg)}
	st := []Outcome{bound("p0", "a"), bound("p1", "b"), bound("p2", "b"), unsched("p3", "other")}
	verdicts := func(mode string) []Verdict {
		var v []Verdict
		for _, r := range Compare(1, mode, up, st, scores) {
			v = append(v, r.Verdict)
		}
		return v
	}
	if got, want := verdicts(ModeBatch), []Verdict{Agree, TieAgree, NotCompared, NotCompared}; !reflect.DeepEqual(got, want) {
		t.Errorf("batch: %v, want %v", got, want)
	}
	if got, want := verdicts(ModeSerial), []Verdict{Agree, TieAgree, Disagree, Disagree}; !reflect.DeepEqual(got, want) {
		t.Errorf("serial: %v, want %v", got, want)
	}
	// A message that differs changes no placement: the batch goes on.
	up2 := []Outcome{unsched("p0", fitMsg), bound("p1", "a")}
	st2 := []Outcome{unsched("p0", "other"), bound("p1", "b")}
	rs := Compare(1, ModeBatch, up2, st2, nil)
	if rs[0].Verdict != Disagree || rs[1].Verdict != Disagree {
		t.Errorf("batch after a message difference: %v, %v", rs[0].Verdict, rs[1].Verdict)
	}
	if c := Count(Compare(1, ModeBatch, up, st, scores)); c != (Counts{Compared: 2, Agreed: 2, Ties: 1, NotCompared: 2}) {
		t.Errorf("counts %+v", c)
	}
}

// Upstream's log as v1.37.2 writes it: interleaved lines of other pods and a pod scored twice;
// the last pass counts.
func TestParseScores(t *testing.T) {
	log := `I1125 22:36:09.539400   1 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/p1"
I1125 22:36:09.539470   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p1" node="a" score=98
I1125 22:36:09.539485   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p1" node="b" score=98
I1125 22:36:09.539490   1 schedule_one.go:483] "Successfully bound pod to node" pod="difftest/p0" node="a"
I1125 22:36:09.539495   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p1" node="c" score=-3
I1125 22:36:09.669020   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p2" node="a" score=333
I1125 22:36:09.669030   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p2" node="b" score=300
I1125 22:36:10.669020   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p2" node="b" score=310
I1125 22:36:10.669030   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p2" node="c" score=310
I1125 22:36:11.000000   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p3" node="a" score=1
I1125 22:36:11.000001   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p4" node="a" score=1
I1125 22:36:11.000002   1 schedule_one.go:1052] "Calculated node's final score for pod" pod="difftest/p3" node="b" score=1
`
	path := filepath.Join(t.TempDir(), "upstream.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ParseScores(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Scores{
		"difftest/p1": {"a": 98, "b": 98, "c": -3},
		"difftest/p2": {"b": 310, "c": 310},
		"difftest/p3": {"b": 1}, // a later pass began when another pod's line came between
		"difftest/p4": {"a": 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseScores = %v, want %v", got, want)
	}
	if top := got["difftest/p1"].Top(); !reflect.DeepEqual(top, []string{"a", "b"}) {
		t.Errorf("Top = %v", top)
	}
}

func TestOwedShape(t *testing.T) {
	if got := OwedShape(owed); got != "preemption: N/N nodes are available: N Preemption is not helpful for scheduling." {
		t.Errorf("OwedShape = %q", got)
	}
}

func TestKind(t *testing.T) {
	withOwedMarker(t, " preemption: ")
	other := "0/3 nodes are available: 2 node(s) had untolerated taint(s), 1 Insufficient cpu."
	for _, tc := range []struct {
		up, st Outcome
		want   string
	}{
		{bound("p", "a"), bound("p", "b"), "placement"},
		{bound("p", "a"), unsched("p", fitMsg), "placement"},
		{unsched("p", fitMsg), Outcome{Pod: "p", Reason: "SchedulerError", Message: fitMsg}, "reason"},
		{Outcome{Pod: "p", Reason: "Unschedulable", Message: fitMsg, ObservedGeneration: 1}, unsched("p", fitMsg),
			"condition's observedGeneration"},
		{Outcome{Pod: "p", Reason: "Unschedulable", Message: fitMsg + " " + owed, ObservedGeneration: 1},
			unsched("p", other), "condition's observedGeneration + message: the same reasons in another order"},
		{unsched("p", fitMsg), unsched("p", other), "message: the same reasons in another order"},
		{unsched("p", "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [NodeAffinity]."),
			unsched("p", "0/3 nodes are available: 3 node(s) didn't satisfy plugin(s) [PreFilter]."),
			"message: [PreFilter] where upstream names the plugin"},
		{unsched("p", fitMsg), unsched("p", "0/3 nodes are available: 3 Insufficient cpu."), "message"},
	} {
		core, _ := SplitOwed(tc.up.Message)
		if got := Kind(tc.up, tc.st, core); got != tc.want {
			t.Errorf("Kind(%v, %v) = %q, want %q", tc.up, tc.st, got, tc.want)
		}
	}
}

// Upstream's per-plugin lines: the last pass of each pod counts.
func TestParsePluginScores(t *testing.T) {
	log := `I1126 04:24:15.317751   1 schedule_one.go:984] "Plugin scored node for pod" pod="difftest/p" plugin="TaintToleration" node="a" score=300
I1126 04:24:15.317760   1 schedule_one.go:984] "Plugin scored node for pod" pod="difftest/p" plugin="InterPodAffinity" node="a" score=0
I1126 04:24:15.317770   1 schedule_one.go:984] "Plugin scored node for pod" pod="difftest/p" plugin="InterPodAffinity" node="a" score=196
I1126 04:24:15.317780   1 schedule_one.go:984] "Plugin scored node for pod" pod="difftest/p" plugin="InterPodAffinity" node="b" score=4
I1126 04:24:15.317790   1 schedule_one.go:984] "Plugin scored node for pod" pod="difftest-a/q" plugin="ImageLocality" node="b" score=-2
`
	path := filepath.Join(t.TempDir(), "upstream.log")
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ParsePluginScores(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]PluginScores{
		"difftest/p":   {"a": {"InterPodAffinity": 196}, "b": {"InterPodAffinity": 4}},
		"difftest-a/q": {"b": {"ImageLocality": -2}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParsePluginScores = %v, want %v", got, want)
	}
}

func TestNothingIsOwedByDefault(t *testing.T) {
	msg := fitMsg + " " + owed
	if core, cut := SplitOwed(msg); core != msg || cut != "" {
		t.Errorf("SplitOwed(%q) = %q, %q; the preemption part must be compared", msg, core, cut)
	}
}

func TestClaimsAgree(t *testing.T) {
	prov := ClaimOutcome{Claim: "dyn-00", Phase: "Bound", SelectedNode: "node-01",
		Volume: "provisioned by " + TestProvisioner + " on kubernetes.io/hostname in node-01"}
	static := ClaimOutcome{Claim: "dyn-01", Phase: "Bound", Volume: "local-00", Twin: "local-00=local-01"}
	twin := static
	twin.Volume = "local-01"
	lone := ClaimOutcome{Claim: "dyn-01", Phase: "Bound", Volume: "local-02"}
	pending := ClaimOutcome{Claim: "dyn-01", Phase: "Pending"}
	selected := prov
	selected.SelectedNode = "node-02"
	claimed := pending
	claimed.ClaimRefs = []string{"local-00"}
	for _, tc := range []struct {
		name      string
		up, st    []ClaimOutcome
		same, tie bool
	}{
		{"no claims", nil, nil, true, false},
		{"provisioned alike", []ClaimOutcome{prov, static}, []ClaimOutcome{prov, static}, true, false},
		{"a twin of upstream's volume", []ClaimOutcome{prov, static}, []ClaimOutcome{prov, twin}, true, true},
		{"another volume", []ClaimOutcome{static}, []ClaimOutcome{lone}, false, false},
		{"bound by one only", []ClaimOutcome{static}, []ClaimOutcome{pending}, false, false},
		{"another selected node", []ClaimOutcome{prov}, []ClaimOutcome{selected}, false, false},
		{"a claimRef written, the claim not bound", []ClaimOutcome{pending}, []ClaimOutcome{claimed}, false, false},
		{"missing for one", []ClaimOutcome{{Claim: "x", Missing: true}}, []ClaimOutcome{{Claim: "x", Phase: "Pending"}}, false, false},
	} {
		if same, tie := ClaimsAgree(tc.up, tc.st); same != tc.same || tie != tc.tie {
			t.Errorf("%s: got same %v tie %v, want %v %v", tc.name, same, tie, tc.same, tc.tie)
		}
	}
}

// Claims and the nominated node are judged where the placements agree; claims ending
// differently leave the runs with different volumes: serial mode stops comparing the later
// pods using a claim that waited for its first consumer, batch mode every later pod.
func TestCompareClaims(t *testing.T) {
	prov := func(node string) ClaimOutcome {
		return ClaimOutcome{Claim: "dyn-00", Phase: "Bound", SelectedNode: node, dynamic: true,
			Volume: "provisioned by " + TestProvisioner + " on kubernetes.io/hostname in " + node}
	}
	static := func(v string) ClaimOutcome {
		c := ClaimOutcome{Claim: "dyn-01", Phase: "Bound", Volume: v, dynamic: true}
		if v == "local-00" || v == "local-01" {
			c.Twin = "local-00=local-01"
		}
		return c
	}
	with := func(o Outcome, nominated string, claims ...ClaimOutcome) Outcome {
		o.Nominated, o.Claims = nominated, claims
		return o
	}
	msg := "0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind."
	later := with(unsched("q", msg), "", ClaimOutcome{Claim: "dyn-02", Phase: "Pending", dynamic: true})
	plain := with(bound("r", "a"), "", ClaimOutcome{Claim: "claim-00", Phase: "Bound", Volume: "pv-00"})
	tie := map[string]Scores{"difftest/p": {"a": 50, "b": 50}}
	for _, tc := range []struct {
		name   string
		mode   string
		up, st Outcome
		scores map[string]Scores
		want   []Verdict
		kind   string
	}{
		{"provisioned on the same node", ModeSerial, with(bound("p", "a"), "a", prov("a")),
			with(bound("p", "a"), "a", prov("a")), nil, []Verdict{Agree, Agree, Agree}, ""},
		{"a twin", ModeSerial, with(bound("p", "a"), "a", static("local-00")),
			with(bound("p", "a"), "a", static("local-01")), nil, []Verdict{TieAgree, Agree, Agree}, ""},
		{"another static volume", ModeSerial, with(bound("p", "a"), "a", static("local-00")),
			with(bound("p", "a"), "a", static("local-02")), nil, []Verdict{Disagree, NotCompared, Agree}, "claims"},
		{"no nominated node", ModeSerial, with(bound("p", "a"), "a", prov("a")),
			with(bound("p", "a"), "", prov("a")), nil, []Verdict{Disagree, Agree, Agree}, "nominated node before binding"},
		{"both: claims and nominated node", ModeSerial, with(bound("p", "a"), "a", static("local-00")),
			with(bound("p", "a"), "", static("local-02")), nil, []Verdict{Disagree, NotCompared, Agree},
			"claims + nominated node before binding"},
		{"a tie, provisioned on each one's node", ModeSerial, with(bound("p", "a"), "a", prov("a")),
			with(bound("p", "b"), "b", prov("b")), tie, []Verdict{TieAgree, NotCompared, Agree}, ""},
		{"unschedulable in both, a selected node written by one", ModeSerial,
			with(unsched("p", msg), "", ClaimOutcome{Claim: "dyn-00", Phase: "Pending", dynamic: true}),
			with(unsched("p", msg), "", ClaimOutcome{Claim: "dyn-00", Phase: "Pending", SelectedNode: "a", dynamic: true}),
			nil, []Verdict{Disagree, NotCompared, Agree}, "claims"},
		{"batch: another static volume", ModeBatch, with(bound("p", "a"), "a", static("local-00")),
			with(bound("p", "a"), "a", static("local-02")), nil, []Verdict{Disagree, NotCompared, NotCompared}, "claims"},
		{"batch: the nominated node is not judged", ModeBatch, with(bound("p", "a"), "a", prov("a")),
			with(bound("p", "a"), "", prov("a")), nil, []Verdict{Agree, Agree, Agree}, ""},
		{"batch: unschedulable pods' claims are not judged", ModeBatch,
			with(unsched("p", msg), "", ClaimOutcome{Claim: "dyn-00", Phase: "Pending", dynamic: true}),
			with(unsched("p", msg), "", prov("a")), nil, []Verdict{Agree, Agree, Agree}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := Compare(7, tc.mode, []Outcome{tc.up, later, plain}, []Outcome{tc.st, later, plain}, tc.scores)
			var got []Verdict
			for _, r := range rs {
				got = append(got, r.Verdict)
			}
			if !reflect.DeepEqual(got, tc.want) || rs[0].Kind != tc.kind {
				t.Fatalf("got %v (kind %q), want %v (kind %q)", got, rs[0].Kind, tc.want, tc.kind)
			}
		})
	}
}

// The dra profile: a pod's claim for example.com/gpu that ended on other devices (a tie placed
// it elsewhere) leaves the later pods asking for example.com/gpu not compared, claims of their
// own or not, since their scores on nodes that lack it count the devices claims hold; the
// other later pods are compared.
func TestCompareAfterExtendedClaims(t *testing.T) {
	ext := func(o Outcome, dev string) Outcome {
		o.extended = true
		if dev != "" {
			o.Claims = []ClaimOutcome{{Claim: extendedClaim, Phase: "allocated", dynamic: true,
				Devices: []string{"container-0-request-0=" + dev}}}
		}
		return o
	}
	up := []Outcome{ext(bound("p", "a"), "gpu.example.com/a/gpu-0"), ext(bound("q", "c"), ""), bound("r", "a")}
	st := []Outcome{ext(bound("p", "b"), "gpu.example.com/b/gpu-0"), ext(bound("q", "d"), ""), bound("r", "a")}
	tie := map[string]Scores{"difftest/p": {"a": 50, "b": 50}, "difftest/q": {"c": 70, "d": 20}}
	rs := Compare(7, ModeSerial, up, st, tie)
	var got []Verdict
	for _, r := range rs {
		got = append(got, r.Verdict)
	}
	if want := []Verdict{TieAgree, NotCompared, Agree}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
