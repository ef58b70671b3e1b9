// protogolden prints, as C++ string escapes, the protobuf bytes Go writes for the Binding and
// the Events of tests/unit/client/protobuf_test.cc, so stowage's encoders are checked against
// them. Run from tests/cluster: go run ./tools/protogolden
package main

import (
	"bytes"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

func enc(obj runtime.Object) string {
	s := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		panic(err)
	}
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	var b bytes.Buffer
	if err := s.Encode(obj, &b); err != nil {
		panic(err)
	}
	out := ""
	for _, c := range b.Bytes() {
		out += fmt.Sprintf("\\x%02x", c)
	}
	return out
}

func main() {
	b := &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: "pod-1", Namespace: "ns-a", UID: "uid-1"},
		Target:     corev1.ObjectReference{Kind: "Node", APIVersion: "v1", Name: "node-7"},
	}
	fmt.Printf("binding %s\n", enc(b))
	t := time.Date(2026, 11, 26, 10, 20, 30, 123456000, time.UTC)
	e := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "pod-1.18abc", Namespace: "ns-a"},
		EventTime:           metav1.NewMicroTime(t),
		ReportingController: "default-scheduler",
		ReportingInstance:   "default-scheduler-host",
		Action:              "Binding",
		Reason:              "Scheduled",
		Note:                "Successfully assigned ns-a/pod-1 to node-7",
		Type:                "Normal",
		Regarding:           corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "ns-a", Name: "pod-1", UID: "uid-1", ResourceVersion: "42"},
	}
	fmt.Printf("event %s\n", enc(e))
	e.Series = &eventsv1.EventSeries{Count: 2, LastObservedTime: metav1.NewMicroTime(t.Add(1500 * time.Millisecond))}
	fmt.Printf("eventseries %s\n", enc(e))
}
