package main

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"

	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
)

// What the dra profile's scoring covers, and its rules: every state names a strategy over cpu,
// memory and example.com/gpu; flow devices are held only on nodes whose allocatable lacks
// example.com/gpu, each device once, at most one of the partitionable board's, by a claim an
// existing pod on that node names; example.com/gpu is added only to pods without claims.
func TestDRAScoringCoversCasesAndKeepsRules(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(0); seed < 60; seed++ {
		s := Generate(seed, 8, 16, ProfileDRA)
		sc := s.Scoring
		if sc == nil || !slices.Equal(sc.Resources, []string{"cpu", "memory", string(gpuResource)}) {
			t.Fatalf("seed %d: scoring %+v", seed, sc)
		}
		if (sc.Type == strategyRatio) != (len(sc.Shape) > 0) {
			t.Fatalf("seed %d: type %s with shape %v", seed, sc.Type, sc.Shape)
		}
		seen["strategy "+sc.Type] = true
		native := map[string]bool{}
		for _, n := range s.Nodes {
			if _, ok := n.Status.Allocatable[gpuResource]; ok {
				native[n.Name] = true
				seen["node listing example.com/gpu"] = true
			}
		}
		var twins []v1.Node
		for _, n := range s.Nodes {
			if strings.HasPrefix(n.Name, gpuTwinPrefix) {
				if n.Labels[v1.LabelHostname] != n.Name {
					t.Fatalf("seed %d: node %s has hostname %s", seed, n.Name, n.Labels[v1.LabelHostname])
				}
				// Alike but for the name and example.com/gpu.
				n.Name, n.Labels = "", maps.Clone(n.Labels)
				delete(n.Labels, v1.LabelHostname)
				n.Status.Capacity, n.Status.Allocatable = n.Status.Capacity.DeepCopy(), n.Status.Allocatable.DeepCopy()
				delete(n.Status.Capacity, gpuResource)
				delete(n.Status.Allocatable, gpuResource)
				if len(twins) > 0 && !reflect.DeepEqual(n, twins[0]) {
					t.Fatalf("seed %d: the profile's nodes differ beyond name and example.com/gpu", seed)
				}
				twins = append(twins, n)
			}
		}
		if len(twins) != gpuTwins || len(s.Nodes) != 8+gpuTwins {
			t.Fatalf("seed %d: %d nodes of the profile's own, %d in all", seed, len(twins), len(s.Nodes))
		}
		heldOn := map[string]int{}
		for _, c := range s.ResourceClaims {
			if !strings.HasPrefix(c.Name, heldFlowPrefix) {
				continue
			}
			a := c.Status.Allocation
			if a == nil || len(a.Devices.Results) == 0 {
				t.Fatalf("seed %d: claim %s holds nothing", seed, c.Name)
			}
			node := a.Devices.Results[0].Pool
			if native[node] || heldOn[node] > 0 {
				t.Fatalf("seed %d: claim %s on node %s, which lists example.com/gpu or has another", seed, c.Name, node)
			}
			if got := c.Spec.Devices.Requests[0].Exactly.Count; got != int64(len(a.Devices.Results)) {
				t.Fatalf("seed %d: claim %s asks for %d devices and holds %d", seed, c.Name, got, len(a.Devices.Results))
			}
			var devs []string
			partitions := 0
			for _, r := range a.Devices.Results {
				if r.Driver != flowDriver || r.Pool != node || !slices.Contains(flowDevices, r.Device) ||
					slices.Contains(devs, r.Device) {
					t.Fatalf("seed %d: claim %s holds %+v", seed, c.Name, r)
				}
				if isPartition(r.Device) {
					partitions++
					seen["partition held"] = true
				}
				devs = append(devs, r.Device)
			}
			if partitions > 1 {
				t.Fatalf("seed %d: claim %s holds %v, two of the board's partitions", seed, c.Name, devs)
			}
			holder := ""
			for _, e := range s.Existing {
				for _, rc := range e.Spec.ResourceClaims {
					if rc.ResourceClaimName != nil && *rc.ResourceClaimName == c.Name {
						holder = e.Spec.NodeName
					}
				}
			}
			if holder != node {
				t.Fatalf("seed %d: claim %s on %s is named by an existing pod on %q", seed, c.Name, node, holder)
			}
			heldOn[node] = len(devs)
		}
		twinsNative, twinsHeld := 0, map[int]bool{}
		for _, n := range s.Nodes {
			twin := strings.HasPrefix(n.Name, gpuTwinPrefix)
			if native[n.Name] {
				if twin {
					twinsNative++
				}
				continue
			}
			seen[map[bool]string{true: "DRA node with devices held", false: "DRA node with none held"}[heldOn[n.Name] > 0]] = true
			if twin {
				twinsHeld[heldOn[n.Name]] = true
			}
		}
		if twinsNative != 1 {
			t.Fatalf("seed %d: %d of the profile's nodes list example.com/gpu", seed, twinsNative)
		}
		if len(twinsHeld) == gpuTwins-1 {
			seen["the profile's DRA nodes each holding another count"] = true
		}
		basic := Generate(seed, 8, 16, ProfileBasic)
		for i := range s.Pods {
			p := &s.Pods[i]
			if !requestsGPU(p) {
				continue
			}
			if !requestsGPU(&basic.Pods[i]) {
				if len(p.Spec.ResourceClaims) > 0 {
					t.Fatalf("seed %d: pod %s has claims and was given example.com/gpu", seed, p.Name)
				}
				c := p.Spec.Containers[0]
				q, l := c.Resources.Requests[gpuResource], c.Resources.Limits[gpuResource]
				if q.Cmp(l) != 0 || q.Value() < 1 || q.Value() > 2 {
					t.Fatalf("seed %d: pod %s asks for %s example.com/gpu, limit %s", seed, p.Name, q.String(), l.String())
				}
				seen["pod given "+q.String()+" example.com/gpu"] = true
			}
		}
	}
	for _, f := range []string{"strategy " + strategyLeast, "strategy " + strategyMost, "strategy " + strategyRatio,
		"node listing example.com/gpu", "partition held",
		"DRA node with devices held", "DRA node with none held", "pod given 1 example.com/gpu",
		"the profile's DRA nodes each holding another count",
		"pod given 2 example.com/gpu"} {
		if !seen[f] {
			t.Errorf("60 seeds generated no %s", f)
		}
	}
	// The CI's three seeds have the three strategies.
	var ci []string
	for seed := uint64(ciDRASeed); seed < ciDRASeed+ciDRAStates; seed++ {
		ci = append(ci, Generate(seed, ciDRANodes, ciDRAPods, ProfileDRA).Scoring.Type)
	}
	if slices.Sort(ci); !slices.Equal(ci, []string{strategyLeast, strategyMost, strategyRatio}) {
		t.Errorf("the CI's seeds have strategies %v", ci)
	}
}

// Without a state's scoring the configuration is today's, byte for byte, so the other profiles
// run as before.
func TestSchedulerConfigWithoutScoring(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	if err := writeSchedulerConfig(path, "/k/admin.conf", nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: "/k/admin.conf"
  qps: 1000
  burst: 2000
leaderElection:
  leaderElect: false
`
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
}

// A state's scoring gives a configuration upstream's own decoder reads strictly, its plugins'
// validation accepts, and that holds the scoring: one profile, NodeResourcesFit's strategy as
// drawn, BalancedAllocation's resources the default ones (upstream's panics on example.com/gpu).
func TestSchedulerConfigWithScoring(t *testing.T) {
	for seed := uint64(700); seed < 706; seed++ {
		sc := Generate(seed, 6, 12, ProfileDRA).Scoring
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := writeSchedulerConfig(path, "/k/admin.conf", sc); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := scheme.Codecs.UniversalDecoder().Decode(b, nil, nil)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, b)
		}
		cfg := obj.(*config.KubeSchedulerConfiguration)
		if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "default-scheduler" ||
			cfg.ClientConnection.Kubeconfig != "/k/admin.conf" || cfg.LeaderElection.LeaderElect {
			t.Fatalf("seed %d: %+v", seed, cfg)
		}
		if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var fit *config.NodeResourcesFitArgs
		var balanced *config.NodeResourcesBalancedAllocationArgs
		for _, pc := range cfg.Profiles[0].PluginConfig {
			switch a := pc.Args.(type) {
			case *config.NodeResourcesFitArgs:
				fit = a
			case *config.NodeResourcesBalancedAllocationArgs:
				balanced = a
			}
		}
		if err := validation.ValidateNodeResourcesFitArgs(nil, fit); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if err := validation.ValidateNodeResourcesBalancedAllocationArgs(nil, balanced); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		names := func(rs []config.ResourceSpec) []string {
			var out []string
			for _, r := range rs {
				if r.Weight != 1 {
					t.Fatalf("seed %d: %s of weight %d", seed, r.Name, r.Weight)
				}
				out = append(out, r.Name)
			}
			return out
		}
		if string(fit.ScoringStrategy.Type) != sc.Type || !slices.Equal(names(fit.ScoringStrategy.Resources), sc.Resources) {
			t.Fatalf("seed %d: NodeResourcesFit %+v, want %+v", seed, fit.ScoringStrategy, sc)
		}
		if r := fit.ScoringStrategy.RequestedToCapacityRatio; (r != nil) != (sc.Type == strategyRatio) ||
			(r != nil && len(r.Shape) != len(sc.Shape)) {
			t.Fatalf("seed %d: requestedToCapacityRatio %+v, want shape %v", seed, r, sc.Shape)
		}
		if got := names(balanced.Resources); !slices.Equal(got, []string{"cpu", "memory"}) {
			t.Fatalf("seed %d: BalancedAllocation over %v, want cpu and memory", seed, got)
		}
	}
}
