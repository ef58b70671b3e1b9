package main

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/utils/ptr"
)

// The device of testdata/selectors.txt; tests/unit/cel/engine_test.cc builds the same one.
var corpusDevice = cel.Device{
	Driver:                   "gpu.example.com",
	AllowMultipleAllocations: ptr.To(true),
	Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
		"model":                  {StringValue: ptr.To("a100")},
		"gpu.example.com/index":  {IntValue: ptr.To[int64](3)},
		"driverVersion":          {VersionValue: ptr.To("1.2.3")},
		"healthy":                {BoolValue: ptr.To(true)},
		"other.example.com/zone": {StringValue: ptr.To("z1")},
	},
	Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
		"memory":            {Value: resource.MustParse("80Gi")},
		"milli":             {Value: resource.MustParse("500m")},
		"example.com/slots": {Value: resource.MustParse("4")},
	},
}

// corpusCase is one line of testdata/selectors.txt.
type corpusCase struct{ want, expr string }

func readCorpus(t *testing.T) []corpusCase {
	f, err := os.Open("testdata/selectors.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []corpusCase
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		line := s.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		want, expr, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("no tab in %q", line)
		}
		cases = append(cases, corpusCase{strings.ReplaceAll(want, `\n`, "\n"), expr})
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestSelectorCorpus evaluates the corpus with the pinned library itself, as the scheduler's
// DynamicResources plugin compiles and its allocator evaluates, not through the bridge.
func TestSelectorCorpus(t *testing.T) {
	compiler := cel.GetCompiler(cel.Features{EnableConsumableCapacity: true})
	for _, c := range readCorpus(t) {
		var got string
		res := compiler.CompileCELExpression(c.expr, cel.Options{DisableCostEstimation: true})
		if res.Error != nil {
			got = "compile: " + res.Error.Error()
		} else if ok, _, err := res.DeviceMatches(context.Background(), corpusDevice); err != nil {
			got = "runtime: " + cel.EnhanceRuntimeError(err).Error()
		} else if ok {
			got = "true"
		} else {
			got = "false"
		}
		if got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.expr, strings.ReplaceAll(got, "\n", `\n`), strings.ReplaceAll(c.want, "\n", `\n`))
		}
	}
}
