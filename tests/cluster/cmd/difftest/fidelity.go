package main

// The fidelity modes check stowage's two offline answers on the generated states:
//
//	explain:  with no scheduler running, each pod of the state is created and `stowage explain`
//	          asked about it; its feasible nodes, its final and per-plugin scores, its pick and,
//	          for a pod upstream could not place, its message must be those upstream's serial run
//	          logged at -v=10 for the same pod against the same cluster. The pod is then pinned
//	          to upstream's outcome (bound to its node, or deleted), as serial mode re-pins.
//	simulate: with no scheduler running, every pod of the state is created pending, the cluster
//	          is taken by `stowage snapshot` and scheduled by `stowage simulate --seed N`; then
//	          the live stowage, started with `--random-seed=N` on the same cluster, schedules
//	          the same pods, and each pod's node (or message) must be the one simulate printed.
//
// Neither mode applies to the profiles whose pods need controllers or preemption (preemption,
// storage, dra): their outcomes change the cluster in ways no pin restores.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The fidelity modes, run after serial and batch.
const (
	ModeExplain  = "explain"
	ModeSimulate = "simulate"
)

// fidelityProfile reports whether the fidelity modes can run a state of profile p.
func fidelityProfile(p string) bool { return p == ProfileBasic || p == ProfileAffinity }

// explanation is the part of `stowage explain -o json` compared here.
type explanation struct {
	Filter []struct {
		Node string `json:"node"`
		Code string `json:"code"`
	} `json:"filter"`
	Scores []struct {
		Node    string `json:"node"`
		Total   int64  `json:"total"`
		Plugins []struct {
			Plugin   string `json:"plugin"`
			Weighted int64  `json:"weighted"`
		} `json:"plugins"`
	} `json:"scores"`
	Best          []string `json:"best"`
	Unschedulable string   `json:"unschedulable"`
	Error         string   `json:"error"`
}

// simulation is the part of `stowage simulate -o json` compared here.
type simulation struct {
	Pods []struct {
		Pod     string `json:"pod"`
		Node    string `json:"node"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	} `json:"pods"`
}

// runStowage runs the stowage binary with args (a minute at most) and returns its standard
// output; its standard error is appended to logPath.
func runStowage(ctx context.Context, bin, logPath string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	fmt.Fprintf(log, "# %s %s\n", bin, strings.Join(args, " "))
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, log
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("stowage %s: %w; see %s", args[0], err, logPath)
	}
	return out.Bytes(), nil
}

// prepare leaves the cluster holding the state's objects, nodes and existing pods, with no
// scheduler running.
func (x *Runner) prepare(ctx context.Context, st *State) error {
	if err := x.clearPods(ctx); err != nil {
		return err
	}
	if err := x.deleteNodes(ctx); err != nil {
		return err
	}
	if err := x.applyObjects(ctx, st); err != nil {
		return err
	}
	x.storage, x.dra = false, false
	for i := range st.Nodes {
		if _, err := x.cs.CoreV1().Nodes().Create(ctx, &st.Nodes[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating node %s: %w", st.Nodes[i].Name, err)
		}
	}
	for i := range st.Existing {
		if err := x.createPod(ctx, &st.Existing[i], st.Existing[i].Spec.NodeName); err != nil {
			return err
		}
	}
	return nil
}

// Explain runs the explain mode: up are upstream's serial outcomes of st's pods, upLog its log.
func (x *Runner) Explain(ctx context.Context, bin, tag string, st State, up []Outcome, upLog string) ([]Result, error) {
	scores, err := ParseScores(upLog)
	if err != nil {
		return nil, err
	}
	plugins, err := ParsePluginScores(upLog)
	if err != nil {
		return nil, err
	}
	if err := x.prepare(ctx, &st); err != nil {
		return nil, err
	}
	logPath := filepath.Join(x.dir, fmt.Sprintf("%s-explain-stowage.log", tag))
	cfg, err := x.schedulerConfig(&st)
	if err != nil {
		return nil, err
	}
	var rs []Result
	for i := range st.Pods {
		pod, u := &st.Pods[i], up[i]
		if err := x.createPod(ctx, pod, ""); err != nil {
			return nil, err
		}
		b, err := runStowage(ctx, bin, logPath, "explain", u.Key(), "-o", "json", "--config="+cfg)
		if err != nil {
			return nil, err
		}
		var e explanation
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("explain %s: its JSON: %w", u.Key(), err)
		}
		r := Result{Seed: st.Seed, Mode: ModeExplain, Upstream: u, Verdict: Agree, Scores: scores[u.Key()]}
		r.Stowage = Outcome{Namespace: u.Namespace, Pod: u.Pod, Node: strings.Join(e.Best, " or "),
			Message: e.Unschedulable}
		if e.Node() == "" && e.Unschedulable != "" {
			r.Stowage.Reason = "Unschedulable"
		}
		switch {
		case u.Reason == "Timeout":
			r.Verdict = NotCompared
		default:
			if kind := compareExplanation(u, &e, scores[u.Key()], plugins[u.Key()]); kind != "" {
				r.Verdict, r.Kind = Disagree, kind
			} else if len(e.Best) > 1 {
				r.Verdict, r.Tied = TieAgree, e.Best
			}
		}
		rs = append(rs, r)
		// Pinned to upstream's outcome, so the next pod meets the cluster upstream's next pod met.
		if err := x.deletePod(ctx, pod); err != nil {
			return nil, err
		}
		if u.Node != "" {
			if err := x.createPod(ctx, pod, u.Node); err != nil {
				return nil, err
			}
		}
	}
	return rs, x.clearPods(ctx)
}

// Node is the pick when it is a single node.
func (e *explanation) Node() string {
	if len(e.Best) == 1 {
		return e.Best[0]
	}
	return ""
}

// compareExplanation returns what differs between explain's answer and upstream's decision
// and -v=10 scores of the pod, or "".
func compareExplanation(u Outcome, e *explanation, scores Scores, plugins PluginScores) string {
	if e.Error != "" {
		return "explain: error"
	}
	var feasible []string
	for _, f := range e.Filter {
		if f.Code == "Success" {
			feasible = append(feasible, f.Node)
		}
	}
	slices.Sort(feasible)
	if u.Node == "" {
		// Upstream appends its preemption's verdict to the FitError explain prints.
		if e.Unschedulable == "" || !strings.HasPrefix(u.Message, e.Unschedulable) {
			return "explain: message"
		}
		if len(feasible) > 0 {
			return "explain: feasible nodes"
		}
		return ""
	}
	if e.Unschedulable != "" {
		return "explain: unschedulable"
	}
	if len(scores) == 0 {
		// Upstream scores nothing when one node is feasible.
		if !slices.Equal(feasible, []string{u.Node}) {
			return "explain: feasible nodes"
		}
		return ""
	}
	var want []string
	for n := range scores {
		want = append(want, n)
	}
	slices.Sort(want)
	if !slices.Equal(feasible, want) {
		return "explain: feasible nodes"
	}
	var kinds []string
	for _, s := range e.Scores {
		if s.Total != scores[s.Node] {
			kinds = append(kinds, "explain: final scores")
			break
		}
	}
	for _, s := range e.Scores {
		got := map[string]int64{}
		for _, p := range s.Plugins {
			got[p.Plugin] = p.Weighted
		}
		differs := false
		for plugin, v := range plugins[s.Node] {
			// A plugin that skipped the pod is left out by explain; upstream logs it at 0.
			if w, ok := got[plugin]; (ok && w != v) || (!ok && v != 0) {
				differs = true
			}
		}
		if differs {
			kinds = append(kinds, "explain: plugin scores")
			break
		}
	}
	best := slices.Clone(e.Best)
	slices.Sort(best)
	if !slices.Equal(best, scores.Top()) || !slices.Contains(best, u.Node) {
		kinds = append(kinds, "explain: pick")
	}
	return strings.Join(kinds, " + ")
}

// Simulate runs the simulate mode with stowage s.
func (x *Runner) Simulate(ctx context.Context, s Scheduler, tag string, st State) ([]Result, error) {
	if err := x.prepare(ctx, &st); err != nil {
		return nil, err
	}
	for i := range st.Pods {
		if err := x.createPod(ctx, &st.Pods[i], ""); err != nil {
			return nil, err
		}
	}
	cfg, err := x.schedulerConfig(&st)
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(x.dir, fmt.Sprintf("%s-simulate-stowage.log", tag))
	snap := filepath.Join(x.dir, fmt.Sprintf("snapshot-%s.yaml", tag))
	if _, err := runStowage(ctx, s.Binary, logPath, "snapshot", "-o", snap, "--config="+cfg); err != nil {
		return nil, err
	}
	seed := fmt.Sprint(st.Seed % 1_000_000)
	simLog := filepath.Join(x.dir, fmt.Sprintf("%s-simulate-simulated.log", tag))
	b, err := runStowage(ctx, s.Binary, simLog, "simulate", snap, "--seed", seed, "-o", "json", "--config="+cfg, "-v=3")
	if err != nil {
		return nil, err
	}
	var sim simulation
	if err := json.Unmarshal(b, &sim); err != nil {
		return nil, fmt.Errorf("simulate: its JSON: %w", err)
	}
	simulated := map[string]Outcome{}
	for _, p := range sim.Pods {
		simulated[p.Pod] = Outcome{Node: p.Node, Reason: p.Reason, Message: p.Message}
	}
	// The live stowage lists the pods it finds pending, as simulate read them from the snapshot.
	livePath := filepath.Join(x.dir, fmt.Sprintf("%s-simulate-live.log", tag))
	proc, err := startScheduler(s, cfg, livePath, "--random-seed="+seed)
	if err != nil {
		return nil, err
	}
	defer proc.stop()
	alive := func() bool { return proc.alive() }
	live, err := x.together(ctx, st.Pods, alive)
	if err == nil && !alive() {
		err = fmt.Errorf("stowage exited during the run; see %s", livePath)
	}
	proc.stop()
	if err != nil {
		return nil, err
	}
	simTries, err := attemptMessages(simLog)
	if err != nil {
		return nil, err
	}
	liveTries, err := attemptMessages(livePath)
	if err != nil {
		return nil, err
	}
	var rs []Result
	diverged := false
	for _, l := range live {
		o, ok := simulated[l.Key()]
		o.Namespace, o.Pod = l.Namespace, l.Pod
		if !ok {
			o.Reason, o.Message = "Missing", "not in simulate's output"
		}
		o.Attempts, l.Attempts = len(simTries[l.Key()]), len(liveTries[l.Key()])
		r := Result{Seed: st.Seed, Mode: ModeSimulate, Upstream: l, Stowage: o, Verdict: Agree}
		// Simulate applies each binding before the next cycle; the live scheduler's cycles run
		// ahead of its bindings, whose events may then requeue a pod simulate rejected after
		// them. Such a pod is judged by the live attempt simulate's last attempt corresponds to.
		retried := o.Node == "" && o.Attempts > 0 && o.Attempts < l.Attempts &&
			liveTries[l.Key()][o.Attempts-1] == simTries[l.Key()][o.Attempts-1]
		switch {
		case diverged || l.Reason == "Timeout":
			r.Verdict = NotCompared
		case o.Node != l.Node && retried:
			r.Verdict, diverged = Retried, true
		case o.Node != l.Node:
			r.Verdict, r.Kind, diverged = Disagree, "simulate: placement", true
		case o.Node == "" && o.Reason != l.Reason:
			r.Verdict, r.Kind = Disagree, "simulate: reason"
		case o.Node == "" && o.Message != l.Message && retried:
			r.Verdict = Retried
		case o.Node == "" && o.Message != l.Message:
			r.Verdict, r.Kind = Disagree, "simulate: message"
		}
		rs = append(rs, r)
	}
	return rs, x.clearPods(ctx)
}

// failedLine matches stowage's line for a failed attempt (schedule_one.cc).
var failedLine = regexp.MustCompile(`\] unable to schedule pod ([^ :]+): (.*)$`)

// attemptMessages reads a stowage log and returns, per pod, its message at each attempt, in
// order ("" for an attempt that did not fail).
func attemptMessages(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if m := attemptLine.FindStringSubmatch(line); m != nil {
			out[m[1]] = append(out[m[1]], "")
		} else if m := failedLine.FindStringSubmatch(line); m != nil && len(out[m[1]]) > 0 {
			out[m[1]][len(out[m[1]])-1] = m[2]
		}
	}
	return out, nil
}
