package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
)

// The whole-object fixtures: a Pod and a Node with every field upstream's types have set, as the
// apiserver serves them (kind, apiVersion and managedFields included), and the extender requests
// upstream's scheduler sends for them, marshalled by Go as pkg/scheduler/extender.go does: the
// informer's objects have no kind or apiVersion, and the pod informer drops managedFields (the
// node informer keeps them; stowage drops both, as the issue allows). tests/unit/extender/
// whole_object_test.cc decodes the objects and compares its requests with these path by path.

// WriteWhole writes WholePod.json, WholeNode.json, ExtenderArgs.json and
// ExtenderPreemptionArgs.json into dir.
func WriteWhole(dir string) error {
	var pod corev1.Pod
	var node corev1.Node
	if err := fillAll(reflect.ValueOf(&pod).Elem(), "pod", 0); err != nil {
		return err
	}
	if err := fillAll(reflect.ValueOf(&node).Elem(), "node", 0); err != nil {
		return err
	}
	pod.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
	node.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
	files := map[string]any{"WholePod.json": &pod, "WholeNode.json": &node}

	sentPod, sentNode := pod, node
	sentPod.TypeMeta, sentNode.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
	sentPod.ManagedFields, sentNode.ManagedFields = nil, nil
	files["ExtenderArgs.json"] = &extenderv1.ExtenderArgs{
		Pod: &sentPod, Nodes: &corev1.NodeList{Items: []corev1.Node{sentNode}},
	}
	files["ExtenderPreemptionArgs.json"] = &extenderv1.ExtenderPreemptionArgs{
		Pod: &sentPod,
		NodeNameToVictims: map[string]*extenderv1.Victims{
			sentNode.Name: {Pods: []*corev1.Pod{&sentPod}, NumPDBViolations: 1},
		},
	}
	for name, obj := range files {
		// The requests compact, as upstream sends them; the objects readable.
		b, err := json.Marshal(obj)
		if strings.HasPrefix(name, "Whole") {
			b, err = json.MarshalIndent(obj, "", "  ")
		}
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

var fieldsV1Type = reflect.TypeOf(metav1.FieldsV1{})

// fillAll sets every exported field under v, recursively: one element per list, one entry per
// map, values derived from the path as the golden objects' are (golden.go).
func fillAll(v reflect.Value, path string, depth int) error {
	if depth > 40 {
		return fmt.Errorf("%s: nested too deep (a recursive type?)", path)
	}
	n := GoldenInt(path)
	switch v.Type() {
	case quantityType:
		v.Set(reflect.ValueOf(resource.MustParse(strconv.FormatInt(n, 10))))
		return nil
	case timeType:
		v.Set(reflect.ValueOf(metav1.NewTime(GoldenTime(path))))
		return nil
	case microTimeType:
		v.Set(reflect.ValueOf(metav1.NewMicroTime(GoldenTime(path))))
		return nil
	case intOrStrType:
		v.Set(reflect.ValueOf(intstr.FromString(path)))
		return nil
	case fieldsV1Type:
		v.Set(reflect.ValueOf(metav1.FieldsV1{Raw: []byte(`{"f:metadata":{}}`)}))
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		return fillAll(v.Elem(), path, depth+1)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			sf := v.Type().Field(i)
			name := strings.Split(sf.Tag.Get("json"), ",")[0]
			if !sf.IsExported() || name == "-" {
				continue
			}
			if err := fillAll(v.Field(i), join(path, name), depth+1); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(path))
			return nil
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		return fillAll(v.Index(0), path, depth+1)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		if err := fillAll(e, path, depth+1); err != nil {
			return err
		}
		m.SetMapIndex(reflect.ValueOf(path).Convert(v.Type().Key()), e)
		v.Set(m)
	case reflect.String:
		v.SetString(path)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(n)
	case reflect.Uint, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(n) / 4)
	default:
		return fmt.Errorf("%s: no value for a %s", path, v.Type())
	}
	return nil
}
