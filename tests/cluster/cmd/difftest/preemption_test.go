package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// onNode is a pod bound to node with a priority, a start time (minutes after startBase) and labels.
func onNode(name, node string, prio int32, minute int, lbl map[string]string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: lbl},
		Spec:   v1.PodSpec{NodeName: node, Priority: &prio},
		Status: v1.PodStatus{StartTime: &metav1.Time{Time: startBase.Add(time.Duration(minute) * time.Minute)}}}
}

func preemptor(prio int32) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: namespace}, Spec: v1.PodSpec{Priority: &prio}}
}

func byNode(pods ...*v1.Pod) map[string][]*v1.Pod {
	out := map[string][]*v1.Pod{}
	for _, p := range pods {
		out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
	}
	return out
}

func pdb(app string, allowed int32) policyv1.PodDisruptionBudget {
	return policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: app, Namespace: namespace},
		Spec:   policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: app}}},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed}}
}

// Each of upstream's criteria, in its order, decides between two candidates that tie on the ones before.
func TestBestCandidatesFollowsUpstreamsOrder(t *testing.T) {
	web := map[string]string{appLabel: "web"}
	for _, tc := range []struct {
		name string
		pods []*v1.Pod
		c    Candidates
		pdbs []policyv1.PodDisruptionBudget
		want []string
	}{
		{"fewest PDB violations", []*v1.Pod{onNode("a1", "a", 10, 0, web), onNode("b1", "b", 10, 1, nil)},
			Candidates{"a": {"difftest/a1"}, "b": {"difftest/b1"}}, []policyv1.PodDisruptionBudget{pdb("web", 0)},
			[]string{"b"}},
		{"a PDB with a disruption left is no violation", []*v1.Pod{onNode("a1", "a", 10, 0, web), onNode("b1", "b", 10, 0, nil)},
			Candidates{"a": {"difftest/a1"}, "b": {"difftest/b1"}}, []policyv1.PodDisruptionBudget{pdb("web", 1)},
			[]string{"a", "b"}},
		{"lowest highest victim priority", []*v1.Pod{onNode("a1", "a", 50, 0, nil), onNode("b1", "b", 10, 0, nil),
			onNode("b2", "b", 10, 0, nil)},
			Candidates{"a": {"difftest/a1"}, "b": {"difftest/b1", "difftest/b2"}}, nil, []string{"b"}},
		{"smallest priority sum", []*v1.Pod{onNode("a1", "a", 10, 0, nil), onNode("a2", "a", 5, 0, nil),
			onNode("b1", "b", 10, 0, nil), onNode("b2", "b", 1, 0, nil)},
			Candidates{"a": {"difftest/a1", "difftest/a2"}, "b": {"difftest/b1", "difftest/b2"}}, nil, []string{"b"}},
		// Upstream shifts each priority by 2^31 before summing, so an extra victim of negative
		// priority makes the sum larger, not smaller.
		{"sum of shifted priorities", []*v1.Pod{onNode("a1", "a", 10, 0, nil), onNode("a2", "a", -5, 0, nil),
			onNode("b1", "b", 10, 0, nil)},
			Candidates{"a": {"difftest/a1", "difftest/a2"}, "b": {"difftest/b1"}}, nil, []string{"b"}},
		{"latest start of the highest-priority victims", []*v1.Pod{onNode("a1", "a", 10, 5, nil),
			onNode("b1", "b", 10, 9, nil)},
			Candidates{"a": {"difftest/a1"}, "b": {"difftest/b1"}}, nil, []string{"b"}},
		{"a full tie", []*v1.Pod{onNode("a1", "a", 10, 5, nil), onNode("b1", "b", 10, 5, nil),
			onNode("c1", "c", 10, 4, nil)},
			Candidates{"a": {"difftest/a1"}, "b": {"difftest/b1"}, "c": {"difftest/c1"}}, nil, []string{"a", "b"}},
		{"a victim not on its node", []*v1.Pod{onNode("a1", "a", 10, 0, nil)},
			Candidates{"a": {"difftest/x"}}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BestCandidates(preemptor(100), tc.c, byNode(tc.pods...), tc.pdbs); !slices.Equal(got, tc.want) {
				t.Errorf("best candidates %v, want %v", got, tc.want)
			}
		})
	}
}

// Budgets are used up from the most important potential victim down, whether or not it becomes a
// victim, as upstream walks them; pods of equal or higher priority than the preemptor are no victims.
func TestPDBViolationsCountFromTheMostImportantPotentialVictim(t *testing.T) {
	web := map[string]string{appLabel: "web"}
	pods := []*v1.Pod{onNode("a-high", "a", 50, 0, web), onNode("a-low", "a", 10, 0, web),
		onNode("a-peer", "a", 100, 0, web), onNode("b1", "b", 10, 0, web)}
	c := Candidates{"a": {"difftest/a-low"}, "b": {"difftest/b1"}}
	// a-high takes a's one allowed disruption, so a-low violates; on b, b1 takes it and does not.
	if got := BestCandidates(preemptor(100), c, byNode(pods...), []policyv1.PodDisruptionBudget{pdb("web", 1)}); !slices.Equal(got, []string{"b"}) {
		t.Errorf("best candidates %v, want [b]", got)
	}
}

// Lines as upstream v1.37.2 logs them (from a difftest run): two attempts with a dry run, then one
// without.
const preemptionLog = `I1126 07:14:08.100000   32108 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-05"
I1126 07:14:08.100001   32108 default_preemption.go:406] "Pods are potential preemption victims on node" pod="difftest/pod-05" pods=[{"name":"existing-07","namespace":"difftest"}] node="node-02"
I1126 07:14:08.135914   32108 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-05"
I1126 07:14:08.136163   32108 default_preemption.go:406] "Pods are potential preemption victims on node" pod="difftest/pod-05" pods=[{"name":"existing-04","namespace":"difftest"}] node="node-01"
I1126 07:14:08.136241   32108 default_preemption.go:406] "Pods are potential preemption victims on node" pod="difftest/pod-05" pods=[{"name":"existing-13","namespace":"difftest"}] node="node-04"
I1126 07:14:08.136247   32108 default_preemption.go:406] "Pods are potential preemption victims on node" pod="difftest/pod-05" pods=[{"name":"existing-10","namespace":"difftest"}] node="node-04"
I1126 07:14:08.136305   32108 preemption.go:189] "the target node for the preemption is determined" pod="difftest/pod-05" node="node-01"
I1126 07:14:09.000000   32108 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-05"
I1126 07:14:09.100000   32108 schedule_one.go:117] "Attempting to schedule pod" pod="difftest/pod-06"
`

// Victims belong to the pod the line names, one set of candidates per attempt that ran a dry run.
func TestParseCandidates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "upstream.log")
	if err := os.WriteFile(path, []byte(preemptionLog), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ParseCandidates(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Candidates{"difftest/pod-05": {{"node-02": {"difftest/existing-07"}},
		{"node-01": {"difftest/existing-04"}, "node-04": {"difftest/existing-10", "difftest/existing-13"}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates %v, want %v", got, want)
	}
}

func TestJudgePreemption(t *testing.T) {
	pods := byNode(onNode("a1", "a", 10, 5, nil), onNode("b1", "b", 10, 5, nil), onNode("c1", "c", 50, 5, nil))
	tied := Candidates{"a": {"difftest/a1"}, "b": {"difftest/b1"}, "c": {"difftest/c1"}}
	single := Candidates{"a": {"difftest/a1"}, "c": {"difftest/c1"}}
	pre := func(nom string, victims ...string) Outcome {
		return Outcome{Pod: "p", Node: nom, Nominated: nom, Victims: victims, pod: preemptor(100), onNodes: pods}
	}
	for _, tc := range []struct {
		name   string
		up, st Outcome
		c      Candidates
		want   Verdict
	}{
		{"same node and victims", pre("a", "difftest/a1"), pre("a", "difftest/a1"), single, Agree},
		{"other node where upstream had one best", pre("a", "difftest/a1"), pre("c", "difftest/c1"), single, Disagree},
		{"other node among tied candidates", pre("a", "difftest/a1"), pre("b", "difftest/b1"), tied, TieAgree},
		{"a worse candidate", pre("a", "difftest/a1"), pre("c", "difftest/c1"), tied, Disagree},
		{"tied node, other victims", pre("a", "difftest/a1"), pre("b", "difftest/a1"), tied, Disagree},
		{"upstream's pod left nominated", Outcome{Pod: "p", Nominated: "a", Victims: []string{"difftest/a1"},
			pod: preemptor(100), onNodes: pods}, pre("c", "difftest/c1"), tied, Disagree},
		{"tied node whose victim still terminates", pre("a", "difftest/a1"),
			Outcome{Pod: "p", Nominated: "b", Victims: []string{"difftest/b1"}}, tied, TieAgree},
		{"bound elsewhere than nominated", pre("a", "difftest/a1"),
			Outcome{Pod: "p", Node: "c", Nominated: "b", Victims: []string{"difftest/b1"}}, tied, Disagree},
		{"only upstream preempted", pre("a", "difftest/a1"), unsched("p", fitMsg), single, Disagree},
		{"upstream's choice outside the model's best", pre("c", "difftest/c1"), pre("c", "difftest/c1"), single, Disagree},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := &PreemptionContext{Candidates: map[string][]Candidates{"difftest/p": {tc.c}}}
			rs := CompareWith(1, ModeSerial, []Outcome{tc.up, bound("q", "a")}, []Outcome{tc.st, bound("q", "a")}, nil, ctx)
			if rs[0].Verdict != tc.want {
				t.Fatalf("verdict %s (%s), want %s", rs[0].Verdict, rs[0].Kind, tc.want)
			}
			// Other victims leave another cluster behind, which serial mode re-pins unless upstream
			// left the pod nominated: only then is the next pod not compared.
			want := Agree
			if tc.want != Agree && !repinnable(tc.up) {
				want = NotCompared
			}
			if next := rs[1].Verdict; next != want {
				t.Errorf("next pod's verdict %s after a preemption judged %s, want %s", next, tc.want, want)
			}
			if rs := CompareWith(1, ModeBatch, []Outcome{tc.up, bound("q", "a")}, []Outcome{tc.st, bound("q", "a")},
				nil, ctx); tc.want != Agree && rs[1].Verdict != NotCompared {
				t.Errorf("batch mode compared the pod after a preemption judged %s", tc.want)
			}
		})
	}
}

// The generator must reach every preemption case it claims, always with the same state per seed.
func TestGeneratePreemptionCovers(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(0); seed < 20; seed++ {
		s := Generate(seed, 4, 8, ProfilePreemption)
		if marshal(t, s) != marshal(t, Generate(seed, 4, 8, ProfilePreemption)) {
			t.Fatalf("seed %d gave two different states", seed)
		}
		seen["PDB"] = seen["PDB"] || len(s.PDBs) > 0
		for _, p := range s.Existing {
			seen["terminating victim"] = seen["terminating victim"] || *p.Spec.TerminationGracePeriodSeconds > 0
			seen["PDB-labelled pod"] = seen["PDB-labelled pod"] || p.Labels[appLabel] != ""
			seen["existing "+p.Spec.PriorityClassName] = true
			if p.Status.StartTime == nil {
				t.Fatalf("seed %d: existing pod %s has no start time", seed, p.Name)
			}
		}
		for _, p := range s.Pods {
			seen["pod "+p.Spec.PriorityClassName] = true
			seen["nodeSelector"] = seen["nodeSelector"] || len(p.Spec.NodeSelector) > 0
		}
	}
	for _, f := range []string{"PDB", "terminating victim", "PDB-labelled pod", "existing difftest-low",
		"existing difftest-mid", "existing ", "pod difftest-high", "pod difftest-high-never",
		"pod difftest-critical", "pod ", "nodeSelector"} {
		if !seen[f] {
			t.Errorf("20 seeds generated no %q", f)
		}
	}
}

// A pod preempted for again before its victims were gone may end elsewhere for timing alone: its
// differing outcomes are not a disagreement, whichever scheduler ran the second dry run.
func TestJudgePreemptionRetried(t *testing.T) {
	pods := byNode(onNode("a1", "a", 10, 5, nil), onNode("c1", "c", 50, 5, nil))
	up := Outcome{Pod: "p", Nominated: "a", Victims: []string{"difftest/a1"}, pod: preemptor(100), onNodes: pods}
	st := Outcome{Pod: "p", Nominated: "c", Victims: []string{"difftest/c1"}}
	first := Candidates{"a": {"difftest/a1"}, "c": {"difftest/c1"}}
	if v, _, _ := JudgePreemption(up, st, []Candidates{first}, 0, nil); v != Disagree {
		t.Fatalf("one dry run each: %s, want %s", v, Disagree)
	}
	if v, _, _ := JudgePreemption(up, st, []Candidates{first, {"c": {"difftest/c1"}}}, 0, nil); v != Retried {
		t.Errorf("upstream ran two dry runs: %s, want %s", v, Retried)
	}
	if v, _, _ := JudgePreemption(up, st, []Candidates{first}, 2, nil); v != Retried {
		t.Errorf("stowage ran two dry runs: %s, want %s", v, Retried)
	}
}
