package remote

import (
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
	"github.com/ephpm/ephpm-kv/server"
)

// TestMain doubles as a server process for the raw I/O tests: raw I/O
// holds the caller's P while it waits, so the server must not share the
// process (in a PHP process nothing does).
func TestMain(m *testing.M) {
	if sock := os.Getenv("EPHPM_KV_TEST_SERVE"); sock != "" {
		s, err := server.New(server.Config{Unix: sock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err == nil {
			_, err = s.Listen()
		}
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(1)
		}
		io.Copy(io.Discard, os.Stdin) // until the test closes our stdin
		s.Close()
		os.Exit(0)
	}
	code := m.Run()
	stopRedis()
	stopCluster()
	os.Exit(code)
}

// startServerProcess runs a server in a child process; its unix URL.
func startServerProcess(t *testing.T) string {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "kv.sock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "EPHPM_KV_TEST_SERVE="+sock)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	for i := 0; ; i++ {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			return "unix://" + sock
		}
		if i == 500 {
			t.Fatal("the server process did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func newRawEngine(t *testing.T, url string, timeout time.Duration) *Engine {
	t.Helper()
	e, err := New(url, "", timeout, RawSyscalls())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// The library's configuration (raw I/O) keeps the engine contract.
func TestRawSyscalls(t *testing.T) {
	url := startServerProcess(t)
	e := newRawEngine(t, url, time.Second)
	kvtest.CheckSessionOps(t, e)
	big := strings.Repeat("x", 300<<10) // many reads and writes per call
	if err := e.Set("big", []byte(big), 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := get(t, e, "big"); v != big {
		t.Fatal("a large value changed on the way")
	}
	kvtest.CheckSessionsSerialize(t, func() kv.Engine { return newRawEngine(t, url, 5*time.Second) }, 4, 100)
}

// A raw read that never gets an answer still times out. The runtime's
// preemption signals interrupt it every ~10 ms while it waits, and the
// kernel would start SO_RCVTIMEO afresh on each retry: without a deadline
// kept across retries the call would wait forever.
func TestRawSyscallsTimeOutThroughSignals(t *testing.T) {
	e := newRawEngine(t, silentServer(t), 300*time.Millisecond)
	done := make(chan error, 1)
	go func() {
		_, err := e.SetNX("lock", []byte("t"), time.Second)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "may or may not") {
			t.Fatalf("setnx against a silent server: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a 300 ms timeout did not end the call within 20 s")
	}
}

// A stop-the-world does not wait for a raw read to end: the preemption
// signal interrupts it (SO_RCVTIMEO is set, so the read is not restarted),
// the thread stops at the loop's safe point, then reads on.
func TestRawReadDoesNotHoldUpGC(t *testing.T) {
	path := filepath.Join(t.TempDir(), "silent.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	e := newRawEngine(t, "unix://"+path, rawGCTimeout)
	done := make(chan error, 1)
	go func() {
		_, err := e.SetNX("lock", []byte("t"), time.Second)
		done <- err
	}()
	server := <-accepted
	time.Sleep(100 * time.Millisecond) // into the read
	gcDone := make(chan struct{})
	go func() { runtime.GC(); close(gcDone) }()
	select {
	case <-gcDone:
	case <-time.After(5 * time.Second):
		server.Close() // the read ends, and with it the GC's wait
		<-gcDone
		t.Fatal("the GC waited for the raw read to end")
	}
	select {
	case err := <-done:
		t.Fatalf("the read ended before the server answered: %v", err)
	default:
	}
	server.Close()
	if err := <-done; !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("the read after the GC: %v", err)
	}
}

// The largest timeout (ephpm.server_timeout saturates there): still a
// timeout to the kernel, so still interrupted by the signal.
const rawGCTimeout = math.MaxInt64
