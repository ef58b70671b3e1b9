package main

// What the test driver publishes for one node. Every node gets one pool, named after the
// node, of two ResourceSlices (the API allows either devices or shared counters in one slice,
// not both): slice 0 holds the devices, slice 1 the counter set of the partitionable GPU.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// DriverName is the driver the slices and classes name.
const DriverName = "gpu.example.com"

// Class names: ClassName selects every device of the driver; ExtendedClassName selects the
// same devices and maps them to the extended resource ExtendedResourceName.
const (
	ClassName            = "gpu.example.com"
	ExtendedClassName    = "extended-gpu.example.com"
	ExtendedResourceName = "example.com/gpu"
	TaintKey             = "gpu.example.com/unhealthy"
	counterSetName       = "big-gpu"
	specHashAnnotation   = "gpu.example.com/spec-hash"
)

// gpu describes one whole GPU-like device.
type gpu struct {
	model, driverVersion, memory string
}

// wholeGPUs are the plain devices gpu-0..gpu-3 of every node.
var wholeGPUs = []gpu{
	{"A100", "1.2.3", "40Gi"},
	{"A100", "1.2.3", "40Gi"},
	{"H100", "2.0.1", "80Gi"},
	{"H100", "2.0.1", "80Gi"},
}

// attrs are the attributes every device has, so that a selector naming one of them never
// meets a device without it (upstream's allocator fails the whole pod with a CEL runtime
// error, "no such key", on such a device unless the selector uses has() or optional chaining).
func attrs(index int64, model, version, profile string) map[resourceapi.QualifiedName]resourceapi.DeviceAttribute {
	return map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
		"index":         {IntValue: ptr.To(index)},
		"model":         {StringValue: ptr.To(model)},
		"driverVersion": {VersionValue: ptr.To(version)},
		"profile":       {StringValue: ptr.To(profile)},
	}
}

func memory(q string) map[resourceapi.QualifiedName]resourceapi.DeviceCapacity {
	return map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{"memory": {Value: resource.MustParse(q)}}
}

// Devices returns the devices of one node, in the order the allocator tries them.
func Devices() []resourceapi.Device {
	var ds []resourceapi.Device
	for i, g := range wholeGPUs {
		ds = append(ds, resourceapi.Device{Name: fmt.Sprintf("gpu-%d", i),
			Attributes: attrs(int64(i), g.model, g.driverVersion, "whole"), Capacity: memory(g.memory)})
	}
	// The partitionable GPU: one 80Gi board with 8 compute slices, offered whole or as two halves;
	// the counters make the whole board and the halves mutually exclusive.
	part := func(name, mem string, slices int64, profile string) resourceapi.Device {
		return resourceapi.Device{Name: name, Attributes: attrs(4, "H100", "2.0.1", profile), Capacity: memory(mem),
			ConsumesCounters: []resourceapi.DeviceCounterConsumption{{CounterSet: counterSetName,
				Counters: map[string]resourceapi.Counter{
					"memory": {Value: resource.MustParse(mem)},
					"slices": {Value: *resource.NewQuantity(slices, resource.DecimalSI)}}}}}
	}
	ds = append(ds, part("gpu-4-full", "80Gi", 8, "full"), part("gpu-4-half-0", "40Gi", 4, "half"),
		part("gpu-4-half-1", "40Gi", 4, "half"))
	// The tainted GPU: only a claim that tolerates the taint gets it.
	tainted := resourceapi.Device{Name: "gpu-5", Attributes: attrs(5, "A100", "1.0.0", "whole"), Capacity: memory("40Gi"),
		Taints: []resourceapi.DeviceTaint{{Key: TaintKey, Value: "ecc-errors", Effect: resourceapi.DeviceTaintEffectNoSchedule}}}
	return append(ds, tainted)
}

// counterSets is the shared counter set of the partitionable GPU.
func counterSets() []resourceapi.CounterSet {
	return []resourceapi.CounterSet{{Name: counterSetName, Counters: map[string]resourceapi.Counter{
		"memory": {Value: resource.MustParse("80Gi")},
		"slices": {Value: *resource.NewQuantity(8, resource.DecimalSI)}}}}
}

// SliceName is the name of slice i of node's pool.
func SliceName(node string, i int) string { return fmt.Sprintf("%s-%s-%d", node, DriverName, i) }

// Slices returns the desired slices of node, each carrying the hash of its spec in an
// annotation so that an unchanged slice is never rewritten (the apiserver fills in fields,
// e.g. the taints' timeAdded, so comparing specs directly would not settle).
func Slices(node *v1.Node) []*resourceapi.ResourceSlice {
	pool := resourceapi.ResourcePool{Name: node.Name, Generation: 1, ResourceSliceCount: 2}
	specs := []resourceapi.ResourceSliceSpec{
		{Driver: DriverName, Pool: pool, NodeName: ptr.To(node.Name), Devices: Devices()},
		{Driver: DriverName, Pool: pool, NodeName: ptr.To(node.Name), SharedCounters: counterSets()},
	}
	owner := metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}
	slices := make([]*resourceapi.ResourceSlice, len(specs))
	for i, spec := range specs {
		b, err := json.Marshal(spec)
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(b)
		slices[i] = &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: SliceName(node.Name, i),
			Annotations:     map[string]string{specHashAnnotation: hex.EncodeToString(sum[:8])},
			OwnerReferences: []metav1.OwnerReference{owner}}, Spec: spec}
	}
	return slices
}

// Classes returns the driver's DeviceClasses.
func Classes() []*resourceapi.DeviceClass {
	sel := []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
		Expression: fmt.Sprintf("device.driver == %q", DriverName)}}}
	return []*resourceapi.DeviceClass{
		{ObjectMeta: metav1.ObjectMeta{Name: ClassName}, Spec: resourceapi.DeviceClassSpec{Selectors: sel}},
		{ObjectMeta: metav1.ObjectMeta{Name: ExtendedClassName},
			Spec: resourceapi.DeviceClassSpec{Selectors: sel, ExtendedResourceName: ptr.To(ExtendedResourceName)}},
	}
}
