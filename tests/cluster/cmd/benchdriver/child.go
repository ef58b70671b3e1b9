package main

// The scheduler under test as a child process: started with its log going to a file, its CPU
// time read from /proc/<pid>/stat and its peak RSS from /proc/<pid>/status (VmHWM) while it
// runs, stopped with SIGTERM, and its rusage CPU taken when it is reaped.

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, which Linux fixes at 100 on every architecture Go supports here.
const clockTicks = 100

// Child is a running scheduler process.
type Child struct {
	Name    string
	Started time.Time
	LogPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	state   *os.ProcessState
	waitErr error
}

// StartChild runs binary with args, stdout and stderr appended to logPath.
func StartChild(name, binary string, args []string, logPath string) (*Child, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "# %s %s\n", binary, strings.Join(args, " "))
	c := &Child{Name: name, LogPath: logPath, exited: make(chan struct{})}
	c.cmd = exec.Command(binary, args...)
	c.cmd.Stdout, c.cmd.Stderr = log, log
	c.Started = time.Now()
	if err := c.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", name, binary, err)
	}
	go func() {
		c.waitErr = c.cmd.Wait()
		c.state = c.cmd.ProcessState
		log.Close()
		close(c.exited)
	}()
	return c, nil
}

// Alive reports whether the process still runs.
func (c *Child) Alive() bool {
	select {
	case <-c.exited:
		return false
	default:
		return true
	}
}

// ExitError describes how the process ended, with the tail of its log.
func (c *Child) ExitError() error {
	return fmt.Errorf("%s exited early (%v); last lines of %s:\n%s", c.Name, c.waitErr,
		c.LogPath, tail(c.LogPath, 15))
}

// CPUSeconds is user+system CPU of the process so far (all threads).
func CPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (state); utime is field 14, stime 15
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	ut, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime/stime", pid)
	}
	return (ut + st) / clockTicks, nil
}

// PeakRSSBytes is VmHWM of the process.
func PeakRSSBytes(pid int) (int64, error) { return procStatusBytes(pid, "VmHWM") }

// currentRSSBytes is VmRSS of the process.
func currentRSSBytes(pid int) (int64, error) { return procStatusBytes(pid, "VmRSS") }

// procStatusBytes reads a field given in kB from /proc/PID/status.
func procStatusBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, field)
}

// Pid of the process.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Stop sends SIGTERM, waits up to grace, then kills. It returns the CPU seconds of the whole
// life from rusage (0 if the process could not be reaped).
func (c *Child) Stop(grace time.Duration) float64 {
	if c.Alive() {
		_ = c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.exited:
		case <-time.After(grace):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	}
	if c.state == nil {
		return 0
	}
	ru, ok := c.state.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// Kill sends SIGKILL (no shutdown, no lease release: a crash) and waits until the process is
// reaped.
func (c *Child) Kill() {
	if c.Alive() {
		_ = c.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-c.exited
}

// tail is the last n lines of a file (for error messages).
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
