package main

// The storage flow on a real test cluster: `testcluster -storage` (etcd, kube-apiserver, and
// kube-controller-manager's PersistentVolume controllers plus this provisioner as children),
// first with the scheduler's part played by hand, then with upstream kube-scheduler. The
// binaries come from tests/cluster/bin, brought up to date by tests/cluster/build first
// (0.03 s when its stamp matches). Everything listens on 127.0.0.1 only; the test is bounded
// by storageTestTimeout.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

const storageTestTimeout = 3 * time.Minute

// process is a child the test started, logging into a file of the test's directory.
type process struct {
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
}

// start runs bin; ready, if set, is the stdout line prefix to wait for.
func start(t *testing.T, ctx context.Context, dir, name, bin, ready string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(bin, args...), log: filepath.Join(dir, name+".out"), exited: make(chan struct{})}
	log, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = log
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	seen := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(log, sc.Text())
			if ready != "" && strings.HasPrefix(sc.Text(), ready) {
				close(seen)
				ready = ""
			}
		}
	}()
	go func() { _ = p.cmd.Wait(); log.Close(); close(p.exited) }()
	t.Cleanup(p.stop)
	if ready == "" {
		return p
	}
	select {
	case <-seen:
	case <-p.exited:
		t.Fatalf("%s exited before %q; see %s", name, ready, p.log)
	case <-ctx.Done():
		t.Fatalf("%s: no %q in time; see %s", name, ready, p.log)
	}
	return p
}

// stop sends SIGTERM and kills after 30 s.
func (p *process) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// binDir builds the test-cluster binaries if their stamp is stale and returns tests/cluster/bin.
func binDir(t *testing.T) string {
	t.Helper()
	here, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	build := exec.Command(filepath.Join(here, "build"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("tests/cluster/build: %v\n%s", err, out)
	}
	return filepath.Join(here, "bin")
}

// until polls cond every 100 ms until it holds, failing the test after timeout.
func until(t *testing.T, ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func storageClass(name string, mode storagev1.VolumeBindingMode, topology ...v1.TopologySelectorTerm) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Provisioner: DefaultName,
		VolumeBindingMode: &mode, AllowedTopologies: topology}
}

func claim(name, class string) *v1.PersistentVolumeClaim {
	return &v1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1.PersistentVolumeClaimSpec{StorageClassName: &class,
			AccessModes: []v1.PersistentVolumeAccessMode{v1.ReadWriteOnce},
			Resources:   v1.VolumeResourceRequirements{Requests: v1.ResourceList{v1.ResourceStorage: resource.MustParse("2Gi")}}}}
}

func node(name, zone string) *v1.Node {
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("32Gi"),
		v1.ResourcePods: resource.MustParse("110")}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{v1.LabelHostname: name, v1.LabelTopologyZone: zone}},
		Status: v1.NodeStatus{Capacity: rl, Allocatable: rl,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}}
}

// boundVolume waits until the claim is Bound and returns its volume.
func boundVolume(t *testing.T, ctx context.Context, cs kubernetes.Interface, name string) *v1.PersistentVolume {
	t.Helper()
	var pv *v1.PersistentVolume
	until(t, ctx, 30*time.Second, "claim "+name+" bound", func(ctx context.Context) (bool, error) {
		c, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil || c.Status.Phase != v1.ClaimBound {
			return false, err
		}
		pv, err = cs.CoreV1().PersistentVolumes().Get(ctx, c.Spec.VolumeName, metav1.GetOptions{})
		return err == nil, err
	})
	return pv
}

func affinityValues(pv *v1.PersistentVolume) string {
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return "none"
	}
	var terms []string
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		var exprs []string
		for _, e := range term.MatchExpressions {
			exprs = append(exprs, fmt.Sprintf("%s %s %v", e.Key, e.Operator, e.Values))
		}
		terms = append(terms, strings.Join(exprs, " && "))
	}
	return strings.Join(terms, " || ")
}

func TestStorageFlow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), storageTestTimeout)
	defer cancel()
	bin := binDir(t)
	dir := t.TempDir()
	began := time.Now()
	start(t, ctx, dir, "testcluster", filepath.Join(bin, "testcluster"), "READY ", "-dir", dir, "-storage")
	t.Logf("testcluster -storage READY after %v", time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			for _, f := range []string{"kube-controller-manager.log", "testprovisioner.log", "kube-scheduler.out"} {
				if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
					t.Logf("%s:\n%s", f, b)
				}
			}
		}
	})
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	create := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = cs.CoreV1().Nodes().Create(ctx, node("n1", "zone-a"), metav1.CreateOptions{})
	create(err)
	_, err = cs.StorageV1().StorageClasses().Create(ctx, storageClass("wffc", storagev1.VolumeBindingWaitForFirstConsumer), metav1.CreateOptions{})
	create(err)
	_, err = cs.StorageV1().StorageClasses().Create(ctx, storageClass("immediate", storagev1.VolumeBindingImmediate,
		v1.TopologySelectorTerm{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{Key: v1.LabelTopologyZone, Values: []string{"zone-a"}}}}),
		metav1.CreateOptions{})
	create(err)

	t.Run("WaitForFirstConsumer, selected node set by hand", func(t *testing.T) {
		_, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, claim("wait", "wffc"), metav1.CreateOptions{})
		create(err)
		// Nothing happens until a node is selected.
		time.Sleep(time.Second)
		if pvs, err := cs.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{}); err != nil || len(pvs.Items) != 0 {
			t.Fatalf("volumes before any node was selected: %v %v", pvs, err)
		}
		// kube-scheduler's VolumeBinding PreBind writes this annotation.
		patch := []byte(`{"metadata":{"annotations":{"volume.kubernetes.io/selected-node":"n1"}}}`)
		began := time.Now()
		_, err = cs.CoreV1().PersistentVolumeClaims("default").Patch(ctx, "wait", types.MergePatchType, patch, metav1.PatchOptions{})
		create(err)
		pv := boundVolume(t, ctx, cs, "wait")
		t.Logf("bound %v after the annotation", time.Since(began).Round(time.Millisecond))
		if got, want := affinityValues(pv), "kubernetes.io/hostname In [n1]"; got != want {
			t.Errorf("node affinity %q, want %q", got, want)
		}
		if got := pv.Spec.Capacity[v1.ResourceStorage]; got.String() != "2Gi" || pv.Spec.StorageClassName != "wffc" {
			t.Errorf("volume capacity %s class %q", got.String(), pv.Spec.StorageClassName)
		}
	})

	t.Run("Immediate, no annotation", func(t *testing.T) {
		_, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, claim("now", "immediate"), metav1.CreateOptions{})
		create(err)
		pv := boundVolume(t, ctx, cs, "now")
		if got, want := affinityValues(pv), "topology.kubernetes.io/zone In [zone-a]"; got != want {
			t.Errorf("node affinity %q, want %q (the class's allowed topologies)", got, want)
		}
	})

	t.Run("reclaim deletes the volume", func(t *testing.T) {
		pv := boundVolume(t, ctx, cs, "now")
		create(cs.CoreV1().PersistentVolumeClaims("default").Delete(ctx, "now", metav1.DeleteOptions{}))
		until(t, ctx, 30*time.Second, "volume "+pv.Name+" deleted", func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
		if _, err := os.Stat(pv.Spec.HostPath.Path); !os.IsNotExist(err) {
			t.Errorf("volume directory %s still there: %v", pv.Spec.HostPath.Path, err)
		}
	})

	t.Run("upstream kube-scheduler binds a pod with a WaitForFirstConsumer claim", func(t *testing.T) {
		start(t, ctx, dir, "kube-scheduler", filepath.Join(bin, "kube-scheduler"), "",
			"--kubeconfig="+filepath.Join(dir, "kubeconfig"), "--leader-elect=false",
			"--bind-address=127.0.0.1", "--secure-port=0")
		_, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, claim("data", "wffc"), metav1.CreateOptions{})
		create(err)
		pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
			Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "x"}},
				Volumes: []v1.Volume{{Name: "data", VolumeSource: v1.VolumeSource{
					PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}}
		began := time.Now()
		_, err = cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
		create(err)
		until(t, ctx, 60*time.Second, "pod p bound", func(ctx context.Context) (bool, error) {
			p, err := cs.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
			return err == nil && p.Spec.NodeName == "n1", err
		})
		t.Logf("pod bound %v after creation", time.Since(began).Round(time.Millisecond))
		pv := boundVolume(t, ctx, cs, "data")
		if got, want := affinityValues(pv), "kubernetes.io/hostname In [n1]"; got != want {
			t.Errorf("node affinity %q, want %q", got, want)
		}
	})
}
