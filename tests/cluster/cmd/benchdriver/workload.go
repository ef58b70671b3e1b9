package main

// Workloads are data (bench/workloads.yaml): the scheduler_perf shapes, each a number of nodes,
// pods created before the scheduler starts, pods measured while it runs, the client limits and
// a time bound. Objects start from scheduler_perf's default templates (node-default.yaml,
// pod-default.yaml) and a workload may merge-patch them (RFC 7386) and spread per-node label
// values by node index, so NodeAffinity or TopologySpreading are a few lines of YAML.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/yaml"
)

// Workload is one entry of the workloads file.
type Workload struct {
	Name        string   `json:"name"`
	Sets        []string `json:"sets"` // named groups, e.g. "full", "smoke"
	Nodes       int      `json:"nodes"`
	InitPods    int      `json:"initPods"`
	MeasurePods int      `json:"measurePods"`
	QPS         int      `json:"qps"`
	Burst       int      `json:"burst"`
	// Mode is stream (default: measured pods created while the scheduler runs, as
	// scheduler_perf), backlog (all created first, then the scheduler is started again) or
	// failover (stream with two instances under leader election, the leader killed mid-run;
	// failover.go).
	Mode string `json:"mode,omitempty"`
	// TimeoutSeconds bounds each phase (setup, init, creation, measured).
	TimeoutSeconds int `json:"timeoutSeconds"`
	// Merge patches over the default node, measured pod and init pod (init defaults to the
	// measured pod's patch).
	NodeTemplate    map[string]any `json:"nodeTemplate,omitempty"`
	PodTemplate     map[string]any `json:"podTemplate,omitempty"`
	InitPodTemplate map[string]any `json:"initPodTemplate,omitempty"`
	// InitPodTemplates are several init pod patches, initPods of each created one template
	// after another (MixedSchedulingBasePod's five createPods ops); excludes initPodTemplate.
	InitPodTemplates []map[string]any `json:"initPodTemplates,omitempty"`
	// InitNamespaces, when set, puts initPods (of each template) into each of that many
	// namespaces, sched-init-0 to sched-init-N-1 (scheduler_perf's createPodSets).
	InitNamespaces int `json:"initNamespaces,omitempty"`
	// NamespaceLabels label every namespace the run creates (namespace-with-labels.yaml), for
	// pods whose terms select namespaces by label.
	NamespaceLabels map[string]string `json:"namespaceLabels,omitempty"`
	// NodeLabelsByIndex gives node i the label value values[i % len(values)] for each key.
	NodeLabelsByIndex map[string][]string `json:"nodeLabelsByIndex,omitempty"`
	// PriorityClasses (name: value) are created first. Templates name them in
	// spec.priorityClassName: the apiserver's Priority admission sets spec.priority from the
	// class and rejects a pod that sets a different one itself (scheduler_perf's apiserver
	// runs without it and its templates set spec.priority).
	PriorityClasses map[string]int32 `json:"priorityClasses,omitempty"`
	// ChurnTemplate, in stream mode, is a pod patch of which one pod is created in namespace
	// sched-churn every ChurnIntervalMilliseconds while the measured phase runs
	// (scheduler_perf's churn op in create mode); churn pods are not measured.
	ChurnTemplate             map[string]any `json:"churnTemplate,omitempty"`
	ChurnIntervalMilliseconds int            `json:"churnIntervalMilliseconds,omitempty"`
	// Storage (volumes.go): a claim per init and measured pod, CSINodes beside the nodes, and
	// StorageClasses (merge patches over an empty class, each with its name) created first.
	Volumes        *VolumeSpec      `json:"volumes,omitempty"`
	CSINode        *CSINodeSpec     `json:"csiNode,omitempty"`
	StorageClasses []map[string]any `json:"storageClasses,omitempty"`
	// Dynamic resource allocation (dra.go): ResourceSlices, a DeviceClass, claims and a claim
	// template, created during set-up.
	DRA *DRASpec `json:"dra,omitempty"`
	// SchedulerConfig is merged (RFC 7386) into the KubeSchedulerConfiguration the driver writes
	// for every scheduler of the run, e.g. the profiles of a scheduler_perf shape's
	// schedulerConfigPath; clientConnection and leaderElection stay the driver's.
	SchedulerConfig map[string]any `json:"schedulerConfig,omitempty"`
	// Failover tunes the failover mode (failover.go); nil there means its defaults.
	Failover *FailoverSpec `json:"failover,omitempty"`
	// Sweep names the shape this workload measures at its node count in the node-count sweep:
	// the report puts every run of one shape into one table and plot (sweep.go).
	Sweep string `json:"sweep,omitempty"`
}

type workloadFile struct {
	// Templates holds YAML anchors the workloads share; it is read only through them.
	Templates map[string]any `json:"x-templates,omitempty"`
	Workloads []Workload     `json:"workloads"`
}

// LoadWorkloads reads the file and checks every entry, naming the bad one.
func LoadWorkloads(path string) ([]Workload, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading workloads: %w", err)
	}
	var f workloadFile
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	seen := map[string]bool{}
	for i, w := range f.Workloads {
		where := fmt.Sprintf("%s: workloads[%d] (%q)", path, i, w.Name)
		switch {
		case w.Name == "" || seen[w.Name]:
			return nil, fmt.Errorf("%s: name must be set and unique", where)
		case w.Nodes < 1 || w.MeasurePods < 1 || w.InitPods < 1:
			return nil, fmt.Errorf("%s: nodes, initPods and measurePods must be at least 1 (the "+
				"init pods time the scheduler's start-up)", where)
		case w.QPS < 1 || w.Burst < 1:
			return nil, fmt.Errorf("%s: qps and burst must be at least 1", where)
		case w.TimeoutSeconds < 10:
			return nil, fmt.Errorf("%s: timeoutSeconds must be at least 10", where)
		case w.Mode != "" && w.Mode != ModeStream && w.Mode != ModeBacklog && w.Mode != ModeFailover &&
			w.Mode != ModeRelist:
			return nil, fmt.Errorf("%s: mode must be %s, %s, %s or %s", where, ModeStream, ModeBacklog,
				ModeFailover, ModeRelist)
		case w.InitPodTemplate != nil && len(w.InitPodTemplates) > 0:
			return nil, fmt.Errorf("%s: initPodTemplate and initPodTemplates exclude each other", where)
		case w.InitNamespaces < 0:
			return nil, fmt.Errorf("%s: initNamespaces must not be negative", where)
		case (w.ChurnTemplate != nil) != (w.ChurnIntervalMilliseconds > 0):
			return nil, fmt.Errorf("%s: churnTemplate and churnIntervalMilliseconds go together", where)
		case w.ChurnTemplate != nil && (w.Mode == ModeBacklog || w.Mode == ModeRelist):
			return nil, fmt.Errorf("%s: churn needs the stream mode (the %s mode has no creation phase "+
				"beside the scheduler)", where, w.Mode)
		case w.SchedulerConfig["clientConnection"] != nil || w.SchedulerConfig["leaderElection"] != nil ||
			w.SchedulerConfig["apiVersion"] != nil || w.SchedulerConfig["kind"] != nil:
			return nil, fmt.Errorf("%s: schedulerConfig must leave apiVersion, kind, clientConnection and "+
				"leaderElection to the driver", where)
		}
		if err := w.checkFailover(); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if err := w.checkVolumes(); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if err := w.checkDRA(); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if w.Mode == "" {
			f.Workloads[i].Mode = ModeStream
		}
		for k, vs := range w.NodeLabelsByIndex {
			if len(vs) == 0 {
				return nil, fmt.Errorf("%s: nodeLabelsByIndex[%q] has no values", where, k)
			}
		}
		seen[w.Name] = true
	}
	return f.Workloads, nil
}

// SelectWorkloads picks by comma-separated names (in that order) or else by set.
func SelectWorkloads(all []Workload, names, set string) ([]Workload, error) {
	var out []Workload
	if names != "" {
		byName := map[string]Workload{}
		for _, w := range all {
			byName[w.Name] = w
		}
		for _, n := range strings.Split(names, ",") {
			w, ok := byName[strings.TrimSpace(n)]
			if !ok {
				known := make([]string, 0, len(all))
				for _, w := range all {
					known = append(known, w.Name)
				}
				sort.Strings(known)
				return nil, fmt.Errorf("unknown workload %q; known: %s", n, strings.Join(known, ", "))
			}
			out = append(out, w)
		}
		return out, nil
	}
	for _, w := range all {
		for _, s := range w.Sets {
			if s == set {
				out = append(out, w)
				break
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no workload is in set %q", set)
	}
	return out, nil
}

// The scheduler_perf templates (test/integration/scheduler_perf/templates at v1.36.3).
const defaultNode = `{"apiVersion":"v1","kind":"Node","metadata":{},"spec":{},
 "status":{"capacity":{"pods":"110","cpu":"4","memory":"32Gi"},
  "conditions":[{"status":"True","type":"Ready"}],"phase":"Running"}}`

const defaultPod = `{"apiVersion":"v1","kind":"Pod","metadata":{},"spec":{"containers":[
 {"image":"registry.k8s.io/pause:3.10.2","name":"pause","ports":[{"containerPort":80}],
  "resources":{"limits":{"cpu":"100m","memory":"500Mi"},"requests":{"cpu":"100m","memory":"500Mi"}}}]}}`

// MergePatch applies an RFC 7386 JSON merge patch to doc: objects merge key by key, null
// deletes, anything else replaces.
func MergePatch(doc any, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	d, ok := doc.(map[string]any)
	if !ok {
		d = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(d, k)
			continue
		}
		d[k] = MergePatch(d[k], v)
	}
	return d
}

// objectTemplate renders the JSON of one object: base, patched, with name and labels set.
func objectTemplate(base string, patch map[string]any) (map[string]any, error) {
	var obj map[string]any
	if err := json.Unmarshal([]byte(base), &obj); err != nil {
		return nil, err
	}
	if patch != nil {
		// Round-trip the patch so the template shares no maps with the workload.
		b, err := json.Marshal(patch)
		if err != nil {
			return nil, err
		}
		var p map[string]any
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, err
		}
		obj = MergePatch(obj, p).(map[string]any)
	}
	return obj, nil
}

// Templates are the workload's node, init pods (one per init template) and measured pod
// before naming.
type Templates struct {
	Node     *v1.Node
	InitPods []*v1.Pod
	Pod      *v1.Pod
	Churn    *v1.Pod // nil without churn
	// Storage (nil or empty without it).
	PVC            *v1.PersistentVolumeClaim
	PV             *v1.PersistentVolume
	StorageClasses []*storagev1.StorageClass
	// Dynamic resource allocation (nil without it).
	DeviceClass   *resourceapi.DeviceClass
	Claim         *resourceapi.ResourceClaim
	ClaimTemplate *resourceapi.ResourceClaimTemplate
}

func decodeTemplate(base string, patch map[string]any, into any) error {
	obj, err := objectTemplate(base, patch)
	if err != nil {
		return err
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a misspelt field in a template is an error, not a no-op
	return dec.Decode(into)
}

// Templates decodes the patched templates once; NodeAt and PodAt copy them.
func (w *Workload) Templates() (Templates, error) {
	t := Templates{Node: &v1.Node{}, Pod: &v1.Pod{}}
	initPatches := w.InitPodTemplates
	if len(initPatches) == 0 {
		initPatch := w.InitPodTemplate
		if initPatch == nil {
			initPatch = w.PodTemplate
		}
		initPatches = []map[string]any{initPatch}
	}
	if err := decodeTemplate(defaultNode, w.NodeTemplate, t.Node); err != nil {
		return t, fmt.Errorf("workload %q: nodeTemplate: %w", w.Name, err)
	}
	if err := decodeTemplate(defaultPod, w.PodTemplate, t.Pod); err != nil {
		return t, fmt.Errorf("workload %q: podTemplate: %w", w.Name, err)
	}
	if w.ChurnTemplate != nil {
		t.Churn = &v1.Pod{}
		if err := decodeTemplate(defaultPod, w.ChurnTemplate, t.Churn); err != nil {
			return t, fmt.Errorf("workload %q: churnTemplate: %w", w.Name, err)
		}
	}
	for i, patch := range initPatches {
		p := &v1.Pod{}
		if err := decodeTemplate(defaultPod, patch, p); err != nil {
			return t, fmt.Errorf("workload %q: init pod template %d: %w", w.Name, i, err)
		}
		t.InitPods = append(t.InitPods, p)
	}
	if err := w.decodeStorageTemplates(&t); err != nil {
		return t, err
	}
	return t, w.decodeDRATemplates(&t)
}

// NodeAt is node i: a copy of the template named scheduler-perf-NNNNN with its hostname label
// and its per-index labels.
func (w *Workload) NodeAt(t Templates, i int) *v1.Node {
	n := t.Node.DeepCopy()
	n.Name = fmt.Sprintf("scheduler-perf-%05d", i)
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	n.Labels["kubernetes.io/hostname"] = n.Name
	for k, vs := range w.NodeLabelsByIndex {
		n.Labels[k] = vs[i%len(vs)]
	}
	if w.DRA != nil && i < w.DRA.NodesWithDRA { // node-with-dra-test-driver.yaml
		n.Labels[draNodeKey] = "true"
	}
	return n
}

// InitNamespaceNames are the namespaces the init pods go into.
func (w *Workload) InitNamespaceNames() []string {
	if w.InitNamespaces == 0 {
		return []string{initNS}
	}
	names := make([]string, w.InitNamespaces)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", initNS, i)
	}
	return names
}

// TotalInitPods is initPods for each init template in each init namespace.
func (w *Workload) TotalInitPods() int {
	templates := len(w.InitPodTemplates)
	if templates == 0 {
		templates = 1
	}
	return w.InitPods * templates * len(w.InitNamespaceNames())
}

// PodAt is pod i of namespace ns.
func PodAt(template *v1.Pod, ns string, i int) *v1.Pod {
	p := template.DeepCopy()
	p.Name = fmt.Sprintf("pod-%06d", i)
	p.Namespace = ns
	return p
}

// Slug is the name made safe for file names.
func (w *Workload) Slug() string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(w.Name)
}
