package main

// The preemption profile: full nodes whose pods have priorities, and pods that fit only by
// evicting some of them. It is built on its own stream, not on a basic state: feasibility here
// is resources, a node selector and the pod count only, so that where two nodes are equally
// good victims the preemption model (preemption.go) can say so.
//
// Nodes are filled with existing pods of PriorityClasses low, mid and none (priority 0), each
// with its own start time (the last of upstream's candidate criteria), some labelled for the
// state's PodDisruptionBudgets, some with a grace period: with no kubelet such a victim stays
// terminating, so its preemptor stays nominated and later pods must respect the room it holds.
// The pods that come have the mid, high, critical or no class, or the high one with
// preemptionPolicy Never.

import (
	"fmt"
	"math/rand/v2"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ProfilePreemption is the generator profile of this file.
const ProfilePreemption = "preemption"

// The classes every preemption state uses; they are cluster-wide and the same in every state.
var priorityClasses = []schedulingv1.PriorityClass{
	{ObjectMeta: metav1.ObjectMeta{Name: "difftest-low"}, Value: 10},
	{ObjectMeta: metav1.ObjectMeta{Name: "difftest-mid"}, Value: 100},
	{ObjectMeta: metav1.ObjectMeta{Name: "difftest-high"}, Value: 1000},
	{ObjectMeta: metav1.ObjectMeta{Name: "difftest-high-never"}, Value: 1000,
		PreemptionPolicy: ptr(v1.PreemptNever)},
	{ObjectMeta: metav1.ObjectMeta{Name: "difftest-critical"}, Value: 100000},
}

// startBase is the earliest start time of an existing pod; the others start whole minutes later.
var startBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// generatePreemption builds the preemption state of seed.
func generatePreemption(seed uint64, n, p int) State {
	r := rand.New(rand.NewPCG(seed, 0x9ee7))
	s := State{Seed: seed, Profile: ProfilePreemption, PriorityClasses: priorityClasses}
	for i := 0; i < n; i++ {
		s.Nodes = append(s.Nodes, genPreemptionNode(r, i))
	}
	for i := range s.Nodes {
		first := len(s.Existing)
		fillNode(r, &s, &s.Nodes[i])
		// Start times distinct on a node, in a shuffled order, so that upstream sorts a node's
		// victims of one priority one way only; shared across nodes, so that nodes can tie on
		// every criterion and upstream's choice among them is random.
		for j, k := range r.Perm(len(s.Existing) - first) {
			s.Existing[first+j].Status.StartTime = &metav1.Time{Time: startBase.Add(time.Duration(k) * time.Minute)}
		}
	}
	for i := 0; i < r.IntN(3); i++ {
		s.PDBs = append(s.PDBs, policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pdb-%d", i), Namespace: namespace},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr(intstr.FromInt32(1)),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{appLabel: apps[i]}}},
			// No disruption controller runs: the run sets this status, and it stays.
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: int32(r.IntN(2))},
		})
	}
	for i := 0; i < p; i++ {
		s.Pods = append(s.Pods, genPreemptor(r, i, n))
	}
	return s
}

func genPreemptionNode(r *rand.Rand, i int) v1.Node {
	name := nodeName(i)
	capacity := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity([]int64{2000, 4000}[r.IntN(2)], resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity([]int64{4096, 8192}[r.IntN(2)]*mib, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity([]int64{4, 6, 110}[r.IntN(3)], resource.DecimalSI),
	}
	return v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name,
			v1.LabelTopologyZone: pick(r, zones), v1.LabelOSStable: "linux"}},
		Status: v1.NodeStatus{Capacity: capacity, Allocatable: capacity.DeepCopy(),
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue,
				Reason: "KubeletReady", Message: "difftest node"}}},
	}
}

// fillNode binds existing pods to node until its CPU is nearly used up or its pod count reached.
func fillNode(r *rand.Rand, s *State, node *v1.Node) {
	cpuLeft := node.Status.Allocatable.Cpu().MilliValue() - int64(250*r.IntN(3))
	memLeft := node.Status.Allocatable.Memory().Value()
	podsLeft := node.Status.Allocatable.Pods().Value()
	for podsLeft > 0 {
		cpu, mem := int64(250*(1+r.IntN(4))), int64(256*(1+r.IntN(4)))*mib
		if cpu > cpuLeft || mem > memLeft {
			break
		}
		cpuLeft, memLeft, podsLeft = cpuLeft-cpu, memLeft-mem, podsLeft-1
		pod := v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("existing-%02d", len(s.Existing)),
			Namespace: namespace},
			Spec: v1.PodSpec{NodeName: node.Name, TerminationGracePeriodSeconds: new(int64),
				PriorityClassName: pick(r, []string{"difftest-low", "difftest-low", "difftest-mid", ""}),
				Containers: []v1.Container{{Name: "c", Image: "registry.example.com/tiny:1",
					Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
						v1.ResourceCPU:    *resource.NewMilliQuantity(cpu, resource.DecimalSI),
						v1.ResourceMemory: *resource.NewQuantity(mem, resource.BinarySI)}}}}}}
		if chance(r, 40) {
			pod.Labels = map[string]string{appLabel: pick(r, apps)}
		}
		if chance(r, 10) {
			pod.Spec.TerminationGracePeriodSeconds = ptr(int64(30))
		}
		s.Existing = append(s.Existing, pod)
	}
}

func genPreemptor(r *rand.Rand, i, nodes int) v1.Pod {
	pod := v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%02d", i), Namespace: namespace},
		Spec: v1.PodSpec{TerminationGracePeriodSeconds: new(int64),
			PriorityClassName: pick(r, []string{"difftest-mid", "difftest-high", "difftest-high", "difftest-high",
				"difftest-high-never", "difftest-critical", ""}),
			Containers: []v1.Container{{Name: "c", Image: "registry.example.com/tiny:1",
				Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
					v1.ResourceCPU:    *resource.NewMilliQuantity(int64(250*(1+r.IntN(6))), resource.DecimalSI),
					v1.ResourceMemory: *resource.NewQuantity(int64(256*(1+r.IntN(4)))*mib, resource.BinarySI)}}}}}}
	if chance(r, 30) { // fewer nodes to choose from: more states with a single candidate
		if chance(r, 50) {
			pod.Spec.NodeSelector = map[string]string{v1.LabelTopologyZone: pick(r, zones)}
		} else {
			pod.Spec.NodeSelector = map[string]string{v1.LabelHostname: nodeName(r.IntN(nodes))}
		}
	}
	if chance(r, 30) {
		pod.Labels = map[string]string{appLabel: pick(r, apps)}
	}
	return pod
}
