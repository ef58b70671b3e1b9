package main

import (
	"reflect"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
)

// The DRA objects come from streams of their own: a seed keeps its basic nodes and pods, the
// nodes followed by the profile's own, the pods gaining only their resourceClaims or, those
// without claims, example.com/gpu in their first container.
func TestDRAOnlyAdds(t *testing.T) {
	for seed := uint64(0); seed < 10; seed++ {
		full, basic := Generate(seed, 8, 16, ProfileDRA), Generate(seed, 8, 16, ProfileBasic)
		if !reflect.DeepEqual(full.Nodes[:len(basic.Nodes)], basic.Nodes) {
			t.Fatalf("seed %d: the nodes changed", seed)
		}
		for _, n := range full.Nodes[len(basic.Nodes):] {
			if !strings.HasPrefix(n.Name, gpuTwinPrefix) {
				t.Fatalf("seed %d: node %s added", seed, n.Name)
			}
		}
		for i, p := range basic.Pods {
			got := *full.Pods[i].DeepCopy()
			if len(got.Spec.ResourceClaims) == 0 && !requestsGPU(&p) && requestsGPU(&got) {
				c := &got.Spec.Containers[0]
				delete(c.Resources.Requests, gpuResource)
				delete(c.Resources.Limits, gpuResource)
				if len(c.Resources.Requests) == 0 {
					c.Resources.Requests = nil
				}
				if len(c.Resources.Limits) == 0 {
					c.Resources.Limits = nil
				}
			}
			got.Spec.ResourceClaims = nil
			if !reflect.DeepEqual(got, p) {
				t.Fatalf("seed %d: pod %s changed beyond its claims and example.com/gpu", seed, p.Name)
			}
		}
		if a, b := marshal(t, full), marshal(t, Generate(seed, 8, 16, ProfileDRA)); a != b {
			t.Fatalf("seed %d gave two different dra states", seed)
		}
	}
}

// What the dra profile claims to cover, and its rules: every selector compiles in the pinned
// CEL environment, a pool is one slice on one node, a held claim's device exists on its node,
// no pod names a claim twice.
func TestDRACoversFeaturesAndKeepsRules(t *testing.T) {
	seen := map[string]bool{}
	compiler := cel.GetCompiler(cel.Features{})
	compiles := func(seed uint64, expr string) {
		if r := compiler.CompileCELExpression(expr, cel.Options{}); r.Error != nil {
			t.Fatalf("seed %d: %q: %v", seed, expr, r.Error)
		}
	}
	for seed := uint64(0); seed < 40; seed++ {
		s := Generate(seed, 8, 16, ProfileDRA)
		for _, c := range s.DeviceClasses {
			for _, sel := range c.Spec.Selectors {
				compiles(seed, sel.CEL.Expression)
			}
		}
		devices := map[string]map[string]bool{}
		for _, sl := range s.ResourceSlices {
			node := *sl.Spec.NodeName
			if sl.Spec.Pool.Name != node || sl.Spec.Pool.ResourceSliceCount != 1 || devices[node] != nil {
				t.Fatalf("seed %d: slice %s is not its node's only pool", seed, sl.Name)
			}
			devices[node] = map[string]bool{}
			for _, d := range sl.Spec.Devices {
				devices[node][d.Name] = true
			}
		}
		if len(s.ResourceSlices) < len(s.Nodes) {
			seen["node without devices"] = true
		}
		var requests []resourceapi.DeviceRequest
		for _, c := range s.ResourceClaims {
			requests = append(requests, c.Spec.Devices.Requests...)
			if a := c.Status.Allocation; a != nil && !strings.HasPrefix(c.Name, heldFlowPrefix) {
				seen["held claim"] = true
				for _, r := range a.Devices.Results {
					if !devices[r.Pool][r.Device] {
						t.Fatalf("seed %d: claim %s holds %s/%s, which does not exist", seed, c.Name, r.Pool, r.Device)
					}
				}
			}
		}
		for _, tm := range s.ResourceClaimTemplates {
			requests = append(requests, tm.Spec.Spec.Devices.Requests...)
		}
		for _, r := range requests {
			if e := r.Exactly; e != nil {
				seen["class "+e.DeviceClassName] = true
				if e.AllocationMode == resourceapi.DeviceAllocationModeAll {
					seen["All"] = true
				} else if e.Count > 1 {
					seen["count > 1"] = true
				}
				for _, sel := range e.Selectors {
					seen["request selector"] = true
					compiles(seed, sel.CEL.Expression)
				}
			}
			if len(r.FirstAvailable) > 0 {
				seen["firstAvailable"] = true
			}
			for _, sub := range r.FirstAvailable {
				for _, sel := range sub.Selectors {
					compiles(seed, sel.CEL.Expression)
				}
			}
		}
		for _, p := range s.Pods {
			names := map[string]bool{}
			for _, rc := range p.Spec.ResourceClaims {
				key := "template " + ptrOr(rc.ResourceClaimTemplateName)
				if rc.ResourceClaimName != nil {
					key = "claim " + *rc.ResourceClaimName
					seen["direct claim"] = true
				} else {
					seen["template"] = true
				}
				if rc.ResourceClaimName != nil && names[key] {
					t.Fatalf("seed %d: pod %s names %s twice", seed, p.Name, key)
				}
				names[key] = true
			}
		}
	}
	for _, f := range []string{"node without devices", "held claim", "class " + classAny, "class " + classH100,
		"class " + classBig, "class " + classNew, "class " + classNone, "All", "count > 1", "request selector",
		"firstAvailable", "direct claim", "template"} {
		if !seen[f] {
			t.Errorf("40 seeds generated no %s", f)
		}
	}
}

func ptrOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
