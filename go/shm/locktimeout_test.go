package shm

import (
	"errors"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// liveOwner starts a process that sleeps and returns its owner word, as
// a stripe lock holder would write it.
func liveOwner(t *testing.T) (*exec.Cmd, uint64) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	start, _, err := readStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, ownerWord(cmd.Process.Pid, start)
}

// A stripe whose owner word names a live process that never lets go (one
// stopped inside a critical section, or a forged word) costs a caller the
// lock timeout, then kv.ErrUnavailable naming the pid and its state.
func TestStripeHeldByLiveProcessTimesOut(t *testing.T) {
	for _, stop := range []bool{false, true} {
		name, state := "forged", "sleeping"
		if stop {
			name, state = "stopped", "stopped"
		}
		t.Run(name, func(t *testing.T) {
			const timeout = 300 * time.Millisecond
			e := newTestEngine(t, MinSize, Config{LockTimeout: timeout})
			e.Set("k", []byte("v"), 0)
			cmd, w := liveOwner(t)
			if stop {
				cmd.Process.Signal(syscall.SIGSTOP)
				defer cmd.Process.Signal(syscall.SIGCONT)
				for _, s, _ := readStat(cmd.Process.Pid); s != 'T'; _, s, _ = readStat(cmd.Process.Pid) {
					time.Sleep(time.Millisecond)
				}
			}
			b, _ := e.locate("k")
			mu := &e.stripe(b & e.stripeMask).mu
			atomic.StoreUint64(&mu.word, w)
			done := make(chan error, 1)
			t0 := time.Now()
			go func() {
				_, _, err := e.Get("k", make([]byte, 8))
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Get still waits for the stripe after 20 s")
			}
			waited := time.Since(t0)
			if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "pid ") ||
				!strings.Contains(err.Error(), "("+state+")") {
				t.Fatalf("after %v: %v", waited, err)
			}
			if waited < timeout {
				t.Fatalf("gave up after %v, before the %v timeout", waited, timeout)
			}
			// The owner word is left alone: the stripe is not taken over.
			if got := atomic.LoadUint64(&mu.word) &^ waitersBit; got != w {
				t.Fatalf("owner word %#x, want %#x", got, w)
			}
			// Other stripes serve, and the stripe comes back once the
			// holder lets go.
			atomic.StoreUint64(&mu.word, 0)
			if _, ok, err := e.Get("k", make([]byte, 8)); !ok || err != nil {
				t.Fatalf("after the holder let go: %v %v", ok, err)
			}
		})
	}
}
