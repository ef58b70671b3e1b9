package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"reflect"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
)

// The golden objects set every declared field to a value derived from its JSON path (dotted
// from the kind, list indexes left out), so a test can check each field without a table of
// expected values: strings are the path, integers and quantities GoldenInt(path), times
// GoldenInt(path) seconds after the epoch, booleans true; maps hold the one entry path: <value>,
// whose value is derived from the same path. tests/unit/api/schema_test.cc derives the same.

// GoldenInt is the FNV-1a hash of path, reduced to 1..100000.
func GoldenInt(path string) int64 {
	h := fnv.New32a()
	h.Write([]byte(path))
	return int64(h.Sum32()%100000) + 1
}

// Golden returns the JSON, as Go's encoding/json writes it, of kind s with every declared field
// set, and the same object as the apiserver's protobuf serializer writes it (in its "k8s\0"
// envelope); apiVersion and kind are set from gvk ("storage.k8s.io/v1", "StorageClass").
func Golden(s *Schema, apiVersion, kind string) (jsonBytes, protoBytes []byte, err error) {
	obj := reflect.New(s.Go)
	if err := fillStruct(obj.Elem(), s, ""); err != nil {
		return nil, nil, err
	}
	if tm := obj.Elem().FieldByName("TypeMeta"); tm.IsValid() {
		tm.Set(reflect.ValueOf(metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}))
	}
	if jsonBytes, err = json.MarshalIndent(obj.Interface(), "", "  "); err != nil {
		return nil, nil, err
	}
	ro, ok := obj.Interface().(runtime.Object)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %s is not a runtime.Object", s.Decl.Pos, s.Decl.GoType)
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(ro, &buf); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", s.Decl.Pos, err)
	}
	return append(jsonBytes, '\n'), buf.Bytes(), nil
}

func fillStruct(v reflect.Value, s *Schema, prefix string) error {
	for _, f := range s.Fields {
		if f.Decl.Present {
			continue // the one-of object's kept fields set one of its options
		}
		cur := v
		path := prefix
		for i, h := range f.Hops {
			fv := cur.Field(h.Index)
			if h.JSON != "" {
				path = join(path, h.JSON)
			}
			if i == len(f.Hops)-1 {
				if err := fillValue(fv, f, path); err != nil {
					return fmt.Errorf("%s: %v", f.Decl.Pos, err)
				}
				break
			}
			fv = alloc(fv)
			if fv.Kind() == reflect.Slice {
				if fv.Len() == 0 {
					fv.Set(reflect.Append(fv, reflect.New(fv.Type().Elem()).Elem()))
				}
				fv = alloc(fv.Index(0))
			}
			cur = fv
		}
	}
	return nil
}

// alloc follows pointers, allocating nil ones.
func alloc(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	return v
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func fillValue(v reflect.Value, f *Field, path string) error {
	v = alloc(v)
	if v.Kind() == reflect.Slice && f.Hops[len(f.Hops)-1].Repeated {
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		v = alloc(v.Index(0))
	}
	if f.Map {
		// One entry, keyed by the path, whose value is derived from the same path.
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		one := alloc(e)
		if f.MapOfLists {
			one.Set(reflect.MakeSlice(one.Type(), 1, 1))
			one = one.Index(0)
		}
		if err := fillOne(one, f, path); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(path).Convert(v.Type().Key()), e)
		v.Set(m)
		return nil
	}
	return fillOne(v, f, path)
}

// GoldenTime is the instant of a time value: GoldenInt(path) seconds after the Unix epoch.
func GoldenTime(path string) time.Time { return time.Unix(GoldenInt(path), 0).UTC() }

// fillOne sets one value (one element of a list, one value of a map) of field f.
func fillOne(v reflect.Value, f *Field, path string) error {
	n := GoldenInt(path)
	switch f.Type {
	case "kString":
		v.SetString(path)
	case "kBool":
		v.SetBool(true)
	case "kInt32", "kInt64":
		v.SetInt(n)
	case "kQuantity":
		v.Set(reflect.ValueOf(resource.MustParse(strconv.FormatInt(n, 10))))
	case "kTime":
		v.Set(reflect.ValueOf(metav1.NewTime(GoldenTime(path))))
	case "kMicroTime":
		v.Set(reflect.ValueOf(metav1.NewMicroTime(GoldenTime(path))))
	case "kIntOrString":
		v.Set(reflect.ValueOf(intstr.FromInt32(int32(n))))
	case "kStringMap", "kResourceList":
		m := reflect.MakeMap(v.Type())
		val := reflect.ValueOf(path)
		if f.Type == "kResourceList" {
			val = reflect.ValueOf(resource.MustParse(strconv.FormatInt(n, 10)))
		}
		m.SetMapIndex(reflect.ValueOf(path).Convert(v.Type().Key()), val.Convert(v.Type().Elem()))
		v.Set(m)
	case "kMessage":
		return fillStruct(v, f.Struct, path)
	default:
		return fmt.Errorf("no golden value for a %s", f.Type)
	}
	return nil
}
