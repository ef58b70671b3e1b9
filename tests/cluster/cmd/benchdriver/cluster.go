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
	c := &Cluster{Dir: dir, Kubeconfig: filepath.Join(dir, "kubeconfig")}
	if c.URL, err = c.start(binary, timeout, ""); err != nil {
		return nil, err
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
	c.terminate(30 * time.Second)
	_ = os.RemoveAll(c.Dir)
}

// Restart stops the cluster (SIGTERM, SIGKILL after 10 s) and starts it again on the same directory: same
// etcd data, port and credentials, so clients keep working, but the new apiserver's watch
// cache begins at etcd's current revision and answers older watch versions with 410 Gone.
func (c *Cluster) Restart(binary string, timeout time.Duration) error {
	// The apiserver waits up to a minute for the connections of a frozen client to drain;
	// etcd's log already holds every write that was answered, so it is killed sooner.
	c.terminate(10 * time.Second)
	_, err := c.start(binary, timeout, " on restart")
	return err
}

// start runs testcluster on c.Dir (its log appended to apiserver.log) and returns the URL it
// prints with READY; when is added to its errors.
func (c *Cluster) start(binary string, timeout time.Duration, when string) (string, error) {
	log, err := os.OpenFile(filepath.Join(c.Dir, "apiserver.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	c.exited = make(chan struct{})
	c.cmd = exec.Command(binary, "-dir", c.Dir)
	c.cmd.Stderr = log
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		log.Close()
		return "", err
	}
	if err := c.cmd.Start(); err != nil {
		log.Close()
		return "", fmt.Errorf("starting %s%s: %w", binary, when, err)
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
	cmd, exited := c.cmd, c.exited
	go func() { _ = cmd.Wait(); log.Close(); close(exited) }()
	select {
	case u := <-ready:
		return u, nil
	case <-exited:
		return "", fmt.Errorf("testcluster exited before READY%s; see %s", when, log.Name())
	case <-time.After(timeout):
		c.Stop()
		return "", fmt.Errorf("testcluster not READY within %s%s; see %s", timeout, when, log.Name())
	}
}

// terminate sends SIGTERM and waits up to grace, then kills; the directory stays.
func (c *Cluster) terminate(grace time.Duration) {
	if c.Alive() {
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(grace):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	}
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
