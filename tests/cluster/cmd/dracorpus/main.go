// Command dracorpus writes the differential corpus of stowage's structured allocator (pkg/dra):
// random ResourceSlices, DeviceClasses and ResourceClaims, each allocated on node n1 by the
// pinned k8s.io/dynamic-resource-allocation allocator with kube-scheduler's default features,
// one JSON object per line with the outcome upstream reached. tests/unit/dra/corpus_test.cc
// replays every line through stowage's allocator and expects the same outcome.
//
// Selectors use only the forms the unit tests' fake selector compiler understands, so the corpus
// checks the allocator, not a CEL engine.
//
// Usage: go run ./cmd/dracorpus -seed 1 -n 150 > ../fixtures/dra/allocator_corpus.jsonl
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
	"k8s.io/utils/ptr"
)

var drivers = []string{"a.example.com", "b.example.com"}

type classes map[string]*resourceapi.DeviceClass

func (c classes) List() ([]*resourceapi.DeviceClass, error) { return nil, nil }
func (c classes) Get(name string) (*resourceapi.DeviceClass, error) {
	if cl, ok := c[name]; ok {
		return cl, nil
	}
	return nil, fmt.Errorf("deviceclass.resource.k8s.io %q not found", name)
}

// Case is one line of the corpus.
type Case struct {
	Name      string                       `json:"name"`
	Node      *v1.Node                     `json:"node"`
	Slices    []*resourceapi.ResourceSlice `json:"slices"`
	Classes   []*resourceapi.DeviceClass   `json:"classes"`
	Claims    []*resourceapi.ResourceClaim `json:"claims"`
	Allocated []string                     `json:"allocated"`
	// Capacity that shares of other claims hold, by device ID and capacity name.
	AllocatedCapacity map[string]map[string]string `json:"allocatedCapacity,omitempty"`
	Outcome           string                       `json:"outcome"` // allocated, unsatisfiable, failedOnNode, error
	Error             string                       `json:"error,omitempty"`
	Results           [][]string                   `json:"results,omitempty"`
}

func selector(exprs ...string) []resourceapi.DeviceSelector {
	var out []resourceapi.DeviceSelector
	for _, e := range exprs {
		out = append(out, resourceapi.DeviceSelector{CEL: &resourceapi.CELDeviceSelector{Expression: e}})
	}
	return out
}

func makeClasses() []*resourceapi.DeviceClass {
	mk := func(name string, exprs ...string) *resourceapi.DeviceClass {
		return &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourceapi.DeviceClassSpec{Selectors: selector(exprs...)}}
	}
	return []*resourceapi.DeviceClass{
		mk("any"),
		mk("a", `device.driver == "a.example.com"`),
		mk("a-model-x", `device.driver == "a.example.com"`, `device.attributes["a.example.com"].model == "x"`),
		mk("b", `device.driver == "b.example.com"`),
	}
}

func qty(v int64) resource.Quantity { return *resource.NewQuantity(v, resource.DecimalSI) }

func device(r *rand.Rand, name string, shared bool, counterSet string) resourceapi.Device {
	d := resourceapi.Device{Name: name, Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
		"model": {StringValue: ptr.To([]string{"x", "y", "z"}[r.Intn(3)])},
		"numa":  {IntValue: ptr.To(int64(r.Intn(2)))},
	}}
	if r.Intn(6) == 0 {
		d.Taints = []resourceapi.DeviceTaint{{Key: "k", Effect: []resourceapi.DeviceTaintEffect{"NoSchedule", "NoExecute", "None"}[r.Intn(3)]}}
	}
	if shared {
		d.AllowMultipleAllocations = ptr.To(true)
		d.Capacity = map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"mem": {Value: qty(8)}}
	}
	if r.Intn(12) == 0 {
		d.BindingConditions = []string{"ready"}
		d.BindingFailureConditions = []string{"failed"}
		d.BindsToNode = ptr.To(r.Intn(2) == 0)
	}
	if counterSet != "" {
		d.ConsumesCounters = []resourceapi.DeviceCounterConsumption{{CounterSet: counterSet, Counters: map[string]resourceapi.Counter{"c": {Value: qty(int64(1 + r.Intn(3)))}}}}
	}
	return d
}

func makeSlices(r *rand.Rand) []*resourceapi.ResourceSlice {
	var out []*resourceapi.ResourceSlice
	for p := 0; p < 2+r.Intn(4); p++ {
		driver, pool := drivers[r.Intn(2)], fmt.Sprintf("pool-%d", p)
		numSlices := 1 + r.Intn(2)
		published := numSlices
		if r.Intn(8) == 0 {
			published-- // incomplete
		}
		generation := int64(1 + r.Intn(2))
		placement := r.Intn(6)
		partitionable := r.Intn(5) == 0
		for s := 0; s < published; s++ {
			sl := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%s-%d", driver[:1], pool, (s+r.Intn(12))%4)},
				Spec: resourceapi.ResourceSliceSpec{Driver: driver, Pool: resourceapi.ResourcePool{Name: pool, Generation: generation, ResourceSliceCount: int64(numSlices)}}}
			switch placement {
			case 0, 1:
				sl.Spec.NodeName = ptr.To("n1")
			case 2:
				sl.Spec.NodeName = ptr.To([]string{"n1", "n2"}[s%2])
			case 3:
				sl.Spec.AllNodes = ptr.To(true)
			case 4:
				sl.Spec.NodeSelector = &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{
					{Key: "zone", Operator: v1.NodeSelectorOpIn, Values: []string{[]string{"a", "b"}[r.Intn(2)]}}}}}}
			case 5:
				sl.Spec.PerDeviceNodeSelection = ptr.To(true)
			}
			if partitionable && s == 0 && published > 1 {
				sl.Spec.SharedCounters = []resourceapi.CounterSet{{Name: "cs", Counters: map[string]resourceapi.Counter{"c": {Value: qty(int64(2 + r.Intn(3)))}}}}
				out = append(out, sl)
				continue
			}
			counterSet := ""
			if partitionable && published > 1 {
				counterSet = "cs"
			}
			for d := 0; d < r.Intn(6); d++ {
				dev := device(r, fmt.Sprintf("d%d-%d", s, d), r.Intn(8) == 0, counterSet)
				if placement == 5 {
					dev.NodeName = ptr.To([]string{"n1", "n2"}[r.Intn(2)])
				}
				sl.Spec.Devices = append(sl.Spec.Devices, dev)
			}
			out = append(out, sl)
		}
		if r.Intn(6) == 0 && generation == 2 && published > 0 {
			// A leftover of the previous generation.
			old := out[len(out)-1].DeepCopy()
			old.Name += "-old"
			old.Spec.Pool.Generation = 1
			out = append(out, old)
		}
	}
	return out
}

func request(r *rand.Rand, name string) resourceapi.DeviceRequest {
	class := []string{"any", "any", "any", "a", "a-model-x", "b"}[r.Intn(6)]
	exact := func() *resourceapi.ExactDeviceRequest {
		e := &resourceapi.ExactDeviceRequest{DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: int64(1 + r.Intn(2))}
		switch r.Intn(12) {
		case 0:
			e.AllocationMode, e.Count = resourceapi.DeviceAllocationModeAll, 0
		case 1:
			e.AdminAccess = ptr.To(true)
		case 2:
			e.Tolerations = []resourceapi.DeviceToleration{{Key: "k", Operator: resourceapi.DeviceTolerationOpExists}}
		case 3:
			e.Capacity = &resourceapi.CapacityRequirements{Requests: map[resourceapi.QualifiedName]resource.Quantity{"mem": qty(int64(2 + r.Intn(5)))}}
		case 4:
			e.Selectors = selector(`device.attributes["a.example.com"].numa == 1`)
			e.DeviceClassName = "a"
		}
		return e
	}
	if r.Intn(5) == 0 {
		return resourceapi.DeviceRequest{Name: name, FirstAvailable: []resourceapi.DeviceSubRequest{
			{Name: "big", DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: int64(2 + r.Intn(3))},
			{Name: "small", DeviceClassName: "any", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1},
		}}
	}
	return resourceapi.DeviceRequest{Name: name, Exactly: exact()}
}

func makeClaims(r *rand.Rand) []*resourceapi.ResourceClaim {
	var out []*resourceapi.ResourceClaim
	for c := 0; c < 1+r.Intn(2); c++ {
		claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("claim-%d", c), Namespace: "default"}}
		for q := 0; q < 1+r.Intn(2); q++ {
			claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, request(r, fmt.Sprintf("req-%d", q)))
		}
		switch r.Intn(5) {
		case 0:
			claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{MatchAttribute: ptr.To(resourceapi.FullyQualifiedName("a.example.com/model"))}}
		case 1:
			claim.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{{Requests: []string{"req-0"}, DistinctAttribute: ptr.To(resourceapi.FullyQualifiedName("b.example.com/numa"))}}
		}
		out = append(out, claim)
	}
	return out
}

func describe(results []resourceapi.AllocationResult) [][]string {
	var out [][]string
	for _, res := range results {
		var lines []string
		for _, d := range res.Devices.Results {
			s := fmt.Sprintf("%s=%s/%s/%s", d.Request, d.Driver, d.Pool, d.Device)
			if ptr.Deref(d.AdminAccess, false) {
				s += " admin"
			}
			if d.ShareID != nil {
				s += " shared"
			}
			var names []string
			for n := range d.ConsumedCapacity {
				names = append(names, string(n))
			}
			sort.Strings(names)
			for _, n := range names {
				q := d.ConsumedCapacity[resourceapi.QualifiedName(n)]
				s += " " + n + ":" + q.String()
			}
			if len(d.BindingConditions) > 0 {
				s += " binding:" + strings.Join(d.BindingConditions, ",") + "/" + strings.Join(d.BindingFailureConditions, ",")
			}
			if len(d.Tolerations) > 0 {
				s += fmt.Sprintf(" tolerations:%d", len(d.Tolerations))
			}
			lines = append(lines, s)
		}
		lines = append(lines, "node: "+describeSelector(res.NodeSelector))
		out = append(out, lines)
	}
	return out
}

func describeSelector(ns *v1.NodeSelector) string {
	if ns == nil {
		return "any"
	}
	var parts []string
	for _, t := range ns.NodeSelectorTerms {
		for _, e := range t.MatchExpressions {
			parts = append(parts, fmt.Sprintf("label %s %s %s", e.Key, e.Operator, strings.Join(e.Values, ",")))
		}
		for _, f := range t.MatchFields {
			parts = append(parts, fmt.Sprintf("field %s %s %s", f.Key, f.Operator, strings.Join(f.Values, ",")))
		}
	}
	return strings.Join(parts, "; ")
}

func main() {
	seed := flag.Int64("seed", 1, "random seed")
	n := flag.Int("n", 150, "number of cases")
	flag.Parse()
	r := rand.New(rand.NewSource(*seed))
	features := structured.Features{AdminAccess: true, PrioritizedList: true, PartitionableDevices: true,
		DeviceTaints: true, DeviceBindingAndStatus: true, ConsumableCapacity: true}
	enc := json.NewEncoder(os.Stdout)
	for i := 0; i < *n; i++ {
		tc := Case{Name: fmt.Sprintf("seed-%d-case-%d", *seed, i),
			Node:   &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}}},
			Slices: makeSlices(r), Classes: makeClasses(), Claims: makeClaims(r)}
		state := structured.AllocatedState{AllocatedDevices: sets.New[structured.DeviceID]()}
		for _, s := range tc.Slices {
			for _, d := range s.Spec.Devices {
				id := structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name)
				if d.AllowMultipleAllocations != nil && r.Intn(2) == 0 {
					used := int64(1 + r.Intn(8))
					if state.AggregatedCapacity == nil {
						state.AggregatedCapacity = structured.NewConsumedCapacityCollection()
						state.AllocatedSharedDeviceIDs = sets.New[structured.SharedDeviceID]()
						tc.AllocatedCapacity = map[string]map[string]string{}
					}
					q := qty(used)
					state.AggregatedCapacity[id] = structured.ConsumedCapacity{"mem": &q}
					tc.AllocatedCapacity[s.Spec.Driver+"/"+s.Spec.Pool.Name+"/"+d.Name] = map[string]string{"mem": q.String()}
					continue
				}
				if r.Intn(6) == 0 && d.AllowMultipleAllocations == nil {
					state.AllocatedDevices.Insert(structured.MakeDeviceID(s.Spec.Driver, s.Spec.Pool.Name, d.Name))
					tc.Allocated = append(tc.Allocated, s.Spec.Driver+"/"+s.Spec.Pool.Name+"/"+d.Name)
				}
			}
		}
		cls := classes{}
		for _, c := range tc.Classes {
			cls[c.Name] = c
		}
		alloc, err := structured.NewAllocator(context.Background(), features, state, cls, tc.Slices, cel.NewCache(10, cel.Features{}))
		if err != nil {
			panic(err)
		}
		results, err := alloc.Allocate(context.Background(), tc.Node, tc.Claims)
		switch {
		case errors.Is(err, structured.ErrFailedAllocationOnNode):
			tc.Outcome, tc.Error = "failedOnNode", err.Error()
		case err != nil:
			tc.Outcome, tc.Error = "error", err.Error()
		case results == nil:
			tc.Outcome = "unsatisfiable"
		default:
			tc.Outcome, tc.Results = "allocated", describe(results)
		}
		if err := enc.Encode(tc); err != nil {
			panic(err)
		}
	}
}
