package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

const failoverHeader = `workloads:
- name: F
  sets: [failover]
  mode: failover
  nodes: 3
  initPods: 4
  measurePods: 100
  qps: 10
  burst: 20
  timeoutSeconds: 60
`

func configOf(t *testing.T, w *Workload) map[string]any {
	t.Helper()
	b, err := schedulerConfig("/k/kubeconfig", w)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The failover mode turns leader election on, upstream's lock and lease settings unless the
// workload says otherwise; every other mode keeps it off.
func TestFailoverSchedulerConfig(t *testing.T) {
	ws, err := loadOne(t, failoverHeader)
	if err != nil {
		t.Fatal(err)
	}
	cfg := configOf(t, &ws[0])
	want := map[string]any{"leaderElect": true, "leaseDuration": "15s", "renewDeadline": "10s",
		"retryPeriod": "2s", "resourceLock": "leases", "resourceName": "kube-scheduler",
		"resourceNamespace": "kube-system"}
	if got := cfg["leaderElection"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("leaderElection: got %v, want %v", got, want)
	}
	cc := cfg["clientConnection"].(map[string]any)
	if cc["kubeconfig"] != "/k/kubeconfig" || cc["qps"] != float64(10) || cc["burst"] != float64(20) {
		t.Fatalf("clientConnection: %v", cc)
	}
	if f := ws[0].FailoverSettings(); f.KillAfterPods != 25 || f.SettleSeconds != 60 {
		t.Fatalf("defaults: %+v", f)
	}

	ws, err = loadOne(t, failoverHeader+`  failover: {killAfterPods: 10, leaseDurationSeconds: 6, renewDeadlineSeconds: 4, retryPeriodSeconds: 0.5}
  schedulerConfig: {percentageOfNodesToScore: 50}
`)
	if err != nil {
		t.Fatal(err)
	}
	cfg = configOf(t, &ws[0])
	le := cfg["leaderElection"].(map[string]any)
	if le["leaseDuration"] != "6s" || le["renewDeadline"] != "4s" || le["retryPeriod"] != "500ms" {
		t.Fatalf("lease settings: %v", le)
	}
	if cfg["percentageOfNodesToScore"] != float64(50) {
		t.Fatalf("schedulerConfig not merged: %v", cfg)
	}

	stream := Workload{Name: "S", QPS: 1, Burst: 1, Mode: ModeStream}
	if got := configOf(t, &stream)["leaderElection"]; !reflect.DeepEqual(got, map[string]any{"leaderElect": false}) {
		t.Fatalf("stream mode: leaderElection %v", got)
	}
}

func TestFailoverValidation(t *testing.T) {
	for _, c := range []struct{ extra, want string }{
		{"  failover: {killAfterPods: 100}\n", "killAfterPods"},
		{"  failover: {leaseDurationSeconds: 10}\n", "greater than renewDeadline"},
		{"  failover: {renewDeadlineSeconds: 2.4}\n", "1.2 x retryPeriod"},
		{"  failover: {settleSeconds: -1}\n", "negative"},
		{"  churnTemplate: {}\n  churnIntervalMilliseconds: 100\n", "no churn"},
	} {
		if _, err := loadOne(t, failoverHeader+c.extra); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error with %q", c.extra, err, c.want)
		}
	}
	stream := strings.Replace(failoverHeader, "  mode: failover\n", "", 1)
	if _, err := loadOne(t, stream+"  failover: {killAfterPods: 1}\n"); err == nil ||
		!strings.Contains(err.Error(), "needs mode failover") {
		t.Errorf("failover fields without the mode: %v", err)
	}
}

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func at(seconds ...float64) []time.Time {
	out := make([]time.Time, len(seconds))
	for i, s := range seconds {
		out[i] = t0.Add(time.Duration(s * float64(time.Second)))
	}
	return out
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestComputeGap(t *testing.T) {
	kill := t0.Add(10 * time.Second)
	by := map[string][]time.Time{
		"a": at(1, 9.5, 10.05, 2), // one binding in flight at the kill
		"b": at(30, 26.5, 27),
	}
	g, err := ComputeGap(by, "a", "b", kill)
	if err != nil {
		t.Fatal(err)
	}
	if !g.LastOld.Equal(t0.Add(10050*time.Millisecond)) || !g.FirstNew.Equal(t0.Add(26500*time.Millisecond)) {
		t.Fatalf("last old %v, first new %v", g.LastOld, g.FirstNew)
	}
	if !near(g.GapSeconds, 16.45) || !near(g.KillToFirstBindingSeconds, 16.5) ||
		!near(g.KillToLastOldSeconds, 0.05) || g.OldAfterKill != 1 {
		t.Fatalf("gap %+v", g)
	}
	for _, c := range []struct {
		by       map[string][]time.Time
		old, new string
		want     string
	}{
		{map[string][]time.Time{"b": at(20)}, "a", "b", "no binding by the old leader"},
		{by, "a", "", "never moved"},
		{by, "a", "a", "never moved"},
		{map[string][]time.Time{"a": at(1)}, "a", "b", "no binding by the new leader"},
	} {
		if _, err := ComputeGap(c.by, c.old, c.new, kill); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q->%q: got %v, want %q", c.by, c.old, c.new, err, c.want)
		}
	}
}

// Polls of the Lease become holder spans from each holder's acquireTime; bindings go to the
// holder of their time.
func TestHolderTimelineAndAttribution(t *testing.T) {
	obs := []LeaseObservation{
		{At: t0.Add(5 * time.Second), Holder: "a", AcquireTime: t0, RenewTime: t0.Add(4 * time.Second)},
		{At: t0.Add(7 * time.Second), Holder: "a", AcquireTime: t0, RenewTime: t0.Add(6 * time.Second)},
		{At: t0.Add(25 * time.Second), Holder: "b", AcquireTime: t0.Add(24900 * time.Millisecond)},
		{At: t0.Add(26 * time.Second), Holder: "b", AcquireTime: t0.Add(24900 * time.Millisecond),
			RenewTime: t0.Add(26 * time.Second)},
		{At: t0.Add(40 * time.Second), Holder: "c"}, // no acquireTime: from when it was seen
	}
	spans := HolderTimeline(obs)
	want := []HolderSpan{{"a", t0}, {"b", t0.Add(24900 * time.Millisecond)}, {"c", t0.Add(40 * time.Second)}}
	if !reflect.DeepEqual(spans, want) {
		t.Fatalf("spans: got %v, want %v", spans, want)
	}
	by := AttributeBindings(at(-1, 3, 10.1, 24.95, 30, 41), spans)
	if len(by["a"]) != 3 || len(by["b"]) != 2 || len(by["c"]) != 1 {
		t.Fatalf("attribution: %v", by)
	}
	g, err := ComputeGap(by, "a", "b", t0.Add(10*time.Second))
	if err != nil || !near(g.GapSeconds, 24.95-10.1) || g.OldAfterKill != 1 {
		t.Fatalf("gap %+v, %v", g, err)
	}
	if got := AttributeBindings(at(1), nil); len(got) != 0 {
		t.Fatalf("no spans: %v", got)
	}
}

func TestCounterByLabel(t *testing.T) {
	text := `# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 4999
apiserver_request_total{code="409",component="apiserver",resource="pods",scope="resource",subresource="binding",verb="POST",version="v1"} 2
apiserver_request_total{code="201",component="apiserver",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 5000
apiserver_request_total{code="201",component="apiserver",resource="pods",scope="resource",subresource="binding",verb="POST",version="v2"} 1
apiserver_request_total_other{code="201",resource="pods",subresource="binding"} 7
`
	got := CounterByLabel(text, "apiserver_request_total",
		map[string]string{"resource": "pods", "subresource": "binding"}, "code")
	if !reflect.DeepEqual(got, map[string]float64{"201": 5000, "409": 2}) {
		t.Fatalf("got %v", got)
	}
}

func TestReadBindLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.log")
	log := `# /bin/kube-scheduler --config=x
I1201 10:00:01.250000   12345 schedule_one.go:314] "Successfully bound pod to node" pod="sched-measure/pod-000001" node="scheduler-perf-00001" evaluatedNodes=5000 feasibleNodes=5000
I1201 10:00:01.500000 1234567 schedule_one.cc:202] Successfully bound pod to node pod="sched-measure/pod-000002" node="scheduler-perf-00002"
I1201 10:00:00.900000   12345 schedule_one.go:314] "Successfully bound pod to node" pod="sched-init/pod-000001" node="scheduler-perf-00003"
E1201 10:00:02.000000   12345 schedule_one.go:1085] "Error scheduling pod; retrying" err="binding rejected: Operation cannot be fulfilled on pods/binding \"pod-000003\": pod pod-000003 is already assigned to node \"scheduler-perf-00004\""
`
	if err := os.WriteFile(path, []byte(log), 0o600); err != nil {
		t.Fatal(err)
	}
	bl, err := ReadBindLog(path, "sched-measure", 2026)
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Time{time.Date(2026, 12, 1, 10, 0, 1, 250000000, time.Local),
		time.Date(2026, 12, 1, 10, 0, 1, 500000000, time.Local)}
	if !reflect.DeepEqual(bl.Bound, want) || bl.Conflicts != 1 {
		t.Fatalf("got %+v", bl)
	}
	if _, ok := KlogTime("# not a klog line at all, no", 2026); ok {
		t.Fatal("parsed a non-klog line")
	}
}
