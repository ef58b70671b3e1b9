package main

// The opt-in storage flow (-storage): upstream kube-controller-manager running only the
// controllers that give claims volumes, and the test provisioner; and the opt-in DRA flow
// (-dra): kube-controller-manager's resourceclaim controller and the test DRA driver. All are
// child processes of testcluster, found beside its executable (tests/cluster/bin); with both
// flags one kube-controller-manager runs both sets of controllers. None listens on any port:
// kube-controller-manager runs with --secure-port=0 and no leader election, the provisioner and
// the driver serve nothing.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// StorageControllers are the kube-controller-manager controllers -storage runs: the PV binder
// (binds claims to volumes, hands claims of a dynamic class to their provisioner, and for a
// WaitForFirstConsumer class waits for the scheduler's selected-node annotation first) and the
// two protection controllers, without which the apiserver's StorageObjectInUseProtection
// finalizers keep every deleted claim and volume forever. The StatefulSet controller comes too,
// because a StatefulSet's volume claim templates are how most claims of a WaitForFirstConsumer
// class are made (its pods never run here, so use podManagementPolicy Parallel).
var StorageControllers = []string{
	"persistentvolume-binder-controller",
	"statefulset-controller",
	"persistentvolumeclaim-protection-controller",
	"persistentvolume-protection-controller",
}

// children are the processes testcluster started; Stop ends them once, Start after Stop
// starts nothing. Safe for concurrent use.
type children struct {
	mu      sync.Mutex
	stopped bool
	list    []*child
	once    sync.Once
}

// Start runs start unless Stop came first.
func (cs *children) Start(start func() []*child) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if !cs.stopped {
		cs.list = start()
	}
}

// Stop sends SIGTERM to every child and waits up to 10 s for each before killing it; later
// calls wait for the first to finish.
func (cs *children) Stop() {
	cs.once.Do(func() {
		cs.mu.Lock()
		cs.stopped = true
		list := cs.list
		cs.mu.Unlock()
		for _, c := range list {
			c.stopping.Store(true)
			_ = c.cmd.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range list {
			select {
			case <-c.exited:
			case <-time.After(10 * time.Second):
				_ = c.cmd.Process.Kill()
				<-c.exited
			}
		}
	})
}

// child is a process testcluster started and stops.
type child struct {
	cmd      *exec.Cmd
	exited   chan struct{}
	stopping atomic.Bool // an exit is expected, not reported
}

// DRAControllers are the kube-controller-manager controllers -dra runs: the resourceclaim
// controller, which creates a pod's ResourceClaims from its ResourceClaimTemplates (and records
// them in the pod's status.resourceClaimStatuses), removes a deleted or finished pod from a
// claim's reservedFor, deallocates a claim nobody reserves, and deletes the claims it made for
// a finished pod (those of a deleted pod are the garbage collector's, which does not run here).
var DRAControllers = []string{"resourceclaim-controller"}

// binaries returns the paths of the named executables beside this one, failing early when one
// is missing.
func binaries(flag string, names ...string) []string {
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		fail(err)
	}
	var paths []string
	for _, n := range names {
		b := filepath.Join(filepath.Dir(self), n)
		if _, err := os.Stat(b); err != nil {
			fail(fmt.Errorf("%s needs %s (tests/cluster/build makes it): %w", flag, b, err))
		}
		paths = append(paths, b)
	}
	return paths
}

// startChildren starts the processes of the -storage and -dra flows against the cluster of s:
// one kube-controller-manager with the controllers of both, the test provisioner and the test
// DRA driver.
func startChildren(s state, storage, dra bool) []*child {
	kc := s.path("kubeconfig")
	var controllers []string
	var list []*child
	if storage {
		controllers = append(controllers, StorageControllers...)
	}
	if dra {
		controllers = append(controllers, DRAControllers...)
	}
	if len(controllers) > 0 {
		kcm := binaries("-storage/-dra", "kube-controller-manager")[0]
		list = append(list, startChild("kube-controller-manager", kcm, s.path("kube-controller-manager.log"),
			"--kubeconfig="+kc, "--controllers="+strings.Join(controllers, ","),
			"--leader-elect=false", "--secure-port=0"))
	}
	if storage {
		list = append(list, startChild("testprovisioner", binaries("-storage", "testprovisioner")[0],
			s.path("testprovisioner.log"), "-kubeconfig="+kc, "-root="+s.path("volumes")))
	}
	if dra {
		list = append(list, startChild("testdradriver", binaries("-dra", "testdradriver")[0],
			s.path("testdradriver.log"), "-kubeconfig="+kc))
	}
	return list
}

// startChild starts bin with its output appended to logPath. The child gets SIGTERM if
// testcluster dies without stopping it: Pdeathsig follows the thread that forked, so that
// goroutine keeps its thread until the child exits.
func startChild(name, bin, logPath string, args ...string) *child {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fail(err)
	}
	c := &child{exited: make(chan struct{})}
	started := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		defer log.Close()
		c.cmd = exec.Command(bin, args...)
		c.cmd.Stdout, c.cmd.Stderr = log, log
		c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
		if err := c.cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		err := c.cmd.Wait()
		close(c.exited)
		if !c.stopping.Load() {
			fmt.Fprintf(os.Stderr, "testcluster: %s exited (%v); see %s\n", name, err, logPath)
		}
	}()
	if err := <-started; err != nil {
		fail(fmt.Errorf("starting %s: %w", bin, err))
	}
	return c
}
