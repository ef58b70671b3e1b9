package main

// Comparing stowage's outcomes with upstream's, pod by pod.
//
// Placement: equal nodes agree. Where upstream's last scoring pass of the pod had several nodes
// at the top score, both schedulers choose among them at random, so stowage agrees when it picks
// any of them (a tie). Where upstream logged no scores (one feasible node), only its node agrees.
//
// Unschedulable: the PodScheduled reason, observedGeneration and message must be equal, after the parts of upstream's
// message that come from plugins stowage does not have yet are cut off and counted as owed.
//
// Serial mode moves every pod to upstream's node (run.go), so each pod is compared. In batch
// mode a different placement changes what every later pod sees, so comparison stops
// at the first pod placed differently, tie or not; the rest count as not compared.
//
// Claims (storage profile): where both placed the pod on one node (or, in serial mode, both
// left it unschedulable), each of its claims must end alike (ClaimsAgree): the same phase,
// selected-node annotation and volume, a twin of upstream's static volume counting as a tie;
// and, in serial mode, the nominated node written before a binding that waits (PreBind) must be
// the same. (In batch mode whether a pod finds binding work depends on timing: a pod sharing a
// claim with one whose PreBind runs finds it bound or not yet, and upstream itself nominated a
// pod tried while the other's PreBind had not yet written the volume's claimRef.) Claims
// ending differently, placed alike or not, leave the runs with different volumes: serial mode
// cannot re-pin them, so its later pods using a claim that waited for its first consumer are
// not compared; batch mode stops comparing there as after a placement. In the dra profile so
// are the later pods asking for an extended resource a DeviceClass provides (Outcome.extended):
// where a node lacks it, its Filter and scores count the devices claims hold.

import (
	"regexp"
	"slices"
	"strings"

	policyv1 "k8s.io/api/policy/v1"
)

// Verdict of one pod.
type Verdict string

const (
	Agree       Verdict = "agree"
	TieAgree    Verdict = "tie"          // different node among upstream's tied top nodes
	Disagree    Verdict = "disagree"     // anything else
	NotCompared Verdict = "not-compared" // after a placement divergence in batch mode
	// Retried: batch mode, both schedulers tried the pod more than once, and the outcomes differ
	// (placement, or the message under one reason). A queueing hint requeues a pod when another
	// pod is added or bound, and where its retry falls among the other pods' cycles depends on
	// timing (upstream against itself differed so), so the last outcome is no verdict. So is a
	// pod one scheduler retried after a binding cycle failed in PreBind (a write conflict on a
	// claim two pods' PreBinds share, which depends on timing; upstream then requeues every
	// unschedulable pod). Any other pod only one scheduler retried still disagrees; serial
	// mode compares every pod's first attempt.
	Retried Verdict = "retried"
	// Reordered: batch mode, the outcomes differ, both tried the pod as often, and the pods
	// bound before its deciding cycle differ between the runs: another pod's retry fell elsewhere (upstream bound a retried
	// pod after it, stowage before), so the two saw different clusters.
	Reordered Verdict = "reordered"
)

// owedMarkers start the parts of upstream's messages owed to plugins stowage lacks. None now:
// DefaultPreemption's PostFilter text, the last one, is compared like the rest of the message.
// A plugin upstream adds to the default profile before stowage has it adds its marker here.
var owedMarkers []string

// Result is the comparison of one pod.
type Result struct {
	Seed     uint64   `json:"seed"`
	Mode     string   `json:"mode"`
	Upstream Outcome  `json:"upstream"`
	Stowage  Outcome  `json:"stowage"`
	Verdict  Verdict  `json:"verdict"`
	Tied     []string `json:"tied,omitempty"`   // upstream's top-score nodes when more than one
	Scores   Scores   `json:"scores,omitempty"` // upstream's last scoring pass
	Owed     string   `json:"owed,omitempty"`   // cut from upstream's message
	Kind     string   `json:"kind,omitempty"`   // what differs, for a disagreement
	// Plugins: upstream's plugin scores of its node and stowage's, for a placement disagreement.
	Plugins PluginScores `json:"plugins,omitempty"`
	// ClaimTie: a claim of the pod got a twin of upstream's static volume.
	ClaimTie bool `json:"claimTie,omitempty"`
}

// SplitOwed cuts the owed part off an upstream message.
func SplitOwed(msg string) (core, owed string) {
	for _, m := range owedMarkers {
		if i := strings.Index(msg, m); i >= 0 {
			return msg[:i], msg[i+1:]
		}
	}
	return msg, ""
}

// Compare judges stowage's outcomes against upstream's (same pods, same order). scores are
// upstream's per pod, keyed "namespace/name".
func Compare(seed uint64, mode string, up, st []Outcome, scores map[string]Scores) []Result {
	return CompareWith(seed, mode, up, st, scores, nil)
}

// PreemptionContext is what judging preemption needs beyond the outcomes: upstream's candidates
// per pod (from its log) and the state's PDBs.
type PreemptionContext struct {
	Candidates map[string][]Candidates // upstream's dry runs per pod
	DryRuns    map[string]int          // stowage's dry runs per pod, where its log has upstream's lines
	PDBs       []policyv1.PodDisruptionBudget
}

// CompareWith is Compare, judging the pods either scheduler preempted for by JudgePreemption
// when pre is given (the preemption profile). A preemption judged other than equal changes what
// every later pod sees (other victims are gone): serial mode re-pins the victims (repin.go) unless
// upstream left the pod nominated; otherwise comparison stops there.
func CompareWith(seed uint64, mode string, up, st []Outcome, scores map[string]Scores, pre *PreemptionContext) []Result {
	var out []Result
	diverged := false
	volumesDiverged := false // serial mode: the claims of an earlier pod ended differently
	for i := range up {
		r := Result{Seed: seed, Mode: mode, Upstream: up[i], Stowage: st[i]}
		if s := scores[up[i].Key()]; up[i].Node != "" && len(s) > 0 {
			r.Scores = s
			if top := s.Top(); len(top) > 1 {
				r.Tied = top
			}
		}
		core, owed := SplitOwed(up[i].Message)
		if st[i].Message != up[i].Message { // a stowage that has the plugin owes nothing
			r.Owed = owed
		}
		// A binding cycle failing in PreBind (a conflict writing a claim or volume that another
		// pod's PreBind wrote first, which depends on timing) requeues the unschedulable pods.
		retried := mode == ModeBatch && ((up[i].Attempts > 1 && st[i].Attempts > 1) ||
			up[i].retriedAfterBindingFailure || st[i].retriedAfterBindingFailure)
		// A pod one scheduler retried and the other did not (a queueing hint missing) is no
		// victim of another's retry, however its cycles fell.
		reordered := mode == ModeBatch && up[i].Attempts == st[i].Attempts &&
			!slices.Equal(up[i].boundBefore, st[i].boundBefore)
		preempted := pre != nil && (up[i].preempted() || st[i].preempted())
		switch {
		case diverged, volumesDiverged && (usesDynamicClaim(up[i]) || up[i].extended):
			r.Verdict = NotCompared
		case preempted:
			r.Verdict, r.Tied, r.Kind = JudgePreemption(up[i], st[i], pre.Candidates[up[i].Key()],
				pre.DryRuns[up[i].Key()], pre.PDBs)
			diverged = r.Verdict != Agree && (mode != ModeSerial || !repinnable(up[i]))
		case up[i].Node != st[i].Node:
			r.Verdict = Disagree
			if up[i].Node != "" && st[i].Node != "" && slices.Contains(r.Tied, up[i].Node) &&
				slices.Contains(r.Tied, st[i].Node) {
				r.Verdict = TieAgree
			} else if retried {
				r.Verdict = Retried
			} else if reordered {
				r.Verdict = Reordered
			}
			diverged = mode != ModeSerial
		case up[i].Node != "" || (up[i].Reason == st[i].Reason &&
			up[i].ObservedGeneration == st[i].ObservedGeneration &&
			(core == st[i].Message || up[i].Message == st[i].Message)):
			r.Verdict = Agree
		case retried && up[i].Reason == st[i].Reason:
			r.Verdict = Retried
		case reordered && up[i].Reason == st[i].Reason:
			r.Verdict = Reordered
		default:
			r.Verdict = Disagree
		}
		if r.Verdict == Disagree && !preempted {
			r.Kind = Kind(up[i], st[i], core)
		}
		if pre == nil && r.Verdict != NotCompared && (len(up[i].Claims) > 0 || len(st[i].Claims) > 0) {
			// Claims end alike or differently whatever the verdict; an unschedulable batch pod's
			// claims may have been bound by a later pod, so only placed ones count there.
			same, tie := ClaimsAgree(up[i].Claims, st[i].Claims)
			if !same && (mode == ModeSerial || up[i].Node != "" || st[i].Node != "") {
				volumesDiverged = volumesDiverged || (mode == ModeSerial && !st[i].claimsPinned)
				diverged = diverged || mode != ModeSerial
			}
			judged := r.Verdict == Agree && (mode == ModeSerial || up[i].Node != "")
			switch {
			case judged && !same:
				r.Verdict, r.Kind = Disagree, "claims"
			case judged && tie:
				r.Verdict, r.ClaimTie = TieAgree, true
			}
		}
		if pre == nil && mode == ModeSerial && up[i].Node != "" && up[i].Node == st[i].Node &&
			up[i].Nominated != st[i].Nominated &&
			(r.Verdict == Agree || r.Verdict == TieAgree || r.Verdict == Disagree) {
			r.Verdict = Disagree
			r.Kind = strings.TrimPrefix(r.Kind+" + nominated node before binding", " + ")
		}
		out = append(out, r)
	}
	return out
}

var digits = regexp.MustCompile(`[0-9]+`)

// OwedShape is an owed part with its numbers replaced by N, to count alike parts together.
func OwedShape(owed string) string { return digits.ReplaceAllString(owed, "N") }

// Kind names what differs between two outcomes (core is upstream's message without owed parts),
// each difference once, joined by " + ", so that a report groups disagreements of one cause.
func Kind(up, st Outcome, core string) string {
	if up.Node != st.Node {
		return "placement"
	}
	var kinds []string
	if up.Reason != st.Reason {
		kinds = append(kinds, "reason")
	}
	if up.ObservedGeneration != st.ObservedGeneration {
		kinds = append(kinds, "condition's observedGeneration")
	}
	if core != st.Message && up.Message != st.Message {
		switch {
		case slices.Equal(reasonItems(core), reasonItems(st.Message)):
			kinds = append(kinds, "message: the same reasons in another order")
		case strings.Contains(st.Message, "plugin(s) [PreFilter]") && !strings.Contains(core, "[PreFilter]"):
			kinds = append(kinds, "message: [PreFilter] where upstream names the plugin")
		default:
			kinds = append(kinds, "message")
		}
	}
	return strings.Join(kinds, " + ")
}

// reasonItems are the "<count> <reason>" parts of a FitError message, sorted.
func reasonItems(msg string) []string {
	_, rest, ok := strings.Cut(msg, " are available: ")
	if !ok {
		return nil
	}
	items := strings.Split(strings.TrimSuffix(rest, "."), ", ")
	slices.Sort(items)
	return items
}

// ClaimsAgree compares the claims of one pod as the two runs left them. same: every claim
// ended alike, its volume the same or an identical twin; tie: a twin.
func ClaimsAgree(up, st []ClaimOutcome) (same, tie bool) {
	if len(up) != len(st) {
		return false, false
	}
	for i := range up {
		a, b := up[i], st[i]
		if a.Claim != b.Claim || a.Missing != b.Missing || a.Phase != b.Phase || a.SelectedNode != b.SelectedNode ||
			!slices.Equal(a.ClaimRefs, b.ClaimRefs) || !slices.Equal(a.Devices, b.Devices) {
			return false, false
		}
		if a.Volume != b.Volume {
			if a.Twin == "" || a.Twin != b.Twin {
				return false, false
			}
			tie = true
		}
	}
	return true, tie
}

// usesDynamicClaim: one of the pod's claims waited for its first consumer when the run began.
func usesDynamicClaim(o Outcome) bool {
	return slices.ContainsFunc(o.Claims, func(c ClaimOutcome) bool { return c.dynamic })
}
