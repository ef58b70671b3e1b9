package main

import (
	"context"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"
)

// The device and selectors of probe/celprobe.cc, evaluated in Go without crossing cgo:
// what upstream's allocator pays per DeviceMatches call.
var (
	benchDevice = cel.Device{
		Driver: "gpu.example.com",
		Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"model":                 {StringValue: ptr.To("a100")},
			"gpu.example.com/index": {IntValue: ptr.To[int64](3)},
			"driverVersion":         {VersionValue: ptr.To("1.2.3")},
			"healthy":               {BoolValue: ptr.To(true)},
		},
		Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
			"memory": {Value: resource.MustParse("80Gi")},
		},
	}
	benchSelectors = map[string]string{
		"driver":   `device.driver == "gpu.example.com"`,
		"model":    `device.attributes["gpu.example.com"].model == "a100"`,
		"quantity": `device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0`,
		"semver":   `device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))`,
		"bind":     `cel.bind(d, device.attributes["gpu.example.com"], d.model == "a100" && d.index < 8 && d.healthy)`,
	}
)

func BenchmarkDeviceMatches(b *testing.B) {
	for _, name := range []string{"driver", "model", "quantity", "semver", "bind"} {
		b.Run(name, func(b *testing.B) {
			res := compiler().CompileCELExpression(benchSelectors[name], cel.Options{DisableCostEstimation: true})
			if res.Error != nil {
				b.Fatal(res.Error)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if ok, _, err := res.DeviceMatches(ctx, benchDevice); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
