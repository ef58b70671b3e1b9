// protofixtures writes tests/fixtures/proto/: for each Pod and Node fixture (the captured ones of
// tests/fixtures/api and rich objects built here in the shapes of tests/testing/builders.h), the
// JSON and the protobuf bytes (envelope included) Go's own codecs write for the same object,
// plus a list of each kind and a protobuf watch stream with its JSON lines. The unit test
// tests/unit/client/protobuf_golden_test.cc decodes both and requires equal structs.
// Run from tests/cluster: go run ./tools/protofixtures ../fixtures
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/client-go/kubernetes/scheme"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func typed(obj runtime.Object) runtime.Object {
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	must(err)
	obj.GetObjectKind().SetGroupVersionKind(gvks[0])
	return obj
}

func protoBytes(obj runtime.Object) []byte {
	var b bytes.Buffer
	must(protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(typed(obj), &b))
	return b.Bytes()
}

func jsonBytes(obj runtime.Object) []byte {
	b, err := json.Marshal(typed(obj))
	must(err)
	return b
}

var out string

func write(name string, data []byte) {
	must(os.WriteFile(filepath.Join(out, "proto", name), data, 0o644))
}

func pair(name string, obj runtime.Object) {
	write(name+".json", jsonBytes(obj))
	write(name+".pb", protoBytes(obj))
}

func readJSON(path string, into interface{}) {
	b, err := os.ReadFile(filepath.Join(out, path))
	must(err)
	must(json.Unmarshal(b, into))
}

func q(s string) resource.Quantity { return resource.MustParse(s) }

func ptr[T any](v T) *T { return &v }

func richPod() *corev1.Pod {
	t := metav1.NewTime(time.Date(2026, 11, 26, 10, 20, 30, 0, time.UTC))
	del := metav1.NewTime(t.Add(90 * time.Second))
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"front", "edge"}}}}
	term := corev1.PodAffinityTerm{LabelSelector: sel, Namespaces: []string{"a", "b"}, TopologyKey: "topology.kubernetes.io/zone",
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "x"}},
		MatchLabelKeys:    []string{"pod-template-hash"}, MismatchLabelKeys: []string{"tenant"}}
	res := corev1.ResourceRequirements{
		Requests: corev1.ResourceList{"cpu": q("250m"), "memory": q("64Mi"), "example.com/gpu": q("1")},
		Limits:   corev1.ResourceList{"cpu": q("1.5"), "memory": q("128Mi")}}
	tp := corev1.ResourceList{"cpu": q("100m")}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "rich", Namespace: "ns-a", UID: "uid-rich", ResourceVersion: "4242",
			Generation: 3, CreationTimestamp: t, DeletionTimestamp: &del,
			Labels: map[string]string{"app": "web", "tier": "front", "pod-template-hash": "abc"},
			Annotations: map[string]string{"example.com/owner": "team-a",
				"kubectl.kubernetes.io/last-applied-configuration": "{\"big\":true}"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", UID: "rs-1", Controller: ptr(true)},
				{APIVersion: "v1", Kind: "Service", Name: "other", UID: "svc-1"}}},
		Spec: corev1.PodSpec{
			SchedulerName: "default-scheduler", NodeName: "", Priority: ptr(int32(-5)), PriorityClassName: "low",
			PreemptionPolicy: ptr(corev1.PreemptNever), RestartPolicy: "Always", HostNetwork: true, HostUsers: ptr(false),
			OS:           &corev1.PodOS{Name: "linux"},
			NodeSelector: map[string]string{"disk": "ssd", "kubernetes.io/os": "linux"},
			Overhead:     corev1.ResourceList{"cpu": q("10m"), "memory": q("1Ki")},
			Resources:    &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("2")}, Limits: corev1.ResourceList{"memory": q("1G")}},
			InitContainers: []corev1.Container{
				{Name: "init", Image: "busybox", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("500m")}}},
				{Name: "sidecar", Image: "envoy", RestartPolicy: ptr(corev1.ContainerRestartPolicyAlways),
					RestartPolicyRules: []corev1.ContainerRestartRule{{Action: "Restart", ExitCodes: &corev1.ContainerRestartRuleOnExitCodes{Operator: "In", Values: []int32{42}}}}},
			},
			Containers: []corev1.Container{
				{Name: "app", Image: "nginx:1.27", Resources: res, Ports: []corev1.ContainerPort{
					{ContainerPort: 80, HostPort: 8080, Protocol: "TCP", HostIP: "10.0.0.1"},
					{ContainerPort: 53, Protocol: "UDP"}, {ContainerPort: 9000}}},
				{Name: "empty", Image: "pause"},
			},
			Affinity: &corev1.Affinity{
				NodeAffinity: &corev1.NodeAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
						{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"z1", "z2"}}}},
						{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: "NotIn", Values: []string{"n1"}}}},
						{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "gen", Operator: "Gt", Values: []string{"3"}}}}}},
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
						{Weight: 7, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: "Exists"}},
							MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"n2"}}}}}}},
				PodAffinity: &corev1.PodAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution:  []corev1.PodAffinityTerm{term},
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: term}}},
				PodAntiAffinity: &corev1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{}}},
					PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "zone",
						LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "DoesNotExist"}}}}}}},
			},
			Tolerations: []corev1.Toleration{{Key: "k", Operator: "Equal", Value: "v", Effect: "NoSchedule"},
				{Operator: "Exists"}, {Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr(int64(300))},
				{Key: "n", Operator: "Gt", Value: "5", Effect: "NoSchedule", TolerationSeconds: ptr(int64(0))}},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: "DoNotSchedule", LabelSelector: sel, MinDomains: ptr(int32(3)),
					NodeAffinityPolicy: ptr(corev1.NodeInclusionPolicyIgnore), NodeTaintsPolicy: ptr(corev1.NodeInclusionPolicyHonor),
					MatchLabelKeys: []string{"pod-template-hash"}},
				{MaxSkew: 2, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: "ScheduleAnyway"}},
			Volumes: []corev1.Volume{
				{Name: "claim", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data", ReadOnly: true}}},
				{Name: "csi", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "csi.example.com", ReadOnly: ptr(true)}}},
				{Name: "gce", VolumeSource: corev1.VolumeSource{GCEPersistentDisk: &corev1.GCEPersistentDiskVolumeSource{PDName: "pd-1", ReadOnly: true}}},
				{Name: "aws", VolumeSource: corev1.VolumeSource{AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"}}},
				{Name: "iscsi", VolumeSource: corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{TargetPortal: "10.0.0.2:3260", IQN: "iqn.x", Lun: 4, ReadOnly: true}}},
				{Name: "rbd", VolumeSource: corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{CephMonitors: []string{"m1", "m2"}, RBDImage: "img", RBDPool: "pool"}}},
				{Name: "image", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{Reference: "registry/x:1"}}},
				{Name: "nfs", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "s", Path: "/p", ReadOnly: true}}},
				{Name: "empty", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}},
				{Name: "eph", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}},
				{Name: "fc", VolumeSource: corev1.VolumeSource{FC: &corev1.FCVolumeSource{ReadOnly: true}}},
				{Name: "scaleio", VolumeSource: corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{ReadOnly: true}}},
			},
			SchedulingGates: []corev1.PodSchedulingGate{{Name: "example.com/wait"}, {Name: "second"}},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr("gpu-claim")},
				{Name: "tmpl", ResourceClaimTemplateName: ptr("gpu-template")}},
		},
		Status: corev1.PodStatus{
			Phase: "Pending", NominatedNodeName: "node-9", QOSClass: "Burstable", StartTime: &t,
			Conditions: []corev1.PodCondition{{Type: "PodScheduled", Status: "False", Reason: "Unschedulable", Message: "0/3 nodes",
				LastTransitionTime: t, ObservedGeneration: 3}, {Type: "Ready", Status: "True", LastProbeTime: t}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", AllocatedResources: corev1.ResourceList{"cpu": q("250m")},
				Resources: &corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("200m")}}},
				{Name: "empty", Resources: &corev1.ResourceRequirements{}}},
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "sidecar", AllocatedResources: tp}},
			AllocatedResources:    corev1.ResourceList{"cpu": q("2")},
			Resources:             &corev1.ResourceRequirements{Limits: corev1.ResourceList{"memory": q("1G")}},
		},
	}
}

func richNode() *corev1.Node {
	t := metav1.NewTime(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC))
	rl := corev1.ResourceList{"cpu": q("3800m"), "memory": q("16Gi"), "pods": q("110"),
		"ephemeral-storage": q("100G"), "hugepages-2Mi": q("0"), "example.com/gpu": q("4")}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "node-rich", UID: "uid-node", ResourceVersion: "77", CreationTimestamp: t,
			Labels: map[string]string{"kubernetes.io/hostname": "node-rich", "topology.kubernetes.io/zone": "z1"}},
		Spec: corev1.NodeSpec{Unschedulable: true, ProviderID: "kwok://node-rich", PodCIDR: "10.1.0.0/24",
			Taints: []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: "NoSchedule"},
				{Key: "node.kubernetes.io/unreachable", Effect: "NoExecute", TimeAdded: &t}}},
		Status: corev1.NodeStatus{Capacity: rl, Allocatable: corev1.ResourceList{"cpu": q("3.5"), "memory": q("15Gi"), "pods": q("110")},
			Conditions: []corev1.NodeCondition{{Type: "Ready", Status: "True", Reason: "KubeletReady", Message: "ok",
				LastHeartbeatTime: t, LastTransitionTime: t}, {Type: "MemoryPressure", Status: "False"}},
			Images: []corev1.ContainerImage{{Names: []string{"nginx:1.27", "nginx@sha256:abc"}, SizeBytes: 187654321}, {Names: []string{"pause"}}},
			DeclaredFeatures: []string{"FeatureA", "FeatureB"},
			Addresses:        []corev1.NodeAddress{{Type: "InternalIP", Address: "10.0.0.5"}}},
	}
}

func main() {
	out = os.Args[1]
	must(os.MkdirAll(filepath.Join(out, "proto"), 0o755))
	var pod corev1.Pod
	readJSON("api/pod.json", &pod)
	pair("pod-captured", &pod)
	var node corev1.Node
	readJSON("api/node.json", &node)
	pair("node-captured", &node)
	pair("pod-rich", richPod())
	pair("pod-minimal", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}})
	pair("node-rich", richNode())
	pair("node-minimal", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}})

	var pods corev1.PodList
	readJSON("api/podlist.json", &pods)
	pods.Items = append(pods.Items, *richPod(), pod)
	pods.Continue = "token-1"
	pair("podlist", &pods)
	pair("nodelist", &corev1.NodeList{ListMeta: metav1.ListMeta{ResourceVersion: "99"}, Items: []corev1.Node{node, *richNode()}})

	// The watch stream, framed as the apiserver frames it, and the same events as JSON lines.
	f, err := os.Open(filepath.Join(out, "api/watch-pods.jsonl"))
	must(err)
	defer f.Close()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), "application/vnd.kubernetes.protobuf")
	if !ok {
		panic("no protobuf serializer")
	}
	var stream, lines bytes.Buffer
	enc := streaming.NewEncoder(info.StreamSerializer.Framer.NewFrameWriter(&stream), info.StreamSerializer.Serializer)
	emit := func(typ string, obj runtime.Object) {
		must(enc.Encode(&metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: protoBytes(obj)}}))
		line, err := json.Marshal(map[string]interface{}{"type": typ, "object": json.RawMessage(jsonBytes(obj))})
		must(err)
		lines.Write(line)
		lines.WriteByte('\n')
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Type   string     `json:"type"`
			Object corev1.Pod `json:"object"`
		}
		must(json.Unmarshal(sc.Bytes(), &ev))
		emit(ev.Type, &ev.Object)
	}
	emit("MODIFIED", richPod())
	emit("ERROR", &metav1.Status{Status: "Failure", Message: "too old resource version: 1 (228)", Reason: "Expired", Code: 410})
	write("watch-pods.pb", stream.Bytes())
	write("watch-pods.jsonl", lines.Bytes())
}
