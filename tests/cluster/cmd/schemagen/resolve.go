package main

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Hop is one Go field on the way from a struct to a kept value.
type Hop struct {
	JSON     string // the JSON name; empty for an embedded struct JSON inlines
	Proto    string // the protobuf field name
	Number   int
	Wire     string // the C++ schema::Wire enumerator: kVarint for bool and integers, else kLen
	Repeated bool   // a Go slice
	Index    int    // the Go field index, for the golden writer
}

// Field is a FieldDecl resolved on upstream's Go types.
type Field struct {
	Decl     FieldDecl
	Hops     []Hop        // the last is the kept value itself
	Type     string       // the C++ schema::Type enumerator of the value (of its elements for a list)
	Elem     reflect.Type // the value's Go type, pointers and the list removed
	Struct   *Schema      // the declared struct of an object value
	ListHops int          // hops before the last that are lists (flattened into lists of lists)
	// Map says the value is a map from string keys to values of Type (Elem is the values' Go
	// type). map[string]string and map[string]Quantity are not Maps but the single values
	// kStringMap and kResourceList, which have C++ types of their own.
	Map bool
	// MapOfLists says the map's values are lists of Type (a user's extra values); in protobuf
	// each is a message whose field 1 repeats.
	MapOfLists bool
	// Options are the fields of the one-of object a presence field names (Decl.Present); Hops
	// then lead to that object and may be none.
	Options []Hop
}

// Schema is a resolved Decl.
type Schema struct {
	Decl   *Decl
	Go     reflect.Type
	Also   []reflect.Type // Decl.SameShape
	Fields []*Field
	// APIVersion is a kind's group and version as client-go's scheme registers it
	// ("storage.k8s.io/v1"); empty for a struct.
	APIVersion string
}

var (
	quantityType  = reflect.TypeOf(resource.Quantity{})
	timeType      = reflect.TypeOf(metav1.Time{})
	microTimeType = reflect.TypeOf(metav1.MicroTime{})
	intOrStrType  = reflect.TypeOf(intstr.IntOrString{})
)

// GoName is how declarations name a Go type.
func GoName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// Resolve checks every declaration against the Go types of registry (keyed by GoName) and
// resolves its fields' hops. It refuses names and numbers that are not upstream's.
func Resolve(decls []*Decl, registry map[string]reflect.Type) ([]*Schema, error) {
	byCXX := map[string]*Schema{}
	var out []*Schema
	for _, d := range decls {
		if prev, ok := byCXX[d.CXX]; ok {
			return nil, fmt.Errorf("%s: %s is already declared at %s", d.Pos, d.CXX, prev.Decl.Pos)
		}
		t, ok := registry[d.GoType]
		if !ok {
			return nil, fmt.Errorf("%s: unknown Go type %s (not a registered API kind or reachable from one)", d.Pos, d.GoType)
		}
		s := &Schema{Decl: d, Go: t}
		for _, g := range d.SameShape {
			at, ok := registry[g]
			if !ok {
				return nil, fmt.Errorf("%s: unknown Go type %s (not a registered API kind or reachable from one)", d.Pos, g)
			}
			s.Also = append(s.Also, at)
		}
		byCXX[d.CXX] = s
		out = append(out, s)
	}
	for _, s := range out {
		members := map[string]string{}
		throughList := map[string]string{}
		for _, fd := range s.Decl.Fields {
			f, err := resolveField(s.Go, fd)
			if err != nil {
				return nil, err
			}
			for _, at := range s.Also {
				if err := sameShape(f, at); err != nil {
					return nil, err
				}
			}
			if prev, ok := members[fd.Member]; ok {
				return nil, fmt.Errorf("%s: member %s is already filled at %s", fd.Pos, fd.Member, prev)
			}
			members[fd.Member] = fd.Pos
			for i := range f.Hops[:max(len(f.Hops)-1, 0)] {
				if fd.Present || !f.Hops[i].Repeated {
					continue
				}
				prefix := strings.Join(fd.JSONPath[:i+1], ".")
				if prev, ok := throughList[prefix]; ok {
					return nil, fmt.Errorf("%s: only one field may pass through the list %s (also at %s); declare a struct for its elements", fd.Pos, prefix, prev)
				}
				throughList[prefix] = fd.Pos
			}
			if err := bindStruct(f, byCXX); err != nil {
				return nil, err
			}
			s.Fields = append(s.Fields, f)
		}
	}
	return out, nil
}

func bindStruct(f *Field, byCXX map[string]*Schema) error {
	fd := f.Decl
	if f.Type != "kMessage" {
		if fd.Struct != "" {
			return fmt.Errorf("%s: %s is a %s, not an object; drop %s", fd.Pos, strings.Join(fd.JSONPath, "."), f.Elem, fd.Struct)
		}
		return nil
	}
	if fd.Struct == "" {
		return fmt.Errorf("%s: %s is an object (%s); name the C++ struct that holds it", fd.Pos, strings.Join(fd.JSONPath, "."), GoName(f.Elem))
	}
	target, ok := byCXX[fd.Struct]
	if !ok {
		return fmt.Errorf("%s: struct %s is not declared", fd.Pos, fd.Struct)
	}
	if target.Go != f.Elem && !slices.Contains(target.Also, f.Elem) {
		return fmt.Errorf("%s: %s holds a %s, but %s is declared for %s", fd.Pos, strings.Join(fd.JSONPath, "."), GoName(f.Elem), fd.Struct, target.Decl.GoType)
	}
	if target.Decl.Role == RoleKind {
		return fmt.Errorf("%s: kind %s cannot be nested", fd.Pos, fd.Struct)
	}
	f.Struct = target
	return nil
}

// sameShape checks that f, resolved on its struct's first Go type, has the same names, numbers
// and value on t.
func sameShape(f *Field, t reflect.Type) error {
	g, err := resolveField(t, f.Decl)
	if err != nil {
		return fmt.Errorf("%s (on %s, which the struct also holds)", err, GoName(t))
	}
	same := len(g.Hops) == len(f.Hops) && g.Type == f.Type && g.Map == f.Map && g.MapOfLists == f.MapOfLists && len(g.Options) == len(f.Options)
	for i := 0; same && i < len(g.Hops); i++ {
		same = g.Hops[i].JSON == f.Hops[i].JSON && g.Hops[i].Number == f.Hops[i].Number && g.Hops[i].Repeated == f.Hops[i].Repeated
	}
	if !same || (f.Type == "kMessage" && g.Elem != f.Elem) {
		return fmt.Errorf("%s: %s is not the same field on %s", f.Decl.Pos, strings.Join(f.Decl.JSONPath, "."), GoName(t))
	}
	return nil
}

// resolvePresent resolves a presence field: the hops to its one-of object, by number, and one
// option per field of that object.
func resolvePresent(t reflect.Type, fd FieldDecl) (*Field, error) {
	f := &Field{Decl: fd, Type: "kString"}
	nums := strings.Split(fd.ProtoPath, ".")
	for _, num := range nums[:len(nums)-1] {
		n, _ := strconv.Atoi(num)
		hop, ft, err := findNumber(t, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", fd.Pos, err)
		}
		if hop.Repeated || ft.Kind() != reflect.Struct || special(ft) {
			return nil, fmt.Errorf("%s: field %d of %s is not a single object", fd.Pos, n, GoName(t))
		}
		f.Hops = append(f.Hops, hop)
		t = ft
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			return nil, fmt.Errorf("%s: %s is not a one-of object: Go field %s has no JSON name", fd.Pos, GoName(t), sf.Name)
		}
		hop, err := protoHop(sf, i, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", fd.Pos, err)
		}
		if ot := deref(sf.Type); hop.Repeated || ot.Kind() != reflect.Struct || special(ot) {
			return nil, fmt.Errorf("%s: %s is not a one-of object: its field %s is not a single object", fd.Pos, GoName(t), name)
		}
		f.Options = append(f.Options, hop)
	}
	return f, nil
}

// findNumber finds the field of struct t with protobuf number n.
func findNumber(t reflect.Type, n int) (Hop, reflect.Type, error) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if parts := strings.Split(sf.Tag.Get("protobuf"), ","); len(parts) < 2 || parts[1] != strconv.Itoa(n) {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		hop, err := protoHop(sf, i, name)
		return hop, deref(sf.Type), err
	}
	return Hop{}, nil, fmt.Errorf("%s has no field with protobuf number %d", GoName(t), n)
}

func resolveField(t reflect.Type, fd FieldDecl) (*Field, error) {
	if fd.Present {
		return resolvePresent(t, fd)
	}
	f := &Field{Decl: fd}
	for i, name := range fd.JSONPath {
		hops, sf, err := findJSON(t, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", fd.Pos, strings.Join(fd.JSONPath[:i+1], "."), err)
		}
		ft := deref(sf.Type)
		if ft.Kind() == reflect.Slice {
			ft = deref(ft.Elem())
		}
		f.Hops = append(f.Hops, hops...)
		if i == len(fd.JSONPath)-1 {
			if ft, err = mapValue(f, ft, hops[len(hops)-1].Repeated); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", fd.Pos, strings.Join(fd.JSONPath, "."), err)
			}
			f.Elem = ft
			if f.Type, err = classify(ft); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", fd.Pos, strings.Join(fd.JSONPath, "."), err)
			}
			break
		}
		if ft.Kind() == reflect.Map {
			return nil, fmt.Errorf("%s: %s is a map (%s); keep the whole map and declare a struct for its values", fd.Pos, strings.Join(fd.JSONPath[:i+1], "."), ft)
		}
		if ft.Kind() != reflect.Struct || special(ft) {
			return nil, fmt.Errorf("%s: %s is a %s, not an object to descend into", fd.Pos, strings.Join(fd.JSONPath[:i+1], "."), ft)
		}
		if hops[len(hops)-1].Repeated {
			f.ListHops++
		}
		t = ft
	}
	var nums []string
	for _, h := range f.Hops {
		nums = append(nums, strconv.Itoa(h.Number))
	}
	if got := strings.Join(nums, "."); got != fd.ProtoPath {
		return nil, fmt.Errorf("%s: %s: upstream's protobuf path is %s, the declaration says %s", fd.Pos, strings.Join(fd.JSONPath, "."), got, fd.ProtoPath)
	}
	// The wire type follows from the value: the protobuf tags' first word is not always what
	// generated.pb.go writes (storage/v1 CSIDriverSpec.StorageCapacity says "bytes" but is a
	// varint), so only its number is taken from the tag.
	last := &f.Hops[len(f.Hops)-1]
	if f.Type == "kBool" || f.Type == "kInt32" || f.Type == "kInt64" {
		last.Wire = "kVarint"
	}
	return f, nil
}

// findJSON finds the field of struct t whose JSON name is name, looking through embedded
// structs JSON inlines; it returns one hop per Go field crossed.
func findJSON(t reflect.Type, name string) ([]Hop, reflect.StructField, error) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		jsonName, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		inline := jsonName == "" && (sf.Anonymous || strings.Contains(opts, "inline"))
		if jsonName != name && !inline {
			continue
		}
		if inline {
			inner := deref(sf.Type)
			if inner.Kind() != reflect.Struct {
				continue
			}
			hops, found, err := findJSON(inner, name)
			if err != nil {
				continue
			}
			hop, err := protoHop(sf, i, "")
			if err != nil {
				return nil, found, err
			}
			return append([]Hop{hop}, hops...), found, nil
		}
		hop, err := protoHop(sf, i, name)
		if err != nil {
			return nil, sf, err
		}
		return []Hop{hop}, sf, nil
	}
	return nil, reflect.StructField{}, fmt.Errorf("%s has no field with JSON name %q", GoName(t), name)
}

func protoHop(sf reflect.StructField, index int, json string) (Hop, error) {
	tag := sf.Tag.Get("protobuf")
	parts := strings.Split(tag, ",")
	if tag == "" || len(parts) < 3 {
		return Hop{}, fmt.Errorf("Go field %s has no protobuf tag", sf.Name)
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n <= 0 {
		return Hop{}, fmt.Errorf("Go field %s: bad protobuf number %q", sf.Name, parts[1])
	}
	// A list is a Go slice; protobuf also repeats map entries, which the schema treats as one value.
	list := deref(sf.Type).Kind() == reflect.Slice
	h := Hop{JSON: json, Number: n, Wire: "kLen", Repeated: list, Index: index, Proto: sf.Name}
	for _, p := range parts[3:] {
		if v, ok := strings.CutPrefix(p, "name="); ok {
			h.Proto = v
		}
	}
	return h, nil
}

// mapValue returns the Go type of the value f keeps: t itself, or the values of t when t is a map
// other than the two with C++ types of their own (then f.Map is set).
func mapValue(f *Field, t reflect.Type, inList bool) (reflect.Type, error) {
	if t.Kind() != reflect.Map {
		return t, nil
	}
	if t.Key().Kind() != reflect.String {
		return nil, fmt.Errorf("values of Go type %s are not supported by the schema: map keys must be strings", t)
	}
	if _, err := classify(t); err == nil {
		return t, nil // kStringMap or kResourceList
	}
	if inList {
		return nil, fmt.Errorf("a list of maps (%s) is not supported by the schema", t)
	}
	v := deref(t.Elem())
	if v.Kind() == reflect.Slice && v.Elem().Kind() == reflect.String {
		f.Map, f.MapOfLists = true, true
		return v.Elem(), nil
	}
	if v.Kind() == reflect.Slice || v.Kind() == reflect.Map {
		return nil, fmt.Errorf("values of Go type %s are not supported by the schema: map values must be single values, lists of strings or objects", t)
	}
	f.Map = true
	return v, nil
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// special types are objects in Go but single values in the schema.
func special(t reflect.Type) bool {
	return t == quantityType || t == timeType || t == microTimeType || t == intOrStrType
}

// classify names the schema::Type of a kept value of Go type t (pointers and list removed).
func classify(t reflect.Type) (string, error) {
	switch {
	case t == quantityType:
		return "kQuantity", nil
	case t == timeType:
		return "kTime", nil
	case t == microTimeType:
		return "kMicroTime", nil
	case t == intOrStrType:
		return "kIntOrString", nil
	}
	switch t.Kind() {
	case reflect.String:
		return "kString", nil
	case reflect.Bool:
		return "kBool", nil
	case reflect.Int32:
		return "kInt32", nil
	case reflect.Int64:
		return "kInt64", nil
	case reflect.Struct:
		return "kMessage", nil
	case reflect.Map:
		if t.Key().Kind() == reflect.String && t.Elem().Kind() == reflect.String {
			return "kStringMap", nil
		}
		if t.Key().Kind() == reflect.String && t.Elem() == quantityType {
			return "kResourceList", nil
		}
	}
	return "", fmt.Errorf("values of Go type %s are not supported by the schema", t)
}
