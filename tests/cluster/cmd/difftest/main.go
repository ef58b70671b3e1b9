// Command difftest is the differential test of stowage against upstream kube-scheduler of the
// same release: seeded random cluster states (gen.go), each scheduled by both on one real
// apiserver in serial and batch modes (run.go), compared pod by pod (compare.go) and
// reported (report.go). It exits 1 on any disagreement and 2 when a run cannot be carried out.
// scripts/difftest starts the test cluster and calls it; see docs/differential-testing.md.
//
// Usage: difftest -kubeconfig FILE -stowage BIN -upstream BIN -out DIR
//
//	[-seed N] [-states N] [-nodes N] [-pods N] [-profile basic|affinity|preemption|storage|dra]
//	[-modes serial,batch,explain,simulate] [-state FILE] [-ci] [-provisioner BIN]
//
// The explain and simulate modes (fidelity.go) check `stowage explain` against upstream's serial
// run and `stowage simulate` against the live stowage, on the basic and affinity profiles.
//
// The storage profile needs a test cluster running the storage flow (tests/cluster/up
// --storage); the driver runs a second test provisioner beside it (storage.go). The dra profile
// needs one running the DRA flow (tests/cluster/up --dra).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/yaml"
)

// The CI run: a fixed seed and sizes that take a few minutes on two shared cores.
const (
	ciSeed   = 20261125
	ciStates = 12
	ciNodes  = 10
	ciPods   = 20
)

// The CI run of the preemption profile (-ci -profile preemption): serial mode only, each state
// costs about 20 s (two scheduler starts and the quiet periods of preemptors left nominated).
const (
	ciPreemptionSeed   = 300
	ciPreemptionStates = 6
	ciPreemptionNodes  = 6
	ciPreemptionPods   = 10
)

// The CI run of the storage profile (-ci -profile storage): both modes, a few minutes.
const (
	ciStorageSeed   = 500
	ciStorageStates = 6
	ciStorageNodes  = 8
	ciStoragePods   = 16
)

// The CI run of the dra profile (-ci -profile dra): both modes, about a minute.
const (
	ciDRASeed   = 700
	ciDRAStates = 3
	ciDRANodes  = 6
	ciDRAPods   = 12
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin kubeconfig of the test cluster (required)")
	stowage := flag.String("stowage", "build/cmd/stowage/stowage", "stowage binary")
	upstream := flag.String("upstream", "tests/cluster/bin/kube-scheduler", "kube-scheduler binary")
	provisioner := flag.String("provisioner", "tests/cluster/bin/testprovisioner",
		"testprovisioner binary, run as the CSI driver "+CSIProvisioner+" (storage profile)")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()%1_000_000), "seed of the first state; state i uses seed+i")
	states := flag.Int("states", 3, "number of states")
	nodes := flag.Int("nodes", 8, "nodes per state (at most 100, so both schedulers score every node)")
	pods := flag.Int("pods", 16, "pods per state")
	modes := flag.String("modes", "serial,batch", "modes, of serial, batch, explain (stowage explain against "+
		"upstream's serial run, at -v=10) and simulate (stowage simulate of a snapshot against the live stowage)")
	profile := flag.String("profile", ProfileAffinity, "generator profile: basic (nodes and bare pods) or affinity "+
		"(basic plus namespaces, owners, Services, existing pods, pod affinity and topology spread) or preemption "+
		"(full nodes, priorities, PDBs, nominated pods; serial mode only, the default for it) or storage "+
		"(basic plus classes, bound volumes with zones and node affinity, ReadWriteOncePod claims, iSCSI disks, "+
		"and claims waiting for their first consumer, statically matched or provisioned; needs tests/cluster/up --storage) "+
		"or dra (basic plus ResourceSlices, DeviceClasses with CEL selectors, ResourceClaims and templates; "+
		"needs tests/cluster/up --dra)")
	out := flag.String("out", "", "directory for logs, states and results.json (required)")
	stateFile := flag.String("state", "", "run this state file (as written to -out) instead of generating")
	quiet := flag.Duration("quiet", 3*time.Second, "batch modes: settle time after the last decision")
	ci := flag.Bool("ci", false, fmt.Sprintf("the CI run: -seed %d -states %d -nodes %d -pods %d "+
		"(with -profile preemption: -seed %d -states %d -nodes %d -pods %d; "+
		"with -profile storage: -seed %d -states %d -nodes %d -pods %d; "+
		"with -profile dra: -seed %d -states %d -nodes %d -pods %d)",
		ciSeed, ciStates, ciNodes, ciPods,
		ciPreemptionSeed, ciPreemptionStates, ciPreemptionNodes, ciPreemptionPods,
		ciStorageSeed, ciStorageStates, ciStorageNodes, ciStoragePods,
		ciDRASeed, ciDRAStates, ciDRANodes, ciDRAPods))
	flag.Parse()
	// -ci sets the sizes the command line does not.
	given := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { given[f.Name] = true })
	keep := func(name string, v *uint64, ci uint64) {
		if !given[name] {
			*v = ci
		}
	}
	keepInt := func(name string, v *int, ci int) {
		if !given[name] {
			*v = ci
		}
	}
	if *ci && *profile == ProfilePreemption {
		keep("seed", seed, ciPreemptionSeed)
		keepInt("states", states, ciPreemptionStates)
		keepInt("nodes", nodes, ciPreemptionNodes)
		keepInt("pods", pods, ciPreemptionPods)
	} else if *ci && *profile == ProfileStorage {
		keep("seed", seed, ciStorageSeed)
		keepInt("states", states, ciStorageStates)
		keepInt("nodes", nodes, ciStorageNodes)
		keepInt("pods", pods, ciStoragePods)
	} else if *ci && *profile == ProfileDRA {
		keep("seed", seed, ciDRASeed)
		keepInt("states", states, ciDRAStates)
		keepInt("nodes", nodes, ciDRANodes)
		keepInt("pods", pods, ciDRAPods)
	} else if *ci {
		keep("seed", seed, ciSeed)
		keepInt("states", states, ciStates)
		keepInt("nodes", nodes, ciNodes)
		keepInt("pods", pods, ciPods)
	}
	if *kubeconfig == "" || *out == "" {
		fail(fmt.Errorf("-kubeconfig and -out are required"))
	}
	if *profile != ProfileBasic && *profile != ProfileAffinity && *profile != ProfilePreemption &&
		*profile != ProfileStorage && *profile != ProfileDRA {
		fail(fmt.Errorf("unknown profile %q", *profile))
	}
	if *profile == ProfilePreemption {
		modesSet := false
		flag.Visit(func(f *flag.Flag) { modesSet = modesSet || f.Name == "modes" })
		if !modesSet {
			*modes = ModeSerial
		}
		if *modes != ModeSerial {
			// In batch mode the evictions could not be told apart by preemptor.
			fail(fmt.Errorf("the preemption profile runs in serial mode only"))
		}
	}
	if *nodes < 1 || *nodes > 100 || *pods < 1 || *states < 1 {
		fail(fmt.Errorf("need 1 <= -nodes <= 100, -pods >= 1, -states >= 1"))
	}
	modeList := strings.Split(*modes, ",")
	for _, m := range modeList {
		if m != ModeSerial && m != ModeBatch && m != ModeExplain && m != ModeSimulate {
			fail(fmt.Errorf("unknown mode %q", m))
		}
		if (m == ModeExplain || m == ModeSimulate) && !fidelityProfile(*profile) {
			fail(fmt.Errorf("mode %s runs on the basic and affinity profiles only", m))
		}
	}
	scheds := []Scheduler{{Name: "upstream", Binary: *upstream}, {Name: "stowage", Binary: *stowage}}
	for _, s := range scheds {
		if st, err := os.Stat(s.Binary); err != nil || st.IsDir() {
			fail(fmt.Errorf("%s binary %s not found", s.Name, s.Binary))
		}
	}
	fail(os.MkdirAll(*out, 0o755))
	// client-go's own log lines go to a file, not the report.
	klogFile, err := os.Create(filepath.Join(*out, "driver.log"))
	fail(err)
	klog.LogToStderr(false)
	klog.SetOutput(klogFile)

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	fail(err)
	cfg.QPS, cfg.Burst, cfg.UserAgent = -1, 0, "stowage-difftest"
	cs, err := kubernetes.NewForConfig(cfg)
	fail(err)
	ctx := context.Background()
	x, err := NewRunner(ctx, cs, *kubeconfig, *out, *quiet)
	fail(err)

	var list []State
	if *stateFile != "" {
		b, err := os.ReadFile(*stateFile)
		fail(err)
		var s State
		fail(yaml.UnmarshalStrict(b, &s))
		list = []State{s}
		*nodes, *pods = len(s.Nodes), len(s.Pods)
	} else {
		for i := 0; i < *states; i++ {
			list = append(list, Generate(*seed+uint64(i), *nodes, *pods, *profile))
		}
	}
	if slices.ContainsFunc(list, func(s State) bool { return s.Profile == ProfileStorage }) {
		stop, err := startStorage(ctx, cs, *kubeconfig, *provisioner, *out)
		fail(err)
		atExit = append(atExit, stop)
	}
	start := time.Now()
	// The storage profile adds pods of its own (gen_binding.go), the dra profile nodes of its own
	// (gen_drascore.go): the report counts those run.
	rep := Report{Modes: modeList, Nodes: len(list[0].Nodes), Pods: len(list[0].Pods), Out: *out}
	for i, s := range list {
		path := filepath.Join(*out, fmt.Sprintf("state-%d.yaml", s.Seed))
		b, _ := yaml.Marshal(s)
		fail(os.WriteFile(path, b, 0o644))
		var serial *upstreamRun // upstream's serial run of the state, for the explain mode
		for _, mode := range modeList {
			fmt.Fprintf(os.Stderr, "[%d/%d %s] seed %d, %s ... ", i+1, len(list),
				time.Since(start).Round(time.Second), s.Seed, mode)
			var rs []Result
			var err error
			switch mode {
			case ModeExplain:
				if serial == nil {
					serial, err = runUpstreamSerial(ctx, x, scheds[0], s)
					fail(err)
				}
				rs, err = x.Explain(ctx, scheds[1].Binary, fmt.Sprint(s.Seed), s, serial.outcomes, serial.log)
			case ModeSimulate:
				rs, err = x.Simulate(ctx, scheds[1], fmt.Sprint(s.Seed), s)
			default:
				var up *upstreamRun
				rs, up, err = compareOne(ctx, x, scheds, s, mode)
				if mode == ModeSerial {
					serial = up
				}
			}
			fail(err)
			rep.Add(s.Seed, path, rs)
			fmt.Fprintln(os.Stderr, Tally(rs))
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	fail(rep.WriteJSON(filepath.Join(*out, "results.json")))
	rep.Print(os.Stdout)
	if rep.Disagreements() > 0 {
		exit(1)
	}
	exit(0)
}

// upstreamRun is upstream's outcomes of a state's pods in one mode, and its log.
type upstreamRun struct {
	outcomes []Outcome
	log      string
}

// runUpstreamSerial runs the state under upstream in serial mode.
func runUpstreamSerial(ctx context.Context, x *Runner, s Scheduler, st State) (*upstreamRun, error) {
	up, upLog, err := x.Run(ctx, s, fmt.Sprint(st.Seed), ModeSerial, st, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return &upstreamRun{up, upLog}, nil
}

// compareOne runs one state in one mode under upstream, then stowage, and compares; it returns
// upstream's run too.
func compareOne(ctx context.Context, x *Runner, scheds []Scheduler, s State, mode string) ([]Result, *upstreamRun, error) {
	tag := fmt.Sprint(s.Seed)
	up, upLog, err := x.Run(ctx, scheds[0], tag, mode, s, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", scheds[0].Name, err)
	}
	var pin map[string]Outcome
	if mode == ModeSerial {
		pin = map[string]Outcome{}
		for _, o := range up {
			pin[o.Pod] = o
		}
	}
	st, stLog, err := x.Run(ctx, scheds[1], tag, mode, s, pin)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", scheds[1].Name, err)
	}
	if err := SetAttempts(upLog, up); err != nil {
		return nil, nil, err
	}
	if err := SetAttempts(stLog, st); err != nil {
		return nil, nil, err
	}
	scores, err := ParseScores(upLog)
	if err != nil {
		return nil, nil, err
	}
	plugins, err := ParsePluginScores(upLog)
	if err != nil {
		return nil, nil, err
	}
	var pre *PreemptionContext
	if s.Profile == ProfilePreemption {
		cands, err := ParseCandidates(upLog)
		if err != nil {
			return nil, nil, err
		}
		stCands, err := ParseCandidates(stLog)
		if err != nil {
			return nil, nil, err
		}
		pre = &PreemptionContext{Candidates: cands, DryRuns: map[string]int{}, PDBs: s.PDBs}
		for pod, runs := range stCands {
			pre.DryRuns[pod] = len(runs)
		}
	}
	rs := CompareWith(s.Seed, mode, up, st, scores, pre)
	for i := range rs {
		if p := plugins[rs[i].Upstream.Key()]; rs[i].Verdict == Disagree && rs[i].Kind == "placement" && p != nil {
			rs[i].Plugins = PluginScores{}
			for _, n := range []string{rs[i].Upstream.Node, rs[i].Stowage.Node} {
				if p[n] != nil {
					rs[i].Plugins[n] = p[n]
				}
			}
		}
	}
	return rs, &upstreamRun{up, upLog}, nil
}

// atExit runs before the driver exits (the processes it started stop).
var atExit []func()

func exit(code int) {
	for i := len(atExit) - 1; i >= 0; i-- {
		atExit[i]()
	}
	os.Exit(code)
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "\ndifftest:", err)
		exit(2)
	}
}
