package main

// The test cluster (tests/cluster/bin/testcluster: real etcd + kube-apiserver on loopback) the
// soak runs on, started in a temporary directory and removed at the end.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Cluster is a running testcluster process.
type Cluster struct {
	Dir, Kubeconfig string
	cmd             *exec.Cmd
	exited          chan struct{}
}

// StartCluster starts binary in a new directory and waits for its READY line.
func StartCluster(binary string, timeout time.Duration) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "stowage-soak-cluster-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, Kubeconfig: filepath.Join(dir, "kubeconfig"), exited: make(chan struct{})}
	log, err := os.Create(filepath.Join(dir, "apiserver.log"))
	if err != nil {
		return nil, err
	}
	c.cmd = exec.Command(binary, "-dir", dir)
	c.cmd.Stderr = log
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", binary, err)
	}
	ready := make(chan struct{}, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "READY ") {
				ready <- struct{}{}
			}
		}
	}()
	go func() { _ = c.cmd.Wait(); log.Close(); close(c.exited) }()
	select {
	case <-ready:
		return c, nil
	case <-c.exited:
		return nil, fmt.Errorf("testcluster exited before READY; see %s", log.Name())
	case <-time.After(timeout):
		c.Stop()
		return nil, fmt.Errorf("testcluster not READY within %s", timeout)
	}
}

// Stop sends SIGTERM, waits up to 30 s, then kills; the directory is removed.
func (c *Cluster) Stop() {
	select {
	case <-c.exited:
	default:
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	}
	_ = os.RemoveAll(c.Dir)
}
