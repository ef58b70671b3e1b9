package main

// The DRA flow on a real test cluster: `testcluster -dra` (etcd, kube-apiserver, and
// kube-controller-manager's resourceclaim controller plus this driver as children) with
// upstream kube-scheduler allocating the claims. The binaries come from tests/cluster/bin,
// brought up to date by tests/cluster/build first (0.03 s when its stamp matches). Everything
// listens on 127.0.0.1 only; the test is bounded by draTestTimeout.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
)

const draTestTimeout = 3 * time.Minute

// startProcess runs bin with its output in dir/name.out; ready, if set, is the stdout line
// prefix to wait for. The process gets SIGTERM (then SIGKILL after 30 s) when the test ends.
func startProcess(t *testing.T, ctx context.Context, dir, name, bin, ready string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	logPath := filepath.Join(dir, name+".out")
	log, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	seen, exited := make(chan struct{}), make(chan struct{})
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
	go func() { _ = cmd.Wait(); log.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	if ready == "" {
		return
	}
	select {
	case <-seen:
	case <-exited:
		t.Fatalf("%s exited before %q; see %s", name, ready, logPath)
	case <-ctx.Done():
		t.Fatalf("%s: no %q in time; see %s", name, ready, logPath)
	}
}

// waitFor polls cond every 100 ms until it holds, failing the test after timeout.
func waitFor(t *testing.T, ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, cond); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func testNode(name string) *v1.Node {
	rl := v1.ResourceList{v1.ResourceCPU: resource.MustParse("8"), v1.ResourceMemory: resource.MustParse("32Gi"),
		v1.ResourcePods: resource.MustParse("110")}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{Capacity: rl, Allocatable: rl,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}}
}

// request is one device of the driver's class with the given CEL selector ("" for none).
func request(name, selector string, count int64, tolerate bool) resourceapi.DeviceRequest {
	r := resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{
		DeviceClassName: ClassName, AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}}
	if selector != "" {
		r.Exactly.Selectors = []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: selector}}}
	}
	if tolerate {
		r.Exactly.Tolerations = []resourceapi.DeviceToleration{{Key: TaintKey,
			Operator: resourceapi.DeviceTolerationOpExists, Effect: resourceapi.DeviceTaintEffectNoSchedule}}
	}
	return r
}

func claimSpec(reqs ...resourceapi.DeviceRequest) resourceapi.ResourceClaimSpec {
	return resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: reqs}}
}

// podWithClaims is a pod whose container uses the named claims (claim name -> pod claim name).
func podWithClaims(name string, claims ...v1.PodResourceClaim) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Image: "x"}}, ResourceClaims: claims}}
	for _, c := range claims {
		p.Spec.Containers[0].Resources.Claims = append(p.Spec.Containers[0].Resources.Claims, v1.ResourceClaim{Name: c.Name})
	}
	return p
}

// devicesOf returns the claim's allocated devices as driver/pool/device, in result order.
func devicesOf(c *resourceapi.ResourceClaim) []string {
	if c.Status.Allocation == nil {
		return nil
	}
	var ds []string
	for _, r := range c.Status.Allocation.Devices.Results {
		ds = append(ds, r.Driver+"/"+r.Pool+"/"+r.Device)
	}
	return ds
}

func TestDRAFlow(t *testing.T) {
	here, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(filepath.Join(here, "build")).CombinedOutput(); err != nil {
		t.Fatalf("tests/cluster/build: %v\n%s", err, out)
	}
	bin := filepath.Join(here, "bin")
	ctx, cancel := context.WithTimeout(context.Background(), draTestTimeout)
	defer cancel()
	dir := t.TempDir()
	began := time.Now()
	startProcess(t, ctx, dir, "testcluster", filepath.Join(bin, "testcluster"), "READY", "-dir", dir, "-dra")
	t.Logf("READY after %v", time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() {
		if t.Failed() {
			for _, f := range []string{"kube-controller-manager.log", "testdradriver.log", "kube-scheduler.out"} {
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
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	claims := cs.ResourceV1().ResourceClaims("default")
	pods := cs.CoreV1().Pods("default")
	bound := func(name string) func(context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			p, err := pods.Get(ctx, name, metav1.GetOptions{})
			return err == nil && p.Spec.NodeName != "", err
		}
	}
	claimOf := func(name string) *resourceapi.ResourceClaim {
		t.Helper()
		c, err := claims.Get(ctx, name, metav1.GetOptions{})
		must(err)
		return c
	}
	// unschedulable waits until the scheduler has marked the pod unschedulable and returns why.
	unschedulable := func(name string) string {
		t.Helper()
		var msg string
		waitFor(t, ctx, 30*time.Second, name+" marked unschedulable", func(ctx context.Context) (bool, error) {
			p, err := pods.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, c := range p.Status.Conditions {
				if c.Type == v1.PodScheduled && c.Reason == v1.PodReasonUnschedulable {
					msg = c.Message
					return true, nil
				}
			}
			return false, nil
		})
		return msg
	}
	var templateClaim string // the claim the controller made for gpu-pod
	deletePod := func(name string) {
		t.Helper()
		must(pods.Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}))
	}

	t.Run("the driver publishes classes and a node's slices", func(t *testing.T) {
		waitFor(t, ctx, 30*time.Second, "DeviceClasses", func(ctx context.Context) (bool, error) {
			c, err := cs.ResourceV1().DeviceClasses().Get(ctx, ExtendedClassName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil && ptr.Deref(c.Spec.ExtendedResourceName, "") == ExtendedResourceName, err
		})
		_, err := cs.CoreV1().Nodes().Create(ctx, testNode("n1"), metav1.CreateOptions{})
		must(err)
		var got []resourceapi.ResourceSlice
		waitFor(t, ctx, 30*time.Second, "n1's slices", func(ctx context.Context) (bool, error) {
			l, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{
				FieldSelector: fields.OneTermEqualSelector(resourceapi.ResourceSliceSelectorNodeName, "n1").String()})
			got = l.Items
			return err == nil && len(got) == 2, err
		})
		var names []string
		for _, s := range got {
			for _, d := range s.Spec.Devices {
				names = append(names, d.Name)
			}
			if len(s.Spec.SharedCounters) == 1 && s.Spec.SharedCounters[0].Name != counterSetName {
				t.Errorf("counter set %q", s.Spec.SharedCounters[0].Name)
			}
		}
		want := []string{"gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4-full", "gpu-4-half-0", "gpu-4-half-1", "gpu-5"}
		if !slices.Equal(names, want) {
			t.Errorf("devices %v, want %v", names, want)
		}
	})

	startProcess(t, ctx, dir, "kube-scheduler", filepath.Join(bin, "kube-scheduler"), "",
		"--kubeconfig="+filepath.Join(dir, "kubeconfig"), "--leader-elect=false",
		"--bind-address=127.0.0.1", "--secure-port=0")

	t.Run("a claim from a template is created and allocated", func(t *testing.T) {
		tmpl := &resourceapi.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "one-gpu", Namespace: "default"},
			Spec: resourceapi.ResourceClaimTemplateSpec{Spec: claimSpec(request("gpu", "", 1, false))}}
		_, err := cs.ResourceV1().ResourceClaimTemplates("default").Create(ctx, tmpl, metav1.CreateOptions{})
		must(err)
		began := time.Now()
		_, err = pods.Create(ctx, podWithClaims("gpu-pod", v1.PodResourceClaim{Name: "gpu",
			ResourceClaimTemplateName: ptr.To("one-gpu")}), metav1.CreateOptions{})
		must(err)
		waitFor(t, ctx, 60*time.Second, "gpu-pod bound", bound("gpu-pod"))
		t.Logf("gpu-pod bound %v after creation", time.Since(began).Round(time.Millisecond))
		p, err := pods.Get(ctx, "gpu-pod", metav1.GetOptions{})
		must(err)
		if len(p.Status.ResourceClaimStatuses) != 1 || p.Status.ResourceClaimStatuses[0].ResourceClaimName == nil {
			t.Fatalf("resourceClaimStatuses %+v", p.Status.ResourceClaimStatuses)
		}
		templateClaim = *p.Status.ResourceClaimStatuses[0].ResourceClaimName
		c := claimOf(templateClaim)
		if got := devicesOf(c); !slices.Equal(got, []string{"gpu.example.com/n1/gpu-0"}) {
			t.Errorf("allocated %v", got)
		}
		if len(c.Status.ReservedFor) != 1 || c.Status.ReservedFor[0].UID != p.UID {
			t.Errorf("reservedFor %+v", c.Status.ReservedFor)
		}
		if p.Spec.NodeName != "n1" {
			t.Errorf("bound to %q", p.Spec.NodeName)
		}
	})

	t.Run("an extended resource is allocated through its DeviceClass", func(t *testing.T) {
		p := podWithClaims("ext-pod")
		p.Spec.Containers[0].Resources.Requests = v1.ResourceList{ExtendedResourceName: resource.MustParse("1")}
		p.Spec.Containers[0].Resources.Limits = p.Spec.Containers[0].Resources.Requests
		_, err := pods.Create(ctx, p, metav1.CreateOptions{})
		must(err)
		waitFor(t, ctx, 60*time.Second, "ext-pod bound", bound("ext-pod"))
		p, err = pods.Get(ctx, "ext-pod", metav1.GetOptions{})
		must(err)
		if p.Status.ExtendedResourceClaimStatus == nil {
			t.Fatal("no extendedResourceClaimStatus")
		}
		c := claimOf(p.Status.ExtendedResourceClaimStatus.ResourceClaimName)
		if got := devicesOf(c); !slices.Equal(got, []string{"gpu.example.com/n1/gpu-1"}) {
			t.Errorf("allocated %v", got)
		}
	})

	t.Run("the tainted device needs a toleration", func(t *testing.T) {
		sel := `device.attributes["gpu.example.com"].index == 5`
		_, err := claims.Create(ctx, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "untolerated", Namespace: "default"},
			Spec: claimSpec(request("t", sel, 1, false))}, metav1.CreateOptions{})
		must(err)
		_, err = pods.Create(ctx, podWithClaims("untolerated-pod", v1.PodResourceClaim{Name: "t",
			ResourceClaimName: ptr.To("untolerated")}), metav1.CreateOptions{})
		must(err)
		msg := unschedulable("untolerated-pod")
		t.Logf("untolerated-pod: %s", msg)
		if !strings.Contains(msg, "cannot allocate all claims") {
			t.Errorf("message %q", msg)
		}
		deletePod("untolerated-pod")
	})

	t.Run("partitions share the counters of the partitionable device", func(t *testing.T) {
		half := `device.attributes["gpu.example.com"].profile == "half"`
		tolerated := `device.attributes["gpu.example.com"].index == 5 && ` +
			`device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("1.5.0"))`
		_, err := claims.Create(ctx, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "halves", Namespace: "default"},
			Spec: claimSpec(request("half", half, 2, false), request("t", tolerated, 1, true))}, metav1.CreateOptions{})
		must(err)
		_, err = pods.Create(ctx, podWithClaims("halves-pod", v1.PodResourceClaim{Name: "h",
			ResourceClaimName: ptr.To("halves")}), metav1.CreateOptions{})
		must(err)
		waitFor(t, ctx, 60*time.Second, "halves-pod bound", bound("halves-pod"))
		want := []string{"gpu.example.com/n1/gpu-4-half-0", "gpu.example.com/n1/gpu-4-half-1", "gpu.example.com/n1/gpu-5"}
		if got := devicesOf(claimOf("halves")); !slices.Equal(got, want) {
			t.Errorf("allocated %v, want %v", got, want)
		}
		full := `device.attributes["gpu.example.com"].profile == "full"`
		_, err = claims.Create(ctx, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "full", Namespace: "default"},
			Spec: claimSpec(request("full", full, 1, false))}, metav1.CreateOptions{})
		must(err)
		_, err = pods.Create(ctx, podWithClaims("full-pod", v1.PodResourceClaim{Name: "f",
			ResourceClaimName: ptr.To("full")}), metav1.CreateOptions{})
		must(err)
		msg := unschedulable("full-pod")
		t.Logf("full-pod while the halves are allocated: %s", msg)
		// Deleting halves-pod: the resourceclaim controller removes it from the claim's
		// reservedFor and deallocates the claim, which frees the counters.
		began := time.Now()
		deletePod("halves-pod")
		waitFor(t, ctx, 60*time.Second, "halves deallocated", func(ctx context.Context) (bool, error) {
			c, err := claims.Get(ctx, "halves", metav1.GetOptions{})
			return err == nil && c.Status.Allocation == nil, err
		})
		t.Logf("halves deallocated %v after halves-pod was deleted", time.Since(began).Round(time.Millisecond))
		waitFor(t, ctx, 60*time.Second, "full-pod bound", bound("full-pod"))
		t.Logf("full-pod bound %v after halves-pod was deleted", time.Since(began).Round(time.Millisecond))
		if got := devicesOf(claimOf("full")); !slices.Equal(got, []string{"gpu.example.com/n1/gpu-4-full"}) {
			t.Errorf("allocated %v", got)
		}
	})

	t.Run("a deleted pod's generated claim is deallocated and kept", func(t *testing.T) {
		if templateClaim == "" {
			t.Skip("no claim from the template")
		}
		deletePod("gpu-pod")
		waitFor(t, ctx, 30*time.Second, templateClaim+" deallocated", func(ctx context.Context) (bool, error) {
			c, err := claims.Get(ctx, templateClaim, metav1.GetOptions{})
			return err == nil && c.Status.Allocation == nil && len(c.Status.ReservedFor) == 0, err
		})
		// Deleting it is left to the garbage collector, which the test cluster does not run.
		time.Sleep(time.Second)
		if _, err := claims.Get(ctx, templateClaim, metav1.GetOptions{}); err != nil {
			t.Errorf("%s: %v", templateClaim, err)
		}
	})

	t.Run("a deleted node's slices are deleted", func(t *testing.T) {
		must(cs.CoreV1().Nodes().Delete(ctx, "n1", metav1.DeleteOptions{}))
		waitFor(t, ctx, 30*time.Second, "n1's slices gone", func(ctx context.Context) (bool, error) {
			l, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
			return err == nil && len(l.Items) == 0, err
		})
	})
}
