package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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

const extern = "extern ObjectMeta k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta\n"

func TestRefusesANameThatIsNotUpstreams(t *testing.T) {
	_, err := resolveText(t, extern+`
kind PersistentVolume k8s.io/api/core/v1.PersistentVolume
  spec.cssi.driver 2.2.22.1 csi_driver
`)
	wantError(t, err, "test.txt:4", "spec.cssi", `no field with JSON name "cssi"`)
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
extern NodeSelector k8s.io/api/core/v1.NodeSelector
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
		t.Errorf("nodeAffinity.required: type %s struct %v, want the NodeSelector extern", aff.Type, aff.Struct)
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
		{extern + "kind Pod k8s.io/api/core/v1.Pod\n  spec 2 spec ObjectMeta\n", "test.txt:3: spec holds a k8s.io/api/core/v1.PodSpec, but ObjectMeta is declared for k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta"},
		{"kind Pod k8s.io/api/core/v1.Pod\n  spec.nodeName 2.10 a\n  spec.hostname 2.16 a\n", "test.txt:3: member a is already filled at test.txt:2"},
		{"kind Pod k8s.io/api/core/v1.Pod\n  spec.containers.name 2.2.1 a\n  spec.containers.image 2.2.2 b\n", "test.txt:3: only one field may pass through the list spec.containers"},
	} {
		_, err := resolveText(t, tc.decls)
		wantError(t, err, tc.want)
	}
}

func TestGoldenSetsEveryDeclaredField(t *testing.T) {
	s, err := resolveText(t, extern+`
kind CSIDriver k8s.io/api/storage/v1.CSIDriver
  metadata 1 metadata ObjectMeta
  spec.attachRequired 2.1 attach_required
  spec.podInfoOnMount 2.2 pod_info
`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Golden(s[1], "storage.k8s.io/v1", "CSIDriver")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind": "CSIDriver"`, `"name": "metadata"`, `"attachRequired": true`, `"podInfoOnMount": true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("golden JSON lacks %s:\n%s", want, b)
		}
	}
}

// The checked-in declarations resolve, so a broken one fails here as well as in the generator.
func TestTheRepositorysDeclarationsResolve(t *testing.T) {
	files, _ := filepath.Glob("../../../../pkg/api/schema/*.txt")
	if len(files) == 0 {
		t.Fatal("no declarations found under pkg/api/schema")
	}
	registry, _ := Registry()
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseDecls(name, f)
		f.Close()
		if err == nil {
			_, err = Resolve(d, registry)
		}
		if err != nil {
			t.Error(err)
		}
	}
}
