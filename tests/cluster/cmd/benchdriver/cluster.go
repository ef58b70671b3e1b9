package main

// A fresh test cluster (tests/cluster/bin/testcluster: real etcd + kube-apiserver on loopback)
// per run, so no run sees another's objects, watch history or etcd size.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is a running testcluster process and an unthrottled admin client.
type Cluster struct {
	Dir        string
	Kubeconfig string
	Token      string
	URL        string
	Client     kubernetes.Interface
	cmd        *exec.Cmd
	exited     chan struct{}
}

// StartCluster starts testcluster in a new directory under parent and waits for READY.
func StartCluster(binary, parent string, timeout time.Duration) (*Cluster, error) {
	dir, err := os.MkdirTemp(parent, "cluster-")
	if err != nil {
		return nil, fmt.Errorf("cluster directory: %w", err)
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
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
				ready <- u
			}
		}
	}()
	go func() { _ = c.cmd.Wait(); log.Close(); close(c.exited) }()
	select {
	case c.URL = <-ready:
	case <-c.exited:
		return nil, fmt.Errorf("testcluster exited before READY; see %s", log.Name())
	case <-time.After(timeout):
		c.Stop()
		return nil, fmt.Errorf("testcluster not READY within %s; see %s", timeout, log.Name())
	}
	tok, err := os.ReadFile(filepath.Join(dir, "token"))
	if err != nil {
		c.Stop()
		return nil, err
	}
	c.Token = strings.TrimSpace(string(tok))
	cfg, err := c.RestConfig()
	if err != nil {
		c.Stop()
		return nil, err
	}
	// The driver's own requests are not rate limited: it must never be what limits a run.
	cfg.QPS, cfg.Burst = -1, 0
	if c.Client, err = kubernetes.NewForConfig(cfg); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// RestConfig is the admin configuration, protobuf on the wire as the schedulers use.
func (c *Cluster) RestConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", c.Kubeconfig, err)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cfg.UserAgent = "stowage-benchdriver"
	return cfg, nil
}

// Pid is the testcluster process (etcd and the apiserver run inside it).
func (c *Cluster) Pid() int { return c.cmd.Process.Pid }

// Alive reports whether the process still runs.
func (c *Cluster) Alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// Stop sends SIGTERM, waits up to 30 s, then kills; the directory is removed.
func (c *Cluster) Stop() {
	if c.Alive() {
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

// waitFor polls cond every 100 ms until it holds, ctx ends or the deadline passes.
func waitFor(ctx context.Context, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not done within %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
