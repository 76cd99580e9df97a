package shm

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Helpers for tests that run several OS processes on one file-backed
// MAP_SHARED segment: each child is this test binary re-run with
// -test.run=^TestChildProcess$ and EPHPM_SHM_CHILD naming what to do; it
// talks to the parent in "shmtest: ..." lines on stdout.

// mapTestFile maps path (created or grown to size) MAP_SHARED until the
// test ends.
func mapTestFile(t testing.TB, path string, size int) []byte {
	t.Helper()
	mem, err := MapFile(path, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Unmap(mem) })
	return mem
}

// childFuncs maps EPHPM_SHM_CHILD values to what the child runs.
var childFuncs = map[string]func(t *testing.T){}

// TestChildProcess is the body of every helper process; run directly it
// skips.
func TestChildProcess(t *testing.T) {
	mode := os.Getenv("EPHPM_SHM_CHILD")
	if mode == "" {
		t.Skip("helper process of the multi-process tests")
	}
	f := childFuncs[mode]
	if f == nil {
		t.Fatalf("no child mode %q", mode)
	}
	f(t)
}

// say sends one line to the parent.
func say(format string, args ...any) {
	fmt.Printf("shmtest: "+format+"\n", args...)
}

type proc struct {
	t     testing.TB
	cmd   *exec.Cmd
	lines chan string
	done  bool
}

// startProc runs mode in a new process with env (KEY=VALUE) added.
func startProc(t testing.TB, mode string, env ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), "EPHPM_SHM_CHILD="+mode), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &proc{t: t, cmd: cmd, lines: make(chan string, 64)}
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			if l, ok := strings.CutPrefix(s.Text(), "shmtest: "); ok {
				c.lines <- l
			}
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		if !c.done {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

// expect returns the child's next line, which must start with prefix.
func (c *proc) expect(prefix string, timeout time.Duration) string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("child %d exited before saying %q", c.cmd.Process.Pid, prefix)
		}
		if !strings.HasPrefix(l, prefix) {
			c.t.Fatalf("child %d said %q, want %q...", c.cmd.Process.Pid, l, prefix)
		}
		return l
	case <-time.After(timeout):
		c.t.Fatalf("child %d said nothing for %v (want %q)", c.cmd.Process.Pid, timeout, prefix)
	}
	return ""
}

// wait waits for the child to exit and fails the test if it failed.
func (c *proc) wait() {
	c.t.Helper()
	for range c.lines {
	}
	err := c.cmd.Wait()
	c.done = true
	if err != nil {
		c.t.Fatalf("child %d: %v", c.cmd.Process.Pid, err)
	}
}

func testSegPath(t testing.TB) string {
	return filepath.Join(t.TempDir(), "seg")
}
