package main

// The dra profile's scoring of a resource a DeviceClass provides. Upstream's NodeResourcesFit
// scores an extended resource its scoringStrategy names on a node whose allocatable lacks it by
// the devices of the class that provides it (the DRA flow's extended-gpu.example.com, for
// example.com/gpu): the class's devices published for the node count as allocatable, those
// that any claim holds as allocated. So the state names its scoring (the schedulers'
// configuration, sched.go): NodeResourcesFit's strategy over cpu, memory and example.com/gpu.
// BalancedAllocation keeps its default cpu and memory: given example.com/gpu, upstream
// 1.37.2's panics on the first such node it scores (its scorer has no CEL cache) and the
// scheduler exits; see docs/differential-testing.md. On nodes whose allocatable lacks
// example.com/gpu, claims of existing pods hold some of the flow's devices, so that those nodes
// differ in what is free; and pods without claims of their own ask for one or two
// example.com/gpu, so that the scoring decides between nodes that serve it through DRA, and
// against nodes whose device plugin lists it (the basic generator's 30%).
//
// The basic nodes differ in so much else (capacity, taints, labels, images) that the devices
// rarely change which of them wins. So the profile adds nodes of its own, gpuTwins of them,
// alike in all but their name and example.com/gpu: one lists it in its allocatable (a device
// plugin's), the others serve it through the flow's class with different counts held. Among
// them only NodeResourcesFit's example.com/gpu term (and BalancedAllocation's balance of the
// pods placed so far) tells them apart, so the scoring decides between them.
//
// All of it comes from a stream of its own, after the rest of the dra profile: a seed keeps its
// basic state and its other DRA objects.

import (
	"fmt"
	"math/rand/v2"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Scoring is what a state asks of both schedulers' resource scoring (nil: the default profile).
type Scoring struct {
	// Type is NodeResourcesFit's scoringStrategy.type: LeastAllocated, MostAllocated or
	// RequestedToCapacityRatio.
	Type string `json:"type"`
	// Resources are NodeResourcesFit's scoringStrategy.resources, each of weight 1.
	Resources []string `json:"resources"`
	// Shape is RequestedToCapacityRatio's shape, as (utilization, score) points.
	Shape [][2]int `json:"shape,omitempty"`
}

const (
	flowClass      = "gpu.example.com" // the DRA flow's class of all its devices
	heldFlowPrefix = "held-flow-"      // claims of existing pods holding the flow's devices
	strategyLeast  = "LeastAllocated"
	strategyMost   = "MostAllocated"
	strategyRatio  = "RequestedToCapacityRatio"
)

// flowDevices are the devices the DRA flow's driver publishes on every node, in its order
// (tests/cluster/cmd/testdradriver/devices.go): four whole GPUs, one partitionable board offered
// whole or as two halves (sharing counters, so at most one of the three is ever held here), and
// one GPU tainted NoSchedule. The class extended-gpu.example.com selects all eight, so upstream's
// scorer counts eight allocatable example.com/gpu on every node that lacks it, whatever the
// counters and the taint leave allocatable.
var flowDevices = []string{"gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4-full", "gpu-4-half-0", "gpu-4-half-1", "gpu-5"}

// gpuTwins is how many nodes of its own the profile adds; gpuTwinPrefix names them.
const (
	gpuTwins      = 3
	gpuTwinPrefix = "gpu-node-"
)

// ratioShapes are the RequestedToCapacityRatio shapes drawn from: spreading, and packing with a
// bend.
var ratioShapes = [][][2]int{{{0, 10}, {100, 0}}, {{0, 0}, {50, 8}, {100, 10}}}

// isPartition: the device is one of the partitionable board's.
func isPartition(dev string) bool { return len(dev) > 5 && dev[:6] == "gpu-4-" }

// addDRAScoring draws the state's scoring, the flow devices held on the nodes that lack
// example.com/gpu, and the pods' example.com/gpu requests.
func addDRAScoring(seed uint64, s *State) {
	r := rand.New(rand.NewPCG(seed, 0x5c0e))
	// The strategy goes by the seed, so that any three consecutive seeds (the CI's) have all
	// three: the first draws of consecutive seeds' streams are alike.
	sc := &Scoring{Type: []string{strategyLeast, strategyMost, strategyRatio}[(seed+2)%3],
		Resources: []string{string(v1.ResourceCPU), string(v1.ResourceMemory), string(gpuResource)}}
	if sc.Type == strategyRatio {
		sc.Shape = pick(r, ratioShapes)
	}
	s.Scoring = sc

	native := r.IntN(gpuTwins)
	twin := gpuTwin(r)
	for i := 0; i < gpuTwins; i++ {
		n := *twin.DeepCopy()
		n.Name = gpuTwinPrefix + fmt.Sprintf("%02d", i)
		n.Labels[v1.LabelHostname] = n.Name
		if i == native {
			gpus := *resource.NewQuantity(int64(4+4*r.IntN(2)), resource.DecimalSI)
			n.Status.Capacity[gpuResource] = gpus
			n.Status.Allocatable[gpuResource] = gpus
		}
		s.Nodes = append(s.Nodes, n)
	}

	held := 0
	for _, n := range s.Nodes {
		twin := strings.HasPrefix(n.Name, gpuTwinPrefix)
		if _, ok := n.Status.Allocatable[gpuResource]; ok || (!twin && !chance(r, 70)) {
			continue
		}
		want := 1 + r.IntN(5)
		if twin {
			want = r.IntN(6) // the twins differ in what is held, none included
		}
		if want == 0 {
			continue
		}
		var devs []string
		partition := false
		for _, j := range r.Perm(len(flowDevices)) {
			d := flowDevices[j]
			if len(devs) == want || (partition && isPartition(d)) {
				continue
			}
			partition = partition || isPartition(d)
			devs = append(devs, d)
		}
		name := heldFlowPrefix + fmt.Sprintf("%02d", held)
		claim := draClaim(name, exactRequest("gpu", flowClass, int64(len(devs))))
		a := &resourceapi.AllocationResult{NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
			MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
				Values: []string{n.Name}}}}}}}
		for _, d := range devs {
			a.Devices.Results = append(a.Devices.Results, resourceapi.DeviceRequestAllocationResult{
				Request: "gpu", Driver: flowDriver, Pool: n.Name, Device: d})
		}
		claim.Status.Allocation = a
		s.ResourceClaims = append(s.ResourceClaims, claim)
		pod := storagePod(fmt.Sprintf("gpu-holder-%02d", held))
		pod.Spec.NodeName = n.Name
		pod.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr(name)}}
		s.Existing = append(s.Existing, pod)
		held++
	}

	for i := range s.Pods {
		spec := &s.Pods[i].Spec
		if len(spec.ResourceClaims) > 0 || requestsGPU(&s.Pods[i]) || !chance(r, 55) {
			continue
		}
		c := &spec.Containers[0]
		gpus := *resource.NewQuantity(int64(1+r.IntN(2)), resource.DecimalSI)
		if c.Resources.Requests == nil {
			c.Resources.Requests = v1.ResourceList{}
		}
		if c.Resources.Limits == nil {
			c.Resources.Limits = v1.ResourceList{}
		}
		c.Resources.Requests[gpuResource] = gpus
		c.Resources.Limits[gpuResource] = gpus // extended resources need limit == request
	}
}

// gpuTwin is the node the profile's own nodes are copies of: large enough for several pods,
// untainted, no images, labels drawn once.
func gpuTwin(r *rand.Rand) v1.Node {
	capacity := v1.ResourceList{
		v1.ResourceCPU:              *resource.NewMilliQuantity(int64(4000*(1+r.IntN(2))), resource.DecimalSI),
		v1.ResourceMemory:           *resource.NewQuantity(int64(8192*(1+r.IntN(2)))*mib, resource.BinarySI),
		v1.ResourcePods:             *resource.NewQuantity(110, resource.DecimalSI),
		v1.ResourceEphemeralStorage: *resource.NewQuantity(100*1024*mib, resource.BinarySI),
	}
	zone := pick(r, zones)
	return v1.Node{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
			v1.LabelTopologyZone:   zone,
			v1.LabelTopologyRegion: "region-" + map[string]string{"zone-a": "1", "zone-b": "1", "zone-c": "2"}[zone],
			tierLabel:              pick(r, tiers),
			genLabel:               fmt.Sprint(1 + r.IntN(5)),
			v1.LabelOSStable:       "linux",
			"kubernetes.io/arch":   "amd64",
		}},
		Status: v1.NodeStatus{Capacity: capacity, Allocatable: capacity.DeepCopy(),
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue,
				Reason: "KubeletReady", Message: "difftest node"}}},
	}
}

// requestsGPU: a container of the pod (init containers too) asks for example.com/gpu.
func requestsGPU(p *v1.Pod) bool {
	for _, cs := range [][]v1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, c := range cs {
			if _, ok := c.Resources.Requests[gpuResource]; ok {
				return true
			}
		}
	}
	return false
}
