package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadOne(t *testing.T, yaml string) ([]Workload, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return LoadWorkloads(path)
}

const mixedHeader = `workloads:
- name: M
  sets: [x]
  nodes: 3
  initPods: 4
  measurePods: 2
  qps: 10
  burst: 20
  timeoutSeconds: 60
`

// Several init templates and namespaces multiply: initPods of each template in each namespace.
func TestInitPodTemplatesAndNamespaces(t *testing.T) {
	ws, err := loadOne(t, mixedHeader+`  initNamespaces: 3
  namespaceLabels: {team: devops}
  initPodTemplates:
  - metadata: {labels: {color: blue}}
  - metadata: {labels: {color: green}}
`)
	if err != nil {
		t.Fatal(err)
	}
	w := &ws[0]
	if got := w.TotalInitPods(); got != 4*2*3 {
		t.Fatalf("total init pods: got %d, want 24", got)
	}
	if got := strings.Join(w.InitNamespaceNames(), ","); got != "sched-init-0,sched-init-1,sched-init-2" {
		t.Fatalf("init namespaces: %s", got)
	}
	tm, err := w.Templates()
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.InitPods) != 2 || tm.InitPods[0].Labels["color"] != "blue" ||
		tm.InitPods[1].Labels["color"] != "green" || tm.Pod.Labels["color"] != "" {
		t.Fatalf("init templates: %+v", tm.InitPods)
	}
	// The second template's pods are numbered after the first's, so names do not collide.
	if p := PodAt(tm.InitPods[1], "sched-init-0", 1*w.InitPods); p.Name != "pod-000004" {
		t.Fatalf("second template's first pod: %s", p.Name)
	}
}

// Without the new fields a workload keeps one init namespace and the measured pod's template.
func TestInitDefaultsAreUnchanged(t *testing.T) {
	ws, err := loadOne(t, mixedHeader+"  podTemplate: {metadata: {labels: {app: a}}}\n")
	if err != nil {
		t.Fatal(err)
	}
	w := &ws[0]
	if w.TotalInitPods() != 4 || strings.Join(w.InitNamespaceNames(), ",") != initNS {
		t.Fatalf("got %d pods in %v", w.TotalInitPods(), w.InitNamespaceNames())
	}
	tm, err := w.Templates()
	if err != nil || len(tm.InitPods) != 1 || tm.InitPods[0].Labels["app"] != "a" {
		t.Fatalf("init template: %v %+v", err, tm.InitPods)
	}
}

func TestInitTemplateFieldsExcludeEachOther(t *testing.T) {
	_, err := loadOne(t, mixedHeader+`  initPodTemplate: {metadata: {labels: {a: b}}}
  initPodTemplates: [{metadata: {labels: {c: d}}}]
`)
	if err == nil || !strings.Contains(err.Error(), "exclude each other") {
		t.Fatalf("got %v", err)
	}
}

// The repository's own file loads and every template decodes, so a YAML slip fails here, not
// twenty minutes into a benchmark.
func TestRepositoryWorkloadsDecode(t *testing.T) {
	ws, err := LoadWorkloads("../../../../bench/workloads.yaml")
	if err != nil {
		t.Fatal(err)
	}
	backlog := map[string]bool{}
	for i := range ws {
		if _, err := ws[i].Templates(); err != nil {
			t.Error(err)
		}
		if ws[i].Mode == ModeBacklog {
			backlog[strings.TrimSuffix(ws[i].Name, "_Backlog")] = true
		}
	}
	affinity, err := SelectWorkloads(ws, "", "affinity")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range affinity {
		if w.Mode == ModeStream && !backlog[w.Name] {
			t.Errorf("%s has no backlog twin", w.Name)
		}
	}
}

// A churn template is decoded like the others, and a churn needs its interval and the stream mode.
func TestChurnTemplate(t *testing.T) {
	ws, err := loadOne(t, mixedHeader+`  priorityClasses: {high: 9999999}
  churnIntervalMilliseconds: 200
  churnTemplate:
    spec:
      priorityClassName: high
      containers: [{name: pause, image: pause, resources: {requests: {cpu: "9"}}}]
`)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := ws[0].Templates()
	if err != nil {
		t.Fatal(err)
	}
	if tm.Churn == nil || tm.Churn.Spec.PriorityClassName != "high" || tm.Churn.Spec.Containers[0].Resources.Requests.Cpu().String() != "9" {
		t.Fatalf("churn template: %+v", tm.Churn)
	}
	if ws[0].PriorityClasses["high"] != 9999999 {
		t.Fatalf("priority classes: %v", ws[0].PriorityClasses)
	}
	for _, bad := range []string{
		"  churnTemplate: {metadata: {labels: {a: b}}}\n",
		"  churnIntervalMilliseconds: 200\n",
		"  mode: backlog\n  churnIntervalMilliseconds: 200\n  churnTemplate: {metadata: {labels: {a: b}}}\n",
	} {
		if _, err := loadOne(t, mixedHeader+bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}
