package main

// The schedulers under comparison run as child processes with the same flags and the same
// configuration file; upstream's log is read afterwards for the per-node final scores.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"stowage.dev/tests/cluster/internal/loopback"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Scheduler is a scheduler binary under test.
type Scheduler struct {
	Name   string // "upstream" or "stowage"
	Binary string
}

// process is a running scheduler.
type process struct {
	cmd    *exec.Cmd
	log    *os.File
	exited chan struct{}
}

// writeSchedulerConfig writes the configuration both schedulers get: the default profile,
// no leader election, and client limits high enough that the client never paces a run. A
// state's scoring (the dra profile's) configures the default profile's NodeResourcesFit
// (Runner.schedulerConfig); without it the file is the same for every state.
func writeSchedulerConfig(path, kubeconfig string, sc *Scoring) error {
	cfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: 1000
  burst: 2000
leaderElection:
  leaderElect: false
`, kubeconfig)
	if sc != nil {
		cfg += scoringProfile(sc)
	}
	return os.WriteFile(path, []byte(cfg), 0o600)
}

// scoringProfile is the profiles section of a state's scoring: the default scheduler's
// plugins as by default, NodeResourcesFit's scoring strategy over sc's resources, each of
// weight 1.
func scoringProfile(sc *Scoring) string {
	var b strings.Builder
	b.WriteString("profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n")
	b.WriteString("  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n")
	fmt.Fprintf(&b, "        type: %s\n        resources:\n", sc.Type)
	for _, r := range sc.Resources {
		fmt.Fprintf(&b, "        - name: %s\n          weight: 1\n", r)
	}
	if len(sc.Shape) > 0 {
		b.WriteString("        requestedToCapacityRatio:\n          shape:\n")
		for _, pt := range sc.Shape {
			fmt.Fprintf(&b, "          - utilization: %d\n            score: %d\n", pt[0], pt[1])
		}
	}
	return b.String()
}

// schedulerArgs are the flags of both schedulers. schedule_one.go logs every node's final score
// at V(10); raising only that file keeps the client's request dumps of -v=10 out of the log.
// default_preemption.go logs each candidate node's victims at V(5) (preemption.go reads them).
func schedulerArgs(config string, port int) []string {
	return []string{"--config=" + config, fmt.Sprintf("--secure-port=%d", port),
		"--bind-address=127.0.0.1", "-v=3", "--vmodule=schedule_one=10,default_preemption=5"}
}

// startScheduler starts s with its output in logPath and extra flags after the common ones.
func startScheduler(s Scheduler, config, logPath string, extra ...string) (*process, error) {
	port, err := loopback.FreePort()
	if err != nil {
		return nil, err
	}
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	args := append(schedulerArgs(config, port), extra...)
	fmt.Fprintf(log, "# %s %s\n", s.Binary, strings.Join(args, " "))
	p := &process{cmd: exec.Command(s.Binary, args...), log: log, exited: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = log, log
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", s.Binary, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	return p, nil
}

// alive reports whether the process still runs.
func (p *process) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM and kills after 10 s.
func (p *process) stop() {
	if p.alive() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
	p.log.Close()
}

// Scores are one scheduling attempt's per-node final scores of a pod.
type Scores map[string]int64

// scoreLine matches upstream's "Calculated node's final score for pod" (klog text format).
var scoreLine = regexp.MustCompile(`"Calculated node's final score for pod" pod="([^"]+)" node="([^"]+)" score=(-?\d+)`)

// ParseScores reads a scheduler log and returns, per pod ("namespace/name"), the scores of its
// last scoring pass. Scheduling cycles run one at a time, so a pass is a run of score lines of
// one pod; a node seen again in the run starts a new pass (the same pod tried again).
func ParseScores(path string) (map[string]Scores, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]Scores{}
	last := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		m := scoreLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		score, _ := strconv.ParseInt(m[3], 10, 64)
		pass := out[m[1]]
		if _, seen := pass[m[2]]; m[1] != last || seen {
			pass = Scores{}
			out[m[1]] = pass
		}
		last = m[1]
		pass[m[2]] = score
	}
	return out, sc.Err()
}

// pluginLine matches upstream's "Plugin scored node for pod" (weighted, before the sum).
var pluginLine = regexp.MustCompile(`"Plugin scored node for pod" pod="([^"]+)" plugin="([^"]+)" node="([^"]+)" score=(-?\d+)`)

// PluginScores are one scoring pass's weighted scores of a pod: node -> plugin -> score.
type PluginScores map[string]map[string]int64

// ParsePluginScores reads upstream's log and returns, per pod, the plugin scores of its last
// scoring pass (a plugin scoring a node again starts a new pass), to show which plugin set
// upstream's node apart when stowage chose another.
func ParsePluginScores(path string) (map[string]PluginScores, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]PluginScores{}
	for _, m := range pluginLine.FindAllSubmatch(b, -1) {
		pod, plugin, node := string(m[1]), string(m[2]), string(m[3])
		score, _ := strconv.ParseInt(string(m[4]), 10, 64)
		pass := out[pod]
		if _, seen := pass[node][plugin]; pass == nil || seen {
			pass = PluginScores{}
			out[pod] = pass
		}
		if pass[node] == nil {
			pass[node] = map[string]int64{}
		}
		pass[node][plugin] = score
	}
	return out, nil
}

// attemptLine matches the line both schedulers log when a cycle takes a pod (upstream quotes
// the message, stowage does not).
var attemptLine = regexp.MustCompile(`Attempting to schedule pod"? pod="([^"]+)"`)

// bindingFailureLine matches the lines the schedulers log when a plugin fails, as a binding
// cycle does in PreBind (upstream: "Plugin failed" at once, then "Error scheduling pod;
// retrying" err="running PreBind plugin ..."; stowage: "unable to schedule pod P: running
// PreBind plugin ..."). Both then move every unschedulable pod an assigned pod's deletion could
// help back to the queue, and log the failure's own line only after that: a pod requeued so
// may be tried just before the line (failureSlack).
var bindingFailureLine = regexp.MustCompile(`"Plugin failed"|running PreBind plugin`)

const failureSlack = 100 * time.Millisecond

// lineTime is the klog time of the line holding offset i ("I1129 17:58:34.275987 ..."), or
// the zero time.
func lineTime(b []byte, i int) time.Time {
	start := bytes.LastIndexByte(b[:i], '\n') + 1
	if len(b) < start+21 {
		return time.Time{}
	}
	t, err := time.Parse("0102 15:04:05.000000", string(b[start+1:start+21]))
	if err != nil {
		return time.Time{}
	}
	return t
}

// SetAttempts fills each outcome's Attempts, boundBefore and retriedAfterBindingFailure from a
// scheduler's log. A pod that ended bound was bound by its last attempt, and every cycle sees
// the pods bound (or assumed) by the cycles before it.
func SetAttempts(path string, outcomes []Outcome) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	n, last := map[string]int{}, map[string]int{}
	times := map[string][]time.Time{} // of the first two attempts
	for i, m := range attemptLine.FindAllSubmatchIndex(b, -1) {
		k := string(b[m[2]:m[3]])
		n[k]++
		last[k] = i
		if len(times[k]) < 2 {
			times[k] = append(times[k], lineTime(b, m[0]))
		}
	}
	var failures []time.Time
	for _, m := range bindingFailureLine.FindAllIndex(b, -1) {
		failures = append(failures, lineTime(b, m[0]))
	}
	for i := range outcomes {
		k := outcomes[i].Key()
		outcomes[i].Attempts = n[k]
		outcomes[i].retriedAfterBindingFailure = false
		if t := times[k]; len(t) == 2 && !t[0].IsZero() {
			outcomes[i].retriedAfterBindingFailure = slices.ContainsFunc(failures, func(f time.Time) bool {
				return f.After(t[0]) && f.Before(t[1].Add(failureSlack))
			})
		}
		outcomes[i].boundBefore = nil
		at, ok := last[k]
		for _, o := range outcomes {
			if q, tried := last[o.Key()]; ok && tried && o.Node != "" && q < at {
				outcomes[i].boundBefore = append(outcomes[i].boundBefore, o.Key())
			}
		}
		slices.Sort(outcomes[i].boundBefore)
	}
	return nil
}

// Top is the set of nodes sharing the highest score, sorted.
func (s Scores) Top() []string {
	var best int64
	var top []string
	for n, v := range s {
		switch {
		case len(top) == 0 || v > best:
			best, top = v, []string{n}
		case v == best:
			top = append(top, n)
		}
	}
	slices.Sort(top)
	return top
}
