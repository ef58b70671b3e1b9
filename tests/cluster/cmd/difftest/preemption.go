package main

// Judging preemption. A pod's preemption is what the run saw of it: its status.nominatedNodeName
// and its victims, the pods deleted (or left terminating) with the DisruptionTarget condition
// while it was being decided (run.go). Where upstream had one best candidate node, stowage must
// nominate that node and evict the same pods. Where several candidates tie under upstream's
// ordering (fewest PDB violations, lowest highest victim priority, smallest priority sum, fewest
// victims, latest start time of the highest-priority victims), upstream takes the first of them
// in an order that is random, so stowage agrees when it picks any of them with the victims
// upstream's dry run found for that node.
//
// Upstream's candidates come from its log: its dry run logs each victim of each candidate node
// ("Pods are potential preemption victims on node"). With at most 100 nodes its dry run checks
// every node (minCandidateNodesAbsolute is 100), so the log lists every candidate. The ordering is
// computed here from the pods on each node when the pod came (Outcome.onNodes) and the state's
// PDBs; upstream's own choice must always be among the best, which checks this model.

import (
	"bufio"
	"os"
	"regexp"
	"slices"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Candidates are one preemption attempt's candidate nodes and the victims of each, sorted.
type Candidates map[string][]string

// victimsLine matches upstream's dry-run line, e.g. `"Pods are potential preemption victims on
// node" pod="difftest/pod-05" pods=[{"name":"existing-09","namespace":"difftest"}] node="node-03"`:
// the preemptor, the pods of one victim and the candidate node.
var (
	victimsLine = regexp.MustCompile(`"Pods are potential preemption victims on node" pod="([^"]+)" pods=\[([^\]]*)\] node="([^"]+)"`)
	victimRef   = regexp.MustCompile(`\{"name":"([^"]+)","namespace":"([^"]+)"\}`)
)

// ParseCandidates reads a scheduler's log and returns, per pod, the candidates of each of its
// attempts that ran a dry run, in order (an attempt starts at the pod's "Attempting to schedule
// pod" line). A log without upstream's dry-run lines gives none.
func ParseCandidates(path string) (map[string][]Candidates, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]Candidates{}
	fresh := map[string]bool{} // pods whose latest attempt has logged no victim yet
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := attemptLine.FindStringSubmatch(line); m != nil {
			fresh[m[1]] = true
			continue
		}
		m := victimsLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		pod, node := m[1], m[3]
		if fresh[pod] || len(out[pod]) == 0 {
			out[pod], fresh[pod] = append(out[pod], Candidates{}), false
		}
		c := out[pod][len(out[pod])-1]
		for _, v := range victimRef.FindAllStringSubmatch(m[2], -1) {
			c[node] = append(c[node], v[2]+"/"+v[1])
		}
	}
	for _, cs := range out {
		for _, c := range cs {
			for n := range c {
				slices.Sort(c[n])
			}
		}
	}
	return out, sc.Err()
}

func podKey(p *v1.Pod) string { return p.Namespace + "/" + p.Name }

func priority(p *v1.Pod) int64 {
	if p.Spec.Priority == nil {
		return 0
	}
	return int64(*p.Spec.Priority)
}

// moreImportant orders pods by priority, then earlier start time, as upstream sorts victims.
func moreImportant(a, b *v1.Pod) int {
	if pa, pb := priority(a), priority(b); pa != pb {
		if pa > pb {
			return -1
		}
		return 1
	}
	return startTime(a).Compare(startTime(b).Time)
}

// startTime is a pod's start time; the run gives every bound pod one (upstream would take "now").
func startTime(p *v1.Pod) metav1.Time {
	if p.Status.StartTime == nil {
		return metav1.Time{}
	}
	return *p.Status.StartTime
}

// pdbViolating returns the keys of the pods on a node that upstream counts as violating a PDB:
// walking the preemptor's potential victims from the most important, each one matching a PDB
// uses one of its allowed disruptions, and a pod that finds one exhausted violates it.
func pdbViolating(potential []*v1.Pod, pdbs []policyv1.PodDisruptionBudget) map[string]bool {
	allowed := make([]int32, len(pdbs))
	for i := range pdbs {
		allowed[i] = pdbs[i].Status.DisruptionsAllowed
	}
	out := map[string]bool{}
	for _, p := range potential {
		for i := range pdbs {
			sel, err := metav1.LabelSelectorAsSelector(pdbs[i].Spec.Selector)
			if pdbs[i].Namespace != p.Namespace || err != nil || sel.Empty() || len(p.Labels) == 0 ||
				!sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			if _, disrupted := pdbs[i].Status.DisruptedPods[p.Name]; disrupted {
				continue
			}
			if allowed[i]--; allowed[i] < 0 {
				out[podKey(p)] = true
				break
			}
		}
	}
	return out
}

// candidateScore is one node's standing under upstream's ordering; smaller is better, field by field.
type candidateScore struct {
	violations, highest, sum, count int64
	earliest                        int64 // negated start time of the highest-priority victims
}

// BestCandidates returns the candidate nodes upstream's ordering cannot tell apart, sorted, or
// nil when a candidate names a pod that was not on its node when the pod came.
func BestCandidates(preemptor *v1.Pod, c Candidates, onNodes map[string][]*v1.Pod,
	pdbs []policyv1.PodDisruptionBudget) []string {
	scores := map[string]candidateScore{}
	for node, victims := range c {
		var potential []*v1.Pod
		byKey := map[string]*v1.Pod{}
		for _, p := range onNodes[node] {
			if priority(p) < priority(preemptor) {
				potential = append(potential, p)
				byKey[podKey(p)] = p
			}
		}
		slices.SortStableFunc(potential, moreImportant)
		violating := pdbViolating(potential, pdbs)
		var s candidateScore
		var vs []*v1.Pod
		for _, k := range victims {
			p := byKey[k]
			if p == nil {
				return nil
			}
			vs = append(vs, p)
			if violating[k] {
				s.violations++
			}
			s.sum += priority(p) + 1<<31 // upstream shifts priorities to be positive
		}
		slices.SortStableFunc(vs, moreImportant)
		// Sorted by importance, the first victim is the earliest of those of the highest priority.
		s.highest, s.count = priority(vs[0]), int64(len(vs))
		s.earliest = -startTime(vs[0]).UnixNano()
		scores[node] = s
	}
	var best []string
	var top candidateScore
	for node, s := range scores {
		switch cmp := compareScores(s, top); {
		case len(best) == 0 || cmp < 0:
			best, top = []string{node}, s
		case cmp == 0:
			best = append(best, node)
		}
	}
	slices.Sort(best)
	return best
}

func compareScores(a, b candidateScore) int {
	for _, d := range [][2]int64{{a.violations, b.violations}, {a.highest, b.highest}, {a.sum, b.sum},
		{a.count, b.count}, {a.earliest, b.earliest}} {
		if d[0] != d[1] {
			if d[0] < d[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// preempted reports whether a scheduler preempted for the pod.
func (o Outcome) preempted() bool { return o.Nominated != "" || len(o.Victims) > 0 }

// JudgePreemption compares two outcomes of which at least one preempted, given upstream's dry
// runs for the pod and how many stowage ran (when its log says). The first dry run made the
// first nomination. It returns the verdict, upstream's best candidates when several tie (whatever
// the verdict) and, for a disagreement, its kind.
//
// A scheduler that ran a second dry run for the pod retried it before its victims were gone from
// its cache, and what that retry saw depends on timing: upstream against itself nominated another
// node so (seed 407 of --seed 400 --states 10 --nodes 8 --pods 12). Outcomes that differ then are
// Retried, not a disagreement, as in batch mode.
func JudgePreemption(up, st Outcome, runs []Candidates, stRuns int, pdbs []policyv1.PodDisruptionBudget) (Verdict, []string, string) {
	var c Candidates
	if len(runs) > 0 {
		c = runs[0]
	}
	retried := len(runs) > 1 || stRuns > 1
	var best []string
	if up.preempted() && up.pod != nil && len(c) > 0 {
		best = BestCandidates(up.pod, c, up.onNodes, pdbs)
		if !slices.Contains(best, up.Nominated) && !retried {
			return Disagree, best, "preemption: upstream's own choice is not among the best candidates the model finds"
		}
	}
	same := up.Nominated == st.Nominated && up.Node == st.Node && slices.Equal(up.Victims, st.Victims)
	if len(best) < 2 {
		best = nil
	}
	switch {
	case same:
		return Agree, best, ""
	case retried:
		return Retried, best, ""
	case !up.preempted() || !st.preempted():
		return Disagree, nil, "preemption: only one scheduler preempted"
	// Whether the pod is bound by the end depends on its own victims' grace periods, so it may
	// differ from upstream's; where bound, it must be on the node it nominated.
	case len(best) > 1 && slices.Contains(best, st.Nominated) && slices.Equal(st.Victims, c[st.Nominated]) &&
		(st.Node == "" || st.Node == st.Nominated):
		return TieAgree, best, ""
	case up.Nominated != st.Nominated:
		return Disagree, best, "preemption: nominated node"
	case !slices.Equal(up.Victims, st.Victims):
		return Disagree, best, "preemption: victims"
	}
	return Disagree, best, "placement after preemption"
}

// victimKeys is a sorted copy of keys; no victims is nil, so that outcomes compare equal.
func victimKeys(keys []string) []string {
	if len(keys) == 0 {
		return nil
	}
	out := slices.Clone(keys)
	slices.Sort(out)
	return slices.Compact(out)
}

// disruptionTarget reports whether the pod carries the condition a preempting scheduler sets.
func disruptionTarget(p *v1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.DisruptionTarget && c.Status == v1.ConditionTrue && c.Reason == v1.PodReasonPreemptionByScheduler {
			return true
		}
	}
	return false
}
