package main

import (
	"encoding/json"
	"testing"
)

func marshal(t *testing.T, s State) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A seed must name one state forever: the report's reproduction commands rely on it.
func TestGenerateIsDeterministic(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		for _, p := range []string{ProfileBasic, ProfileAffinity} {
			if a, b := marshal(t, Generate(seed, 12, 30, p)), marshal(t, Generate(seed, 12, 30, p)); a != b {
				t.Fatalf("seed %d gave two different %s states", seed, p)
			}
		}
	}
	if marshal(t, Generate(1, 12, 30, ProfileBasic)) == marshal(t, Generate(2, 12, 30, ProfileBasic)) {
		t.Fatal("seeds 1 and 2 gave the same state")
	}
}

// The generator must reach every feature it claims, or the test silently covers less.
func TestGenerateCoversFeatures(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(0); seed < 30; seed++ {
		s := Generate(seed, 10, 20, ProfileBasic)
		for _, n := range s.Nodes {
			seen["unschedulable node"] = seen["unschedulable node"] || n.Spec.Unschedulable
			for _, t := range n.Spec.Taints {
				seen["taint "+string(t.Effect)] = true
			}
			if _, ok := n.Status.Capacity[gpuResource]; ok {
				seen["extended resource"] = true
			}
			seen["images"] = seen["images"] || len(n.Status.Images) > 0
		}
		for _, p := range s.Pods {
			if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil {
				na := a.NodeAffinity
				if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
					seen["required affinity"] = true
					for _, term := range r.NodeSelectorTerms {
						seen["matchFields"] = seen["matchFields"] || len(term.MatchFields) > 0
						for _, e := range term.MatchExpressions {
							seen["operator "+string(e.Operator)] = true
						}
					}
				}
				seen["preferred affinity"] = seen["preferred affinity"] || len(na.PreferredDuringSchedulingIgnoredDuringExecution) > 0
			}
			seen["nodeSelector"] = seen["nodeSelector"] || len(p.Spec.NodeSelector) > 0
			seen["tolerations"] = seen["tolerations"] || len(p.Spec.Tolerations) > 0
			seen["init container"] = seen["init container"] || len(p.Spec.InitContainers) > 0
			for _, c := range p.Spec.Containers {
				seen["hostPort"] = seen["hostPort"] || len(c.Ports) > 0
			}
			if p.Namespace != namespace || p.Spec.NodeName != "" || len(p.OwnerReferences) > 0 {
				t.Fatalf("seed %d: pod %s is not a bare unbound pod of %s", seed, p.Name, namespace)
			}
		}
	}
	for _, f := range []string{"unschedulable node", "taint NoSchedule", "taint PreferNoSchedule",
		"taint NoExecute", "extended resource", "images", "required affinity", "matchFields",
		"operator In", "operator NotIn", "operator Exists", "operator DoesNotExist", "operator Gt",
		"operator Lt", "preferred affinity", "nodeSelector", "tolerations", "init container", "hostPort"} {
		if !seen[f] {
			t.Errorf("30 seeds generated no %s", f)
		}
	}
}

func TestNormalizedImage(t *testing.T) {
	for in, want := range map[string]string{
		"docker.io/library/busybox":  "docker.io/library/busybox:latest",
		"registry.example.com/db:15": "registry.example.com/db:15",
		"localhost:5000/app":         "localhost:5000/app:latest",
		"localhost:5000/app:2":       "localhost:5000/app:2",
	} {
		if got := normalizedImage(in); got != want {
			t.Errorf("normalizedImage(%q) = %q, want %q", in, got, want)
		}
	}
}
