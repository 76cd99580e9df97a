package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as the server: started with EPHPM_KV_AS_SERVER=1
// it runs main, so the crash tests drive the real command (flags, signals,
// snapshot files) in its own process without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("EPHPM_KV_AS_SERVER") == "1" {
		fenceBlock, _ = strconv.ParseInt(os.Getenv("EPHPM_KV_FENCE_BLOCK"), 10, 64)
		main()
		return
	}
	os.Exit(m.Run())
}

// lockedBuffer collects a server's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// command runs the server with args and returns the exec.Cmd (not started).
func command(args ...string) (*exec.Cmd, *lockedBuffer) {
	c := exec.Command(os.Args[0], args...)
	c.Env = append(os.Environ(), "EPHPM_KV_AS_SERVER=1")
	out := &lockedBuffer{}
	c.Stdout, c.Stderr = out, out
	return c, out
}

type proc struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *lockedBuffer
	sock string
	done chan error
}

// start runs a server on sock and waits until it answers.
func start(t *testing.T, sock string, args ...string) *proc {
	t.Helper()
	c, out := command(append([]string{"--unix", sock}, args...)...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	s := &proc{t: t, cmd: c, out: out, sock: sock, done: make(chan error, 1)}
	go func() { s.done <- c.Wait() }()
	t.Cleanup(func() {
		c.Process.Kill()
		<-s.done
		s.done <- nil
	})
	for deadline := time.Now().Add(20 * time.Second); ; {
		if conn, err := net.Dial("unix", sock); err == nil {
			conn.Close()
			return s
		}
		select {
		case err := <-s.done:
			t.Fatalf("server exited at start (%v):\n%s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not come up:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop sends sig and waits for the exit.
func (s *proc) stop(sig syscall.Signal) error {
	s.t.Helper()
	s.cmd.Process.Signal(sig)
	select {
	case err := <-s.done:
		s.done <- err
		return err
	case <-time.After(20 * time.Second):
		s.t.Fatalf("server did not exit on %v:\n%s", sig, s.out)
		return nil
	}
}

// client is a minimal RESP client; replies come back as text (integers,
// simple strings and bulks as is, nil as "(nil)", errors as "-...").
type client struct {
	c net.Conn
	r *bufio.Reader
	w *bufio.Writer
}

func dial(sock string) (*client, error) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		return nil, err
	}
	return &client{c: c, r: bufio.NewReader(c), w: bufio.NewWriter(c)}, nil
}

func (c *client) send(args ...string) {
	fmt.Fprintf(c.w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(c.w, "$%d\r\n%s\r\n", len(a), a)
	}
}

func (c *client) reply() (string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return line, nil
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)", nil
		}
		b := make([]byte, n+2)
		_, err := io.ReadFull(c.r, b)
		return string(b[:n]), err
	case '*':
		n, _ := strconv.Atoi(line[1:])
		parts := make([]string, n)
		for i := range parts {
			if parts[i], err = c.reply(); err != nil {
				return "", err
			}
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("bad reply %q", line)
}

func (c *client) do(args ...string) (string, error) {
	c.send(args...)
	if err := c.w.Flush(); err != nil {
		return "", err
	}
	c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	return c.reply()
}

func mustDo(t *testing.T, c *client, args ...string) string {
	t.Helper()
	r, err := c.do(args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustDial(t *testing.T, sock string) *client {
	t.Helper()
	c, err := dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.c.Close() })
	return c
}

// runBriefly runs c, killing it if it is still running (serving) after 10 s.
func runBriefly(c *exec.Cmd) error {
	if err := c.Start(); err != nil {
		return err
	}
	timer := time.AfterFunc(10*time.Second, func() { c.Process.Kill() })
	defer timer.Stop()
	return c.Wait()
}

func TestBadFlagsAreUsageErrors(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "kv.sock")
	for _, args := range [][]string{
		{"--memory-limit="}, {"--memory-limit=9999999999999G"}, {"--memory-limit=0"},
		{"--memory-limit=-1"}, {"--memory-limit=64X"}, {"--memory-limit= 64M"},
		{"--max-value-size="}, {"--max-value-size=0"}, {"--max-value-size=9223372036854775808"},
		{"--compress-min=-1K"}, {"--compress-min=17179869184G"},
		{"--port=70000"}, {"--port=-1"}, {"--maxclients=0"}, {"--procs=-2"},
		{"--snapshot-every=-1s"}, {"--unix-mode=999"}, {"--no-such-flag"}, {"stray"},
		{"--max-command-size=1"}, {"--max-command-size=1M"}, {"--max-command-size=2M", "--max-value-size=2M"},
		{"--max-client-memory=0"}, {"--max-client-memory=8M"}, {"--max-client-memory=20M", "--max-command-size=10M"},
	} {
		c, out := command(append([]string{"--unix", sock}, args...)...)
		err := runBriefly(c)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%v: %v, want exit status 2\n%s", args, err, out)
			continue
		}
		name := strings.TrimLeft(strings.SplitN(args[0], "=", 2)[0], "-")
		if !strings.Contains(out.String(), name) || strings.Contains(out.String(), "goroutine") {
			t.Errorf("%v: the message does not name %q (or is a panic):\n%s", args, name, out)
		}
	}
	c, out := command("--help")
	if err := runBriefly(c); err != nil || !strings.Contains(out.String(), "-memory-limit") {
		t.Errorf("--help: %v\n%s", err, out)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused command line left a socket: %v", err)
	}
}

// SIGHUP (a closed terminal, a service manager's reload) must not stop the
// server: it used to kill it with no snapshot and a stale socket.
func TestSIGHUPIsIgnored(t *testing.T) {
	dir := t.TempDir()
	sock, snap := filepath.Join(dir, "kv.sock"), filepath.Join(dir, "kv.snap")
	s := start(t, sock, "--snapshot", snap)
	c := mustDial(t, sock)
	mustDo(t, c, "SET", "k", "v")
	s.cmd.Process.Signal(syscall.SIGHUP)
	time.Sleep(100 * time.Millisecond)
	if r, err := c.do("GET", "k"); err != nil || r != "v" {
		t.Fatalf("after SIGHUP: %q %v\n%s", r, err, s.out)
	}
	if !strings.Contains(s.out.String(), "SIGHUP ignored") {
		t.Errorf("SIGHUP not logged:\n%s", s.out)
	}
	if err := s.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, s.out)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after SIGTERM: %v", err)
	}
	if _, err := os.Stat(snap); err != nil {
		t.Errorf("no snapshot after SIGTERM: %v", err)
	}
}
