package shm

import (
	"math"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestWaitReleaseWakesOnRelease(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	if woken, _ := e.WaitRelease("free", time.Second); !woken {
		t.Fatal("a free key: not woken at once")
	}
	e.SetNX("lock", []byte("A"), time.Minute)
	start := time.Now()
	if woken, _ := e.WaitRelease("lock", 20*time.Millisecond); woken {
		t.Fatal("woken while held")
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("returned after %v, before max", d)
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		released <- time.Now()
		e.DelIfEq("lock", []byte("A"))
	}()
	woken, err := e.WaitRelease("lock", 10*time.Second)
	at := time.Now()
	if err != nil || !woken {
		t.Fatalf("woken %v err %v", woken, err)
	}
	// Far below max (10 s); loose enough for a loaded machine.
	if lag := at.Sub(<-released); lag > 500*time.Millisecond {
		t.Fatalf("woke %v after the release", lag)
	}
}

func TestWaitReleaseWakesAtExpiry(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	e.SetNX("lock", []byte("A"), 40*time.Millisecond)
	start := time.Now()
	woken, _ := e.WaitRelease("lock", 10*time.Second)
	if d := time.Since(start); !woken || d < 30*time.Millisecond || d > time.Second {
		t.Fatalf("woken %v after %v, want true after the 40 ms ttl", woken, d)
	}
}

// Many waiters on one stripe, released one key at a time: none is lost
// (each wakes at its key's release, not at its max).
func TestWaitReleaseManyWaiters(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	keys := keysOfStripe(e, 3, 8, "w")
	for _, k := range keys {
		e.SetNX(k, []byte("A"), time.Minute)
	}
	done := make(chan time.Duration, len(keys))
	for _, k := range keys {
		go func() {
			start := time.Now()
			for {
				if ok, _ := e.Exists(k); !ok {
					done <- time.Since(start)
					return
				}
				e.WaitRelease(k, 5*time.Second)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	for _, k := range keys {
		e.DelIfEq(k, []byte("A"))
		time.Sleep(5 * time.Millisecond)
	}
	for range keys {
		select {
		case d := <-done:
			if d > 2*time.Second {
				t.Fatalf("a waiter took %v", d)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("a waiter was not woken")
		}
	}
}

// A max as long as time.Duration allows waits for the release, not wrap
// into a deadline already passed. Signals (SIGURG, which the Go runtime
// takes as a preemption request) interrupt the futex wait meanwhile: the
// wait goes on after them.
func TestWaitReleaseLongestMax(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	e.SetNX("lock", []byte("A"), 0)
	go func() {
		for range 30 {
			time.Sleep(time.Millisecond)
			syscall.Kill(os.Getpid(), syscall.SIGURG)
		}
		e.DelIfEq("lock", []byte("A"))
	}()
	start := time.Now()
	woken, _ := e.WaitRelease("lock", math.MaxInt64)
	if d := time.Since(start); !woken || d < 30*time.Millisecond {
		t.Fatalf("woken %v after %v, want true after the release (after 30 ms)", woken, d)
	}
}
