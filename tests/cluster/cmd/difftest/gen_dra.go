package main

// The dra profile: the basic state plus what DynamicResources reads. Devices of the driver
// DRADriver are published by the generator itself, one nodeName-scoped ResourceSlice per node
// that has any (a pool of one slice, named after the node): each device has a model, an index
// and a driver version, and a memory capacity, drawn per state; some nodes have none.
// DeviceClasses select the driver's devices with CEL: by driver only, by model, by a capacity
// compared with a quantity and by a semantic version. ResourceClaims (direct, shared between
// pods) and ResourceClaimTemplates (the resourceclaim controller of the DRA flow makes a
// pod's claim) ask for 1-3 devices (ExactCount) or All of a class, some with a request selector
// of their own, some as a firstAvailable list of subrequests; a few ask for devices no node
// has. Existing pods hold claims allocated before the scheduler starts (run.go writes their
// status once the pods exist, reservedFor needs their UIDs).
//
// One pool of one slice per node keeps upstream's device order fixed: its allocator walks the
// pools of a node in Go map order, and the slices of a pool in the order the lister gave them,
// but the devices of one slice in order. The DRA flow's own driver gpu.example.com publishes
// a pool on every node too; no class here selects its devices, and every selector tests the
// driver first, so a missing attribute of those devices is never an error.

import (
	"fmt"
	"math/rand/v2"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProfileDRA is the generator profile of this file.
const ProfileDRA = "dra"

// DRADriver is the driver whose devices the generator publishes.
const DRADriver = "dra.difftest.example.com"

// The state's device classes.
const (
	classAny    = "difftest-any"  // every device of the driver
	classH100   = "difftest-h100" // model H100
	classBig    = "difftest-big"  // memory >= 40Gi
	classNew    = "difftest-new"  // driverVersion > 2.0.0
	classNone   = "difftest-none" // model B200, which no node has
	heldPrefix  = "held-"         // claims allocated to existing pods
	claimPrefix = "shared-"       // direct claims of the pods
	tmplPrefix  = "tmpl-"         // ResourceClaimTemplates
	draOnDriver = `device.driver == "` + DRADriver + `"`
)

var (
	draModels   = []string{"A100", "H100", "L4"}
	draMemory   = []string{"16Gi", "40Gi", "80Gi"}
	draVersions = []string{"1.2.3", "2.0.1", "2.1.0"}
	draClasses  = []string{classAny, classAny, classH100, classBig, classNew}
	// Request selectors: the attribute and capacity forms a selector takes.
	draSelectors = []string{
		`device.attributes["` + DRADriver + `"].index < 2`,
		`device.attributes["` + DRADriver + `"].model != "L4"`,
		`device.capacity["` + DRADriver + `"].memory.compareTo(quantity("80Gi")) == 0`,
		`device.attributes["` + DRADriver + `"].driverVersion.isLessThan(semver("2.1.0"))`,
		`device.attributes["` + DRADriver + `"].model in ["A100", "L4"] && device.attributes["` + DRADriver + `"].index % 2 == 0`,
	}
)

// addDRA adds the devices, classes, claims and templates to the basic state s, from its own
// stream, and gives pods their claims.
func addDRA(seed uint64, s *State) {
	r := rand.New(rand.NewPCG(seed, 0xd7a))
	s.Profile = ProfileDRA
	attr := func(name string) string { return `device.attributes["` + DRADriver + `"].` + name }
	s.DeviceClasses = []resourceapi.DeviceClass{
		draClass(classAny, draOnDriver),
		draClass(classH100, draOnDriver+" && "+attr("model")+` == "H100"`),
		draClass(classBig, draOnDriver+` && device.capacity["`+DRADriver+`"].memory.compareTo(quantity("40Gi")) >= 0`),
		draClass(classNew, draOnDriver+" && "+attr("driverVersion")+`.isGreaterThan(semver("2.0.0"))`),
		draClass(classNone, draOnDriver+" && "+attr("model")+` == "B200"`),
	}
	devices := map[string][]string{} // node -> its devices, for the held claims
	for _, n := range s.Nodes {
		if chance(r, 25) {
			continue
		}
		slice := resourceapi.ResourceSlice{
			ObjectMeta: metav1.ObjectMeta{Name: n.Name + "-" + DRADriver},
			Spec: resourceapi.ResourceSliceSpec{Driver: DRADriver, NodeName: ptr(n.Name),
				Pool: resourceapi.ResourcePool{Name: n.Name, Generation: 1, ResourceSliceCount: 1}},
		}
		for d := 0; d < 2+r.IntN(5); d++ {
			name := fmt.Sprintf("dev-%d", d)
			slice.Spec.Devices = append(slice.Spec.Devices, resourceapi.Device{
				Name: name,
				Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
					"model":         {StringValue: ptr(pick(r, draModels))},
					"index":         {IntValue: ptr(int64(d))},
					"driverVersion": {VersionValue: ptr(pick(r, draVersions))},
				},
				Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
					"memory": {Value: resource.MustParse(pick(r, draMemory))},
				},
			})
			devices[n.Name] = append(devices[n.Name], name)
		}
		s.ResourceSlices = append(s.ResourceSlices, slice)
	}
	// Claims held by existing pods, allocated to a device of their node.
	for i := 0; i < r.IntN(3) && len(s.ResourceSlices) > 0; i++ {
		sl := pick(r, s.ResourceSlices)
		node := *sl.Spec.NodeName
		claim := draClaim(heldPrefix+fmt.Sprintf("%02d", i), exactRequest("gpu", classAny, 1))
		dev := pick(r, devices[node])
		claim.Status.Allocation = &resourceapi.AllocationResult{
			Devices: resourceapi.DeviceAllocationResult{Results: []resourceapi.DeviceRequestAllocationResult{{
				Request: "gpu", Driver: DRADriver, Pool: node, Device: dev}}},
			NodeSelector: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
				MatchFields: []v1.NodeSelectorRequirement{{Key: "metadata.name", Operator: v1.NodeSelectorOpIn,
					Values: []string{node}}}}}},
		}
		s.ResourceClaims = append(s.ResourceClaims, claim)
		pod := storagePod(fmt.Sprintf("dra-holder-%02d", i))
		pod.Spec.NodeName = node
		pod.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr(claim.Name)}}
		s.Existing = append(s.Existing, pod)
	}
	// Direct claims, shared by the pods that name them, and templates.
	var shared, tmpls []string
	for i := 0; i < 1+r.IntN(3); i++ {
		c := draClaim(claimPrefix+fmt.Sprintf("%02d", i), genRequests(r)...)
		s.ResourceClaims = append(s.ResourceClaims, c)
		shared = append(shared, c.Name)
	}
	for i := 0; i < 2+r.IntN(3); i++ {
		t := resourceapi.ResourceClaimTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: tmplPrefix + fmt.Sprintf("%02d", i), Namespace: namespace},
			Spec:       resourceapi.ResourceClaimTemplateSpec{Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: genRequests(r)}}},
		}
		s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, t)
		tmpls = append(tmpls, t.Name)
	}
	for i := range s.Pods {
		if !chance(r, 65) {
			continue
		}
		spec := &s.Pods[i].Spec
		used := map[string]bool{}
		for c := 0; c < 1+oneIn(r, 4); c++ {
			name := fmt.Sprintf("dev-%d", c)
			if chance(r, 35) {
				claim := pick(r, shared)
				if used[claim] {
					continue
				}
				used[claim] = true
				spec.ResourceClaims = append(spec.ResourceClaims, v1.PodResourceClaim{Name: name, ResourceClaimName: ptr(claim)})
			} else {
				spec.ResourceClaims = append(spec.ResourceClaims,
					v1.PodResourceClaim{Name: name, ResourceClaimTemplateName: ptr(pick(r, tmpls))})
			}
		}
	}
	addDRAScoring(seed, s)
}

func draClass(name, expr string) resourceapi.DeviceClass {
	return resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
			CEL: &resourceapi.CELDeviceSelector{Expression: expr}}}}}
}

func draClaim(name string, reqs ...resourceapi.DeviceRequest) resourceapi.ResourceClaim {
	return resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: reqs}}}
}

func exactRequest(name, class string, count int64) resourceapi.DeviceRequest {
	return resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: class, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}}
}

// genRequests is one or two requests: ExactCount 1-3 or All of a class, with or without a
// selector, or a firstAvailable list of two or three subrequests; now and then of the class no
// device matches.
func genRequests(r *rand.Rand) []resourceapi.DeviceRequest {
	var out []resourceapi.DeviceRequest
	for i := 0; i < 1+oneIn(r, 4); i++ {
		name := fmt.Sprintf("req-%d", i)
		class := pick(r, draClasses)
		if chance(r, 4) {
			class = classNone
		}
		if chance(r, 25) {
			req := resourceapi.DeviceRequest{Name: name}
			for j := 0; j < 2+r.IntN(2); j++ {
				sub := resourceapi.DeviceSubRequest{Name: fmt.Sprintf("sub-%d", j), DeviceClassName: pick(r, draClasses),
					AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: genCount(r)}
				if chance(r, 40) {
					sub.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
						Expression: pick(r, draSelectors)}}}
				}
				req.FirstAvailable = append(req.FirstAvailable, sub)
			}
			out = append(out, req)
			continue
		}
		req := exactRequest(name, class, genCount(r))
		if chance(r, 12) {
			req.Exactly.AllocationMode, req.Exactly.Count = resourceapi.DeviceAllocationModeAll, 0
		}
		if chance(r, 30) {
			req.Exactly.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
				Expression: pick(r, draSelectors)}}}
		}
		out = append(out, req)
	}
	return out
}

// genCount is a device count: 1 (60%), 2 (30%) or 3.
func genCount(r *rand.Rand) int64 {
	switch k := r.IntN(10); {
	case k < 6:
		return 1
	case k < 9:
		return 2
	}
	return 3
}

// oneIn is 1 with probability 1/n, else 0.
func oneIn(r *rand.Rand, n int) int {
	if r.IntN(n) == 0 {
		return 1
	}
	return 0
}
