package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// resolveText parses decls (as a file named test.txt) and resolves them on the real registry
// plus extra types.
func resolveText(t *testing.T, decls string, extra ...any) ([]*Schema, error) {
	t.Helper()
	d, err := ParseDecls("test.txt", strings.NewReader(decls))
	if err != nil {
		return nil, err
	}
	registry, _ := Registry()
	for _, x := range extra {
		rt := reflect.TypeOf(x)
		registry[GoName(rt)] = rt
	}
	return Resolve(d, registry)
}

func wantError(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

const meta = "struct ObjectMeta k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta\n  name 1 name\n"

func TestRefusesANameThatIsNotUpstreams(t *testing.T) {
	_, err := resolveText(t, meta+`
kind PersistentVolume k8s.io/api/core/v1.PersistentVolume
  spec.cssi.driver 2.2.22.1 csi_driver
`)
	wantError(t, err, "test.txt:5", "spec.cssi", `no field with JSON name "cssi"`)
}

func TestRefusesANumberThatIsNotUpstreams(t *testing.T) {
	_, err := resolveText(t, `
kind PersistentVolume k8s.io/api/core/v1.PersistentVolume
  spec.csi.driver 2.2.21.1 csi_driver
`)
	wantError(t, err, "test.txt:3", "upstream's protobuf path is 2.2.22.1, the declaration says 2.2.21.1")
}

// Renumbered stands for an upstream type whose field moved to another number.
type Renumbered struct {
	Provisioner string `json:"provisioner" protobuf:"bytes,3,opt,name=provisioner"`
}

func TestRefusesAFieldUpstreamRenumbered(t *testing.T) {
	decl := "kind StorageClass " + GoName(reflect.TypeOf(Renumbered{})) + "\n  provisioner 2 provisioner\n"
	_, err := resolveText(t, decl, Renumbered{})
	wantError(t, err, "test.txt:2", "upstream's protobuf path is 3, the declaration says 2")
}

func TestResolvesNestedAndEmbeddedPaths(t *testing.T) {
	s, err := resolveText(t, `
struct NodeSelector k8s.io/api/core/v1.NodeSelector
kind PersistentVolume k8s.io/api/core/v1.PersistentVolume
  spec.csi.driver 2.2.22.1 csi_driver
  spec.nodeAffinity.required 2.9.1 node_affinity NodeSelector
struct TopologySelectorRequirement k8s.io/api/core/v1.TopologySelectorLabelRequirement
  key 1 key
kind StorageClass k8s.io/api/storage/v1.StorageClass
  allowedTopologies.matchLabelExpressions 8.1 allowed_topologies TopologySelectorRequirement
`)
	if err != nil {
		t.Fatal(err)
	}
	csi := s[1].Fields[0]
	var json []string
	var numbers []int
	for _, h := range csi.Hops {
		json = append(json, h.JSON)
		numbers = append(numbers, h.Number)
	}
	// persistentVolumeSource is inline in JSON and a message of its own in protobuf.
	if got, want := json, []string{"spec", "", "csi", "driver"}; !reflect.DeepEqual(got, want) {
		t.Errorf("JSON names %q, want %q", got, want)
	}
	if got, want := numbers, []int{2, 2, 22, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("numbers %v, want %v", got, want)
	}
	if csi.Type != "kString" || csi.Hops[3].Wire != "kLen" {
		t.Errorf("csi.driver is %s on %s, want kString on kLen", csi.Type, csi.Hops[3].Wire)
	}
	if aff := s[1].Fields[1]; aff.Type != "kMessage" || aff.Struct != s[0] {
		t.Errorf("nodeAffinity.required: type %s struct %v, want the NodeSelector struct", aff.Type, aff.Struct)
	}
	topo := s[3].Fields[0]
	if topo.ListHops != 1 || !topo.Hops[1].Repeated {
		t.Errorf("allowedTopologies.matchLabelExpressions: %d lists crossed, value list %t; want 1 and true", topo.ListHops, topo.Hops[1].Repeated)
	}
}

func TestWireTypeFollowsTheValueNotTheTag(t *testing.T) {
	// CSIDriverSpec.StorageCapacity is tagged "bytes" but written as a varint.
	s, err := resolveText(t, "kind CSIDriver k8s.io/api/storage/v1.CSIDriver\n  spec.storageCapacity 2.4 storage_capacity\n")
	if err != nil {
		t.Fatal(err)
	}
	if f := s[0].Fields[0]; f.Type != "kBool" || f.Hops[1].Wire != "kVarint" {
		t.Errorf("storageCapacity: %s on %s, want kBool on kVarint", f.Type, f.Hops[1].Wire)
	}
}

func TestRefusesBadDeclarations(t *testing.T) {
	for _, tc := range []struct{ decls, want string }{
		{"kind Foo k8s.io/api/core/v1.NoSuchType\n", `test.txt:1: unknown Go type k8s.io/api/core/v1.NoSuchType`},
		{"type Foo k8s.io/api/core/v1.Pod\n", `test.txt:1: unknown keyword "type"`},
		{"  name 1 name\n", "test.txt:1: a field before any kind"},
		{"kind Pod k8s.io/api/core/v1.Pod\n  metadata.name 1.x name\n", "test.txt:2: \"1.x\" is not a dotted list"},
		{"kind Pod k8s.io/api/core/v1.Pod\n  spec 2 spec\n", "test.txt:2: spec is an object (k8s.io/api/core/v1.PodSpec); name the C++ struct"},
		{"kind Pod k8s.io/api/core/v1.Pod\n  spec.nodeName 2.10 node_name Foo\n", "test.txt:2: spec.nodeName is a string, not an object"},
		{meta + "kind Pod k8s.io/api/core/v1.Pod\n  spec 2 spec ObjectMeta\n", "test.txt:4: spec holds a k8s.io/api/core/v1.PodSpec, but ObjectMeta is declared for k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta"},
		{"kind Pod k8s.io/api/core/v1.Pod\n  spec.nodeName 2.10 a\n  spec.hostname 2.16 a\n", "test.txt:3: member a is already filled at test.txt:2"},
		{"kind Pod k8s.io/api/core/v1.Pod\n  spec.containers.name 2.2.1 a\n  spec.containers.image 2.2.2 b\n", "test.txt:3: only one field may pass through the list spec.containers"},
	} {
		_, err := resolveText(t, tc.decls)
		wantError(t, err, tc.want)
	}
}

func TestGoldenSetsEveryDeclaredField(t *testing.T) {
	s, err := resolveText(t, meta+`
kind CSIDriver k8s.io/api/storage/v1.CSIDriver
  metadata 1 metadata ObjectMeta
  spec.attachRequired 2.1 attach_required
  spec.podInfoOnMount 2.2 pod_info
`)
	if err != nil {
		t.Fatal(err)
	}
	b, pb, err := Golden(s[1], "storage.k8s.io/v1", "CSIDriver")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pb, []byte("k8s\x00")) || !bytes.Contains(pb, []byte("metadata.name")) {
		t.Errorf("golden protobuf is not an envelope holding the object: %q", pb)
	}
	for _, want := range []string{`"kind": "CSIDriver"`, `"name": "metadata.name"`, `"attachRequired": true`, `"podInfoOnMount": true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("golden JSON lacks %s:\n%s", want, b)
		}
	}
}

// The checked-in declarations resolve (together, as the generator reads them: a struct declared
// in one file may be used in another), so a broken one fails here as well as in the generator.
func TestTheRepositorysDeclarationsResolve(t *testing.T) {
	files, _ := filepath.Glob("../../../../pkg/api/schema/*.txt")
	if len(files) == 0 {
		t.Fatal("no declarations found under pkg/api/schema")
	}
	var decls []*Decl
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseDecls(name, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, d...)
	}
	registry, _ := Registry()
	if _, err := Resolve(decls, registry); err != nil {
		t.Error(err)
	}
}

const deviceDecls = `
struct DeviceAttribute k8s.io/api/resource/v1.DeviceAttribute
  int 2 int_value
  string 4 string_value
struct Device k8s.io/api/resource/v1.Device
  name 1 name
  attributes 2 attributes DeviceAttribute
kind ResourceSlice k8s.io/api/resource/v1.ResourceSlice
  spec.devices 2.6 devices Device
kind PodDisruptionBudget k8s.io/api/policy/v1.PodDisruptionBudget
  status.disruptedPods 3.2 disrupted_pods
struct ExactDeviceRequest k8s.io/api/resource/v1.ExactDeviceRequest
  capacity.requests 7.1 capacity_requests
kind Service k8s.io/api/core/v1.Service
  spec.selector 2.2 selector
`

func TestResolvesMapsOfObjectsAndScalars(t *testing.T) {
	s, err := resolveText(t, deviceDecls)
	if err != nil {
		t.Fatal(err)
	}
	attrs := s[1].Fields[1]
	if !attrs.Map || attrs.Type != "kMessage" || attrs.Struct != s[0] || attrs.Hops[0].Repeated {
		t.Errorf("attributes: map %t, type %s, struct %v; want a map of the DeviceAttribute struct", attrs.Map, attrs.Type, attrs.Struct)
	}
	if f := s[3].Fields[0]; !f.Map || f.Type != "kTime" {
		t.Errorf("disruptedPods: map %t, type %s; want a map of kTime", f.Map, f.Type)
	}
	// map[string]Quantity and map[string]string keep their own C++ types.
	if f := s[4].Fields[0]; f.Map || f.Type != "kResourceList" {
		t.Errorf("capacity.requests: map %t, type %s; want the single value kResourceList", f.Map, f.Type)
	}
	if f := s[5].Fields[0]; f.Map || f.Type != "kStringMap" {
		t.Errorf("spec.selector: map %t, type %s; want the single value kStringMap", f.Map, f.Type)
	}
}

func TestRefusesBadMapDeclarations(t *testing.T) {
	for _, tc := range []struct{ decls, want string }{
		{"struct Device k8s.io/api/resource/v1.Device\n  attributes.int 2.2 a\n",
			"test.txt:2: attributes is a map (map[v1.QualifiedName]v1.DeviceAttribute); keep the whole map and declare a struct for its values"},
		{"struct Device k8s.io/api/resource/v1.Device\n  attributes 2 a\n",
			"test.txt:2: attributes is an object (k8s.io/api/resource/v1.DeviceAttribute); name the C++ struct"},
		{"kind PodDisruptionBudget k8s.io/api/policy/v1.PodDisruptionBudget\n  status.disruptedPods 3.2 a Foo\n",
			"test.txt:2: status.disruptedPods is a v1.Time, not an object"},
	} {
		_, err := resolveText(t, tc.decls)
		wantError(t, err, tc.want)
	}
}

func TestEmitsMapTagsAndChecks(t *testing.T) {
	s, err := resolveText(t, deviceDecls)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Emit(&b, s, []string{"test.txt"}, "v0"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`static constexpr Tag kAttributes{"attributes", 2, Wire::kLen, Type::kMessage, false, true};`,
		`static constexpr Tag kName{"name", 1, Wire::kLen, Type::kString, false, false};`,
		`Fits<decltype(Device::attributes), Type::kMessage, false, 0, DeviceAttribute, true>()`,
		`Device::attributes must hold a map of DeviceAttribute`,
		`Fits<decltype(PodDisruptionBudget::disrupted_pods), Type::kTime, false, 0, void, true>()`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("generated header lacks %s", want)
		}
	}
}

func TestGoldenFillsMapsAndTimes(t *testing.T) {
	s, err := resolveText(t, deviceDecls+`
kind Lease k8s.io/api/coordination/v1.Lease
  spec.renewTime 2.4 renew_time
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema     *Schema
		apiVersion string
		want       []string
	}{
		{s[2], "resource.k8s.io/v1", []string{`"spec.devices.attributes": {`, `"int": ` + strconv.FormatInt(GoldenInt("spec.devices.attributes.int"), 10), `"string": "spec.devices.attributes.string"`}},
		{s[3], "policy/v1", []string{`"status.disruptedPods": "` + GoldenTime("status.disruptedPods").Format(time.RFC3339) + `"`}},
		{s[6], "coordination.k8s.io/v1", []string{`"renewTime": "` + GoldenTime("spec.renewTime").Format("2006-01-02T15:04:05.000000Z07:00") + `"`}},
	} {
		b, _, err := Golden(tc.schema, tc.apiVersion, tc.schema.Decl.CXX)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.want {
			if !strings.Contains(string(b), want) {
				t.Errorf("golden %s lacks %s:\n%s", tc.schema.Decl.CXX, want, b)
			}
		}
	}
}

func TestResolvesAPresenceField(t *testing.T) {
	s, err := resolveText(t, `
struct Volume k8s.io/api/core/v1.Volume
  *                                2.*     source
  persistentVolumeClaim.claimName  2.10.1  claim_name
`)
	if err != nil {
		t.Fatal(err)
	}
	src := s[0].Fields[0]
	if len(src.Hops) != 1 || src.Hops[0].Number != 2 || src.Hops[0].JSON != "" {
		t.Fatalf("source: hops %+v, want the inline volumeSource (2)", src.Hops)
	}
	var names []string
	for _, o := range src.Options {
		names = append(names, o.JSON)
	}
	for _, want := range []string{"persistentVolumeClaim", "csi", "ephemeral", "image"} {
		if !slices.Contains(names, want) {
			t.Errorf("source options %q lack %s", names, want)
		}
	}
	var out strings.Builder
	if err := Emit(&out, s, []string{"test.txt"}, "v0"); err != nil {
		t.Fatal(err)
	}
	// Every source is an option; the claim's is named and entered, in both visitors.
	for _, want := range []string{
		"static constexpr Tag kVolumeSourceOptions[] = {kVolumeSourceHostPath, kVolumeSourceEmptyDir,",
		"v1.Present(Tags::kVolumeSourceOptions, o.source);\n",
		"v1.Option(Tags::kVolumeSourcePersistentVolumeClaim, o.source, [&](auto& v2) {",
		"case 10:\n            v1.Present(Tags::kVolumeSourcePersistentVolumeClaim, o.source);\n            v1.Option(Tags::kVolumeSourcePersistentVolumeClaim, o.source,",
		"case 2:\n            v1.Present(Tags::kVolumeSourceEmptyDir, o.source);\n            return true;",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("generated code lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRefusesBadPresenceFields(t *testing.T) {
	for _, tc := range []struct{ decls, want string }{
		{"struct Volume k8s.io/api/core/v1.Volume\n  * 1.* source\n", "test.txt:2: field 1 of k8s.io/api/core/v1.Volume is not a single object"},
		{"struct Volume k8s.io/api/core/v1.Volume\n  * 2 source\n", `test.txt:2: a presence field's protobuf path`},
		{"struct Volume k8s.io/api/core/v1.Volume\n  * 9.* source\n", "test.txt:2: k8s.io/api/core/v1.Volume has no field with protobuf number 9"},
		{"struct Volume k8s.io/api/core/v1.Volume\n  * 2.* source Foo\n", "test.txt:2: a presence field holds a name"},
		{"struct PodSpec k8s.io/api/core/v1.PodSpec\n  * 36.* os\n", "is not a one-of object: its field name is not a single object"},
	} {
		_, err := resolveText(t, tc.decls)
		wantError(t, err, tc.want)
	}
}

func TestStructsOfTheSameShape(t *testing.T) {
	_, err := resolveText(t, `
struct PodAffinity k8s.io/api/core/v1.PodAffinity k8s.io/api/core/v1.PodAntiAffinity
  requiredDuringSchedulingIgnoredDuringExecution.topologyKey 1.3 topology_keys
`)
	if err != nil {
		t.Fatal(err)
	}
	// Pod and node conditions share their first fields but not observedGeneration.
	_, err = resolveText(t, `
struct Condition k8s.io/api/core/v1.PodCondition k8s.io/api/core/v1.NodeCondition
  type                1  type
  observedGeneration  7  observed_generation
`)
	wantError(t, err, "test.txt:4", `NodeCondition has no field with JSON name "observedGeneration"`, "which the struct also holds")
	_, err = resolveText(t, "kind Pod k8s.io/api/core/v1.Pod k8s.io/api/core/v1.Node\n")
	wantError(t, err, "test.txt:1: only a struct may hold several Go types")
}

const userDecls = `header pkg/api/auth_types.h
kind TokenReview k8s.io/api/authentication/v1.TokenReview
  status.user.extra 3.2.4 extra
`

func TestResolvesAMapOfStringListsAndItsHeader(t *testing.T) {
	s, err := resolveText(t, userDecls)
	if err != nil {
		t.Fatal(err)
	}
	f := s[0].Fields[0]
	if !f.Map || !f.MapOfLists || f.Type != "kString" {
		t.Fatalf("extra: map %t, lists %t, type %s; want a map of lists of kString", f.Map, f.MapOfLists, f.Type)
	}
	s[0].APIVersion = "authentication.k8s.io/v1"
	var b strings.Builder
	if err := Emit(&b, s, []string{"test.txt"}, "v0"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`#include "pkg/api/auth_types.h"`,
		`#include "stowage/api/types.h"`,
		`static constexpr Tag kStatusUserExtra{"extra", 4, Wire::kLen, Type::kString, true, true};`,
		`Fits<decltype(TokenReview::extra), Type::kString, true, 0, void, true>()`,
		`TokenReview::extra must hold a map of a list of a std::string`,
		`static constexpr std::string_view kApiVersion = "authentication.k8s.io/v1";`,
		`TokenReviewTags TagsOf(Kind<TokenReview>);`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("generated header lacks %s", want)
		}
	}
	j, _, err := Golden(s[0], "authentication.k8s.io/v1", "TokenReview")
	if err != nil {
		t.Fatal(err)
	}
	if want := `"status.user.extra": [ "status.user.extra" ]`; !strings.Contains(strings.Join(strings.Fields(string(j)), " "), want) {
		t.Errorf("golden lacks %s:\n%s", want, j)
	}
}

func TestRefusesAMisplacedHeaderLine(t *testing.T) {
	for _, decls := range []string{
		"kind Namespace k8s.io/api/core/v1.Namespace\nheader pkg/api/x.h\n",
		"header\n",
		"header pkg/api/x.hpp\n",
	} {
		_, err := resolveText(t, decls)
		wantError(t, err, `want one "header <path under the source root>.h" line before the first kind or struct`)
	}
}
