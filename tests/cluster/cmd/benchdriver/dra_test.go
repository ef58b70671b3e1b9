package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

const draHeader = `workloads:
- name: D
  sets: [x]
  nodes: 3
  initPods: 4
  measurePods: 6
  qps: 10
  burst: 20
  timeoutSeconds: 60
`

const draClass = `    deviceClass: {metadata: {name: test-class}, spec: {selectors: [{cel: {expression: device.driver == "test-driver.cdi.k8s.io"}}]}}
    claim: {metadata: {name: test-claim}, spec: {devices: {requests: [{name: req-0, exactly: {deviceClassName: test-class}}]}}}
`

// The repository's DRA shapes are scheduler_perf's: sizes, templates and the pods' claims.
func TestRepositoryDRAShapes(t *testing.T) {
	all, err := LoadWorkloads("../../../../bench/workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"dra", "dra-small"} {
		ws, err := SelectWorkloads(all, "", set)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ws {
			w := &ws[i]
			tm, err := w.Templates()
			if err != nil {
				t.Fatal(err)
			}
			d := w.DRA
			if tm.DeviceClass.Name != "test-class" || tm.DeviceClass.Spec.Selectors[0].CEL.Expression !=
				`device.driver == "test-driver.cdi.k8s.io"` || tm.Claim.Spec.Devices.Requests[0].Exactly.DeviceClassName != "test-class" {
				t.Errorf("%s: class %+v, claim %+v", w.Name, tm.DeviceClass, tm.Claim)
			}
			devices := d.NodesWithDRA * d.DevicesPerNode
			switch {
			case strings.HasPrefix(w.Name, "SchedulingWithResourceClaimTemplate/"):
				c := tm.Pod.Spec.ResourceClaims
				if len(c) != 1 || *c[0].ResourceClaimTemplateName != "test-claim-template" || d.DevicesPerNode != 10 ||
					!d.ResourceClaimController || tm.ClaimTemplate.Spec.Spec.Devices.Requests[0].Exactly.DeviceClassName != "test-class" ||
					len(tm.InitPods[0].Spec.ResourceClaims) != 0 || tm.Pod.Spec.Containers[0].Resources.Claims[0].Name != "resource" {
					t.Errorf("%s: pod %+v, dra %+v", w.Name, tm.Pod.Spec, d)
				}
				if d.AllocatedClaims+w.MeasurePods > devices {
					t.Errorf("%s: %d init claims and %d pods for %d devices", w.Name, d.AllocatedClaims, w.MeasurePods, devices)
				}
			case strings.HasPrefix(w.Name, "SchedulingWithResourceClaim/"):
				c := tm.Pod.Spec.ResourceClaims
				if len(c) != 1 || *c[0].ResourceClaimName != "test-claim" || d.DevicesPerNode != 2 || d.PodsPerClaim != 5 ||
					d.ResourceClaimController {
					t.Errorf("%s: pod %+v, dra %+v", w.Name, tm.Pod.Spec, d)
				}
				claims := d.SharedClaimsIn(w.MeasurePods)
				if refersToClaim(tm.InitPods[0]) {
					claims += d.SharedClaimsIn(w.TotalInitPods())
				}
				if claims > devices {
					t.Errorf("%s: %d claims for %d devices", w.Name, claims, devices)
				}
			default:
				t.Errorf("unexpected DRA shape %s", w.Name)
			}
		}
	}
	if _, err := SelectWorkloads(all, "SchedulingWithResourceClaimTemplate/5000pods_500nodes,"+
		"SchedulingWithResourceClaimTemplate/5000pods_500nodes_Backlog,SchedulingWithResourceClaim/2000pods_200nodes", ""); err != nil {
		t.Error(err)
	}
}

// Set-up of the claim template shape: one slice per DRA node as resourceslice-basic-devices.yaml,
// the class, the template in every namespace, and init claims allocated each to its own device
// with reservedFor empty.
func TestDRASetupWithAllocatedClaims(t *testing.T) {
	ws, err := loadOne(t, draHeader+`  initPodTemplate: {}
  podTemplate: {spec: {resourceClaims: [{name: resource, resourceClaimTemplateName: tpl}]}}
  dra:
    nodesWithDRA: 2
    devicesPerNode: 4
    allocatedClaims: 5
    resourceClaimController: true
    claimTemplate: {metadata: {name: tpl}, spec: {spec: {devices: {requests: [{name: req-0, exactly: {deviceClassName: test-class}}]}}}}
`+draClass)
	if err != nil {
		t.Fatal(err)
	}
	w := &ws[0]
	tm, err := w.Templates()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.Controllers(), ","); got != "resourceclaim-controller" {
		t.Fatalf("controllers: %s", got)
	}
	cs := fake.NewSimpleClientset()
	ctx := context.Background()
	res, err := DRASetup(ctx, cs, w, tm)
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 2+5 {
		t.Fatalf("created %d slices and claims, want 7", res.Count)
	}
	if n := w.NodeAt(tm, 1); n.Labels[draNodeKey] != "true" || w.NodeAt(tm, 2).Labels[draNodeKey] != "" {
		t.Fatalf("node labels: %v", n.Labels)
	}
	slices, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
	if err != nil || len(slices.Items) != 2 {
		t.Fatalf("slices: %v %v", slices, err)
	}
	s, err := cs.ResourceV1().ResourceSlices().Get(ctx, "resourceslice-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dev := s.Spec.Devices[3]
	if *s.Spec.NodeName != "scheduler-perf-00001" || s.Spec.Pool.Name != "resourceslice-1" || s.Spec.Driver != draDriver ||
		len(s.Spec.Devices) != 4 || dev.Name != "basic-device-3" || *dev.Attributes["pciRoot"].StringValue != "01" ||
		*dev.Attributes["resource.kubernetes.io/pciRoot"].StringValue != "pci0000:01" ||
		*dev.Attributes["pciAddress"].StringValue != "0000:03:00.0" || *dev.Attributes["driverVersion"].VersionValue != "1.2.3" ||
		ptr.To(dev.Capacity["memory"].Value).String() != "24480Mi" || ptr.To(dev.Capacity["millicores"].Value).String() != "1k" {
		t.Fatalf("slice: %+v", s.Spec)
	}
	if _, err := cs.ResourceV1().DeviceClasses().Get(ctx, "test-class", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{initNS, measureNS} {
		if _, err := cs.ResourceV1().ResourceClaimTemplates(ns).Get(ctx, "tpl", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	claims, err := cs.ResourceV1().ResourceClaims(initNS).List(ctx, metav1.ListOptions{})
	if err != nil || len(claims.Items) != 5 {
		t.Fatalf("claims: %v %v", claims, err)
	}
	seen := map[string]bool{}
	for _, c := range claims.Items {
		a := c.Status.Allocation
		if a == nil || len(a.Devices.Results) != 1 || len(c.Status.ReservedFor) != 0 {
			t.Fatalf("claim %s: %+v", c.Name, c.Status)
		}
		r := a.Devices.Results[0]
		node := a.NodeSelector.NodeSelectorTerms[0].MatchFields[0].Values[0]
		if r.Request != "req-0" || r.Driver != draDriver || seen[r.Pool+"/"+r.Device] ||
			"resourceslice-"+node[len(node)-1:] != r.Pool {
			t.Fatalf("claim %s: %+v on %s", c.Name, r, node)
		}
		seen[r.Pool+"/"+r.Device] = true
	}
	// Claim 4 is the third on node 0: device 2.
	if c := w.InitClaimAt(tm, 4); c.Status.Allocation.Devices.Results[0].Device != "basic-device-2" ||
		c.Status.Allocation.Devices.Results[0].Pool != "resourceslice-0" || c.Name != "test-claim-4" {
		t.Fatalf("init claim 4: %+v", c.Status.Allocation)
	}
}

// The claim reference shape: pod i refers to test-claim-<i/podsPerClaim> and each namespace
// with such pods gets its claims, unallocated.
func TestDRAClaimRefs(t *testing.T) {
	ws, err := loadOne(t, draHeader+`  podTemplate: {spec: {resourceClaims: [{name: resource, resourceClaimName: test-claim}]}}
  dra:
    nodesWithDRA: 3
    devicesPerNode: 2
    podsPerClaim: 3
`+draClass)
	if err != nil {
		t.Fatal(err)
	}
	w := &ws[0]
	tm, err := w.Templates()
	if err != nil {
		t.Fatal(err)
	}
	cs := fake.NewSimpleClientset()
	ctx := context.Background()
	if _, err := DRASetup(ctx, cs, w, tm); err != nil {
		t.Fatal(err)
	}
	for ns, want := range map[string]int{initNS: 2, measureNS: 2} { // 4 init and 6 measured pods
		l, err := cs.ResourceV1().ResourceClaims(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) != want {
			t.Fatalf("%s: %d claims, want %d (%v)", ns, len(l.Items), want, err)
		}
		if l.Items[0].Status.Allocation != nil {
			t.Fatalf("claim allocated: %+v", l.Items[0])
		}
	}
	if len(w.Controllers()) != 0 {
		t.Fatalf("controllers: %v", w.Controllers())
	}
	if _, err := CreatePods(ctx, cs, measureNS, 0, w.MeasurePods, tm.Pod, w.PodHook()); err != nil {
		t.Fatal(err)
	}
	p, err := cs.CoreV1().Pods(measureNS).Get(ctx, "pod-000004", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := *p.Spec.ResourceClaims[0].ResourceClaimName; got != "test-claim-1" {
		t.Fatalf("pod 4 refers to %s", got)
	}
	if *tm.Pod.Spec.ResourceClaims[0].ResourceClaimName != "test-claim" {
		t.Fatal("the template was modified")
	}
}

func TestDRAFieldsAreChecked(t *testing.T) {
	base := "    nodesWithDRA: 1\n    devicesPerNode: 2\n"
	for bad, want := range map[string]string{
		"  dra: {nodesWithDRA: 4, devicesPerNode: 1}\n":                    "nodesWithDRA",
		"  dra: {nodesWithDRA: 1, devicesPerNode: 0}\n":                    "devicesPerNode",
		"  dra: {nodesWithDRA: 1, devicesPerNode: 1}\n":                    "deviceClass",
		"  dra:\n" + base + "    allocatedClaims: 3\n" + draClass:          "exceeds",
		"  dra:\n" + base + "    podsPerClaim: 2\n    deviceClass: {}\n":   "need dra.claim",
		"  dra:\n" + base + "    claimTemplate: {}\n    deviceClass: {}\n": "resourceClaimController",
	} {
		_, err := loadOne(t, draHeader+bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", bad, err, want)
		}
	}
	// What needs the templates fails when they are decoded.
	for bad, want := range map[string]string{
		"  podTemplate: {spec: {resourceClaims: [{name: r, resourceClaimName: other}]}}\n  dra:\n" + base +
			"    podsPerClaim: 2\n" + draClass: `refers to claim "other"`,
		"  podTemplate: {spec: {resourceClaims: [{name: r, resourceClaimTemplateName: t}]}}\n  dra:\n" + base + draClass: "claim template",
		"  dra:\n" + base + "    deviceClass: {spec: {selector: []}}\n":                                                  "deviceClass",
		"  dra:\n" + base + "    deviceClass: {spec: {}}\n":                                                              "no name",
	} {
		ws, err := loadOne(t, draHeader+bad)
		if err != nil {
			t.Errorf("%q: %v", bad, err)
			continue
		}
		if _, err := ws[0].Templates(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", bad, err, want)
		}
	}
}

// VerifyClaims accepts claims allocated on the pod's node and reserved for it, and names what
// is wrong otherwise.
func TestVerifyClaims(t *testing.T) {
	ctx := context.Background()
	d := &DRASpec{NodesWithDRA: 2, DevicesPerNode: 2}
	objects := func(reserve bool, device1 string) *fake.Clientset {
		cs := fake.NewSimpleClientset()
		for i := 0; i < 2; i++ {
			node := fmt.Sprintf("node-%d", i)
			if _, err := cs.ResourceV1().ResourceSlices().Create(ctx, d.SliceAt(node, i), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("claim-%d", i)
			p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d", i), Namespace: measureNS,
				UID: types.UID(fmt.Sprint("uid-", i))}, Spec: v1.PodSpec{NodeName: node,
				ResourceClaims: []v1.PodResourceClaim{{Name: "resource", ResourceClaimTemplateName: &name}}},
				Status: v1.PodStatus{ResourceClaimStatuses: []v1.PodResourceClaimStatus{{Name: "resource", ResourceClaimName: &name}}}}
			c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: measureNS},
				Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{Name: "req-0"}}}}}
			dev := "basic-device-0"
			if i == 1 {
				dev = device1
			}
			c.Status.Allocation = Allocation(c, node, SliceName(i), []string{dev})
			if reserve || i == 0 {
				c.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}}
			}
			if _, err := cs.CoreV1().Pods(measureNS).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ResourceV1().ResourceClaims(measureNS).Create(ctx, c, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		return cs
	}
	if err := VerifyClaims(ctx, objects(true, "basic-device-1"), []string{measureNS}); err != nil {
		t.Fatal(err)
	}
	err := VerifyClaims(ctx, objects(false, "basic-device-1"), []string{measureNS})
	if err == nil || !strings.Contains(err.Error(), "claim-1 is not reserved for the pod") {
		t.Fatalf("unreserved claim: %v", err)
	}
	// A claim whose device is another node's.
	cs := objects(true, "basic-device-1")
	c, _ := cs.ResourceV1().ResourceClaims(measureNS).Get(ctx, "claim-1", metav1.GetOptions{})
	c.Status.Allocation.Devices.Results[0].Pool = SliceName(0)
	if _, err := cs.ResourceV1().ResourceClaims(measureNS).UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := VerifyClaims(ctx, cs, []string{measureNS}); err == nil || !strings.Contains(err.Error(), "pool resourceslice-0 on node") {
		t.Fatalf("device of another node: %v", err)
	}
	// One device allocated twice.
	c.Status.Allocation.Devices.Results[0].Device = "basic-device-0"
	if _, err := cs.ResourceV1().ResourceClaims(measureNS).UpdateStatus(ctx, c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := VerifyClaims(ctx, cs, []string{measureNS}); err == nil || !strings.Contains(err.Error(), "allocated to both") {
		t.Fatalf("a device twice: %v", err)
	}
}

// The repository's extended resource shapes are scheduler_perf's ExtendedResource and
// ExtendedResourceScoring: classes, pods' requests per index, and the scoring profile.
func TestRepositoryDRAExtendedShapes(t *testing.T) {
	all, err := LoadWorkloads("../../../../bench/workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, set := range []string{"dra-extended", "dra-extended-small", "dra-extended-5k"} {
		ws, err := SelectWorkloads(all, "", set)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ws {
			w := &ws[i]
			seen[w.Name] = true
			tm, err := w.Templates()
			if err != nil {
				t.Fatal(err)
			}
			d := w.DRA
			devices := d.NodesWithDRA * d.DevicesPerNode
			if d.DevicesPerNode != 10 || d.Claim != nil || d.ClaimTemplate != nil || d.ResourceClaimController ||
				len(tm.Pod.Spec.ResourceClaims) != 0 || len(w.Controllers()) != 0 {
				t.Errorf("%s: dra %+v", w.Name, d)
			}
			c := tm.Pod.Spec.Containers
			if len(c) != 1 || len(c[0].Resources.Requests) != 1 || !c[0].Resources.Requests.Cpu().IsZero() {
				t.Errorf("%s: pod %+v", w.Name, c)
			}
			first := d.DeviceClassAt(tm, 0)
			if first.Spec.Selectors[0].CEL.Expression != `device.driver == "test-driver.cdi.k8s.io"` {
				t.Errorf("%s: class %+v", w.Name, first)
			}
			last := d.DeviceClassAt(tm, d.DeviceClasses-1)
			p := PodAt(tm.Pod, measureNS, d.DeviceClasses+3)
			if hook := w.PodHook(); hook != nil {
				hook(p, d.DeviceClasses+3)
			}
			var requested v1.ResourceName
			for r := range p.Spec.Containers[0].Resources.Requests {
				requested = r
			}
			if _, ok := p.Spec.Containers[0].Resources.Limits[requested]; !ok {
				t.Errorf("%s: requests %v, limits %v", w.Name, p.Spec.Containers[0].Resources.Requests,
					p.Spec.Containers[0].Resources.Limits)
			}
			switch {
			case strings.HasPrefix(w.Name, "ExtendedResource/"):
				// Pod 3 (after the classes) requests one device of class 3.
				want := v1.ResourceName("example.com/gpu-3")
				if first.Spec.ExtendedResourceName == nil {
					want = "deviceclass.resource.kubernetes.io/test-class-3"
					if !strings.Contains(w.Name, "Implicit") {
						t.Errorf("%s: class 0 names no extended resource", w.Name)
					}
				} else if *last.Spec.ExtendedResourceName != fmt.Sprintf("example.com/gpu-%d", d.DeviceClasses-1) {
					t.Errorf("%s: last class %+v", w.Name, last)
				}
				if last.Name != fmt.Sprintf("test-class-%d", d.DeviceClasses-1) || requested != want ||
					p.Spec.Containers[0].Resources.Requests.Name(want, "").Value() != 1 || w.SchedulerConfig != nil {
					t.Errorf("%s: class %s, pod requests %s", w.Name, last.Name, requested)
				}
				if !strings.HasSuffix(w.Name, "/fast") && w.TotalInitPods()+w.MeasurePods != devices {
					t.Errorf("%s: %d init and %d measured pods for %d devices", w.Name, w.TotalInitPods(), w.MeasurePods, devices)
				}
			case strings.HasPrefix(w.Name, "ExtendedResourceScoring/"):
				if last.Name != fmt.Sprintf("scoring-test-class-%d", d.DeviceClasses-1) ||
					*last.Spec.ExtendedResourceName != "example.com/gpu" || requested != "example.com/gpu" ||
					d.IndexedResource != "" || len(tm.InitPods[0].Spec.Containers[0].Resources.Requests) != 2 {
					t.Errorf("%s: class %+v, pod requests %s", w.Name, last, requested)
				}
				if !strings.HasSuffix(w.Name, "/fast") && w.MeasurePods != devices {
					t.Errorf("%s: %d measured pods for %d devices", w.Name, w.MeasurePods, devices)
				}
				cfg := readConfig(t, w)
				fit := cfg["profiles"].([]any)[0].(map[string]any)["pluginConfig"].([]any)[0].(map[string]any)
				res := fit["args"].(map[string]any)["scoringStrategy"].(map[string]any)["resources"].([]any)
				if fit["name"] != "NodeResourcesFit" || len(res) != 3 || res[2].(map[string]any)["name"] != "example.com/gpu" {
					t.Errorf("%s: scheduler configuration %v", w.Name, cfg)
				}
			default:
				t.Errorf("unexpected shape %s", w.Name)
			}
		}
	}
	for _, name := range []string{"ExtendedResource/fast", "ExtendedResourceScoring/fast",
		"ExtendedResource/Explicit_25classes_2000pods_200nodes", "ExtendedResource/Explicit_50classes_2000pods_200nodes",
		"ExtendedResourceScoring/2000pods_200nodes", "ExtendedResource/Implicit_25classes_5000pods_500nodes"} {
		if !seen[name] {
			t.Errorf("%s is in no extended resource set", name)
		}
	}
}

// readConfig writes the workload's scheduler configuration and reads it back.
func readConfig(t *testing.T, w *Workload) map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scheduler-config.yaml")
	if err := writeConfig(path, "/k/kubeconfig", w); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Every scheduler's configuration: the driver's client settings, with the workload's
// schedulerConfig merged in; the driver's own keys cannot be overridden.
func TestSchedulerConfig(t *testing.T) {
	ws, err := loadOne(t, draHeader+`  schedulerConfig:
    percentageOfNodesToScore: 50
    profiles: [{schedulerName: default-scheduler, pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: MostAllocated}}}]}]
`)
	if err != nil {
		t.Fatal(err)
	}
	cfg := readConfig(t, &ws[0])
	cc := cfg["clientConnection"].(map[string]any)
	if cfg["kind"] != "KubeSchedulerConfiguration" || cfg["apiVersion"] != "kubescheduler.config.k8s.io/v1" ||
		cc["kubeconfig"] != "/k/kubeconfig" || cc["qps"] != 10.0 || cc["burst"] != 20.0 ||
		cfg["leaderElection"].(map[string]any)["leaderElect"] != false || cfg["percentageOfNodesToScore"] != 50.0 ||
		len(cfg["profiles"].([]any)) != 1 {
		t.Fatalf("configuration: %v", cfg)
	}
	// Without schedulerConfig: only the driver's keys.
	ws, err = loadOne(t, draHeader)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := readConfig(t, &ws[0]); len(cfg) != 4 {
		t.Fatalf("plain configuration: %v", cfg)
	}
	for _, key := range []string{"clientConnection", "leaderElection", "kind"} {
		if _, err := loadOne(t, draHeader+"  schedulerConfig: {"+key+": {}}\n"); err == nil ||
			!strings.Contains(err.Error(), "schedulerConfig") {
			t.Errorf("schedulerConfig with %s: %v", key, err)
		}
	}
}

// The explicit extended resource shape's set-up: N classes, class k naming <resource>-<k>, no
// claims; pod i requests and limits <resource>-<i mod N>, init pods numbered as upstream's.
func TestDRAExtendedResourceSetup(t *testing.T) {
	ws, err := loadOne(t, draHeader+`  podTemplate: {spec: {containers: [{name: pause, image: pause, resources: {requests: {example.com/gpu: "1"}, limits: {example.com/gpu: "1"}}}]}}
  dra:
    nodesWithDRA: 2
    devicesPerNode: 5
    deviceClasses: 4
    indexedResource: example.com/gpu
    deviceClass: {metadata: {name: test-class}, spec: {extendedResourceName: example.com/gpu}}
`)
	if err != nil {
		t.Fatal(err)
	}
	w := &ws[0]
	tm, err := w.Templates()
	if err != nil {
		t.Fatal(err)
	}
	cs := fake.NewSimpleClientset()
	ctx := context.Background()
	if _, err := DRASetup(ctx, cs, w, tm); err != nil {
		t.Fatal(err)
	}
	classes, err := cs.ResourceV1().DeviceClasses().List(ctx, metav1.ListOptions{})
	if err != nil || len(classes.Items) != 4 {
		t.Fatalf("classes: %v %v", classes, err)
	}
	for _, c := range classes.Items {
		k := strings.TrimPrefix(c.Name, "test-class-")
		if c.Spec.ExtendedResourceName == nil || *c.Spec.ExtendedResourceName != "example.com/gpu-"+k {
			t.Errorf("class %s: %+v", c.Name, c.Spec)
		}
	}
	if l, _ := cs.ResourceV1().ResourceClaims("").List(ctx, metav1.ListOptions{}); len(l.Items) != 0 {
		t.Fatalf("claims made during set-up: %v", l.Items)
	}
	if _, err := CreatePods(ctx, cs, initNS, 0, w.InitPods, tm.InitPods[0], w.PodHook()); err != nil {
		t.Fatal(err)
	}
	if _, err := CreatePods(ctx, cs, measureNS, 0, w.MeasurePods, tm.Pod, w.PodHook()); err != nil {
		t.Fatal(err)
	}
	for ns, pods := range map[string]int{initNS: 4, measureNS: 6} {
		for i := 0; i < pods; i++ {
			p, err := cs.CoreV1().Pods(ns).Get(ctx, fmt.Sprintf("pod-%06d", i), metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r := p.Spec.Containers[0].Resources
			want := v1.ResourceName(fmt.Sprintf("example.com/gpu-%d", i%4))
			if len(r.Requests) != 1 || len(r.Limits) != 1 || r.Requests.Name(want, "").Value() != 1 ||
				r.Limits.Name(want, "").Value() != 1 {
				t.Errorf("%s/%s: %+v", ns, p.Name, r)
			}
		}
	}
	if tm.Pod.Spec.Containers[0].Resources.Requests.Name("example.com/gpu", "").Value() != 1 {
		t.Fatal("the template was modified")
	}
	// Without deviceClasses, the one class keeps its name (the other DRA shapes).
	d := *w.DRA
	d.DeviceClasses = 0
	if c := d.DeviceClassAt(tm, 0); c.Name != "test-class" || *c.Spec.ExtendedResourceName != "example.com/gpu" {
		t.Fatalf("single class: %+v", c)
	}
}

func TestDRAExtendedFieldsAreChecked(t *testing.T) {
	base := "    nodesWithDRA: 1\n    devicesPerNode: 2\n"
	for bad, want := range map[string]string{
		"  dra:\n" + base + "    deviceClasses: -1\n" + draClass:                "deviceClasses",
		"  dra:\n" + base + "    indexedResource: example.com/gpu\n" + draClass: "needs dra.deviceClasses",
	} {
		if _, err := loadOne(t, draHeader+bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", bad, err, want)
		}
	}
	// An indexed resource no pod requests is a misspelling.
	ws, err := loadOne(t, draHeader+"  dra:\n"+base+"    deviceClasses: 2\n    indexedResource: example.com/gpu\n"+draClass)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws[0].Templates(); err == nil || !strings.Contains(err.Error(), "no pod template requests") {
		t.Fatalf("unrequested indexed resource: %v", err)
	}
}

// VerifyClaims also checks the claim the scheduler made for a pod's extended resources: named
// in the pod's status, annotated, one device per unit, on the pod's node, reserved for it.
func TestVerifyExtendedResourceClaims(t *testing.T) {
	ctx := context.Background()
	d := &DRASpec{NodesWithDRA: 1, DevicesPerNode: 2}
	build := func(mutate func(p *v1.Pod, c *resourceapi.ResourceClaim)) *fake.Clientset {
		cs := fake.NewSimpleClientset()
		if _, err := cs.ResourceV1().ResourceSlices().Create(ctx, d.SliceAt("node-0", 0), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		dc := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "test-class-0"},
			Spec: resourceapi.DeviceClassSpec{ExtendedResourceName: ptr.To("example.com/gpu-0")}}
		if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, dc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-0", Namespace: measureNS, UID: "uid-0"},
			Spec: v1.PodSpec{NodeName: "node-0", Containers: []v1.Container{{Name: "pause", Resources: v1.ResourceRequirements{
				Requests: v1.ResourceList{"example.com/gpu-0": resource.MustParse("2")}}}}},
			Status: v1.PodStatus{ExtendedResourceClaimStatus: &v1.PodExtendedResourceClaimStatus{
				ResourceClaimName: "pod-0-extended-resources-x"}}}
		c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "pod-0-extended-resources-x", Namespace: measureNS,
			Annotations: map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"}},
			Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{
				{Name: "container-0-request-0"}, {Name: "container-0-request-0"}}}}}
		c.Status.Allocation = Allocation(c, "node-0", SliceName(0), []string{"basic-device-0", "basic-device-1"})
		c.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: p.Name, UID: p.UID}}
		mutate(p, c)
		if _, err := cs.CoreV1().Pods(measureNS).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ResourceV1().ResourceClaims(measureNS).Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return cs
	}
	if err := VerifyClaims(ctx, build(func(*v1.Pod, *resourceapi.ResourceClaim) {}), []string{measureNS}); err != nil {
		t.Fatal(err)
	}
	for want, mutate := range map[string]func(p *v1.Pod, c *resourceapi.ResourceClaim){
		"extendedResourceClaimStatus names no claim": func(p *v1.Pod, _ *resourceapi.ResourceClaim) {
			p.Status.ExtendedResourceClaimStatus = nil
		},
		"is not reserved for the pod": func(_ *v1.Pod, c *resourceapi.ResourceClaim) { c.Status.ReservedFor = nil },
		"1 devices for the 2 requested": func(_ *v1.Pod, c *resourceapi.ResourceClaim) {
			c.Status.Allocation.Devices.Results = c.Status.Allocation.Devices.Results[:1]
		},
		"lacks annotation": func(_ *v1.Pod, c *resourceapi.ResourceClaim) { c.Annotations = nil },
		"not bound":        func(p *v1.Pod, _ *resourceapi.ResourceClaim) { p.Spec.NodeName = "" },
	} {
		if err := VerifyClaims(ctx, build(mutate), []string{measureNS}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want an error with %q, got %v", want, err)
		}
	}
	// The implicit name deviceclass.resource.kubernetes.io/<class> needs a claim too.
	cs := build(func(p *v1.Pod, _ *resourceapi.ResourceClaim) {
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{
			"deviceclass.resource.kubernetes.io/test-class-0": resource.MustParse("1")}
		p.Status.ExtendedResourceClaimStatus = nil
	})
	if err := VerifyClaims(ctx, cs, []string{measureNS}); err == nil || !strings.Contains(err.Error(), "requests 1 devices") {
		t.Fatalf("implicit extended resource without a claim: %v", err)
	}
}
