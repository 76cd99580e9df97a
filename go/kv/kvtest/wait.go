package kvtest

import (
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// checkWaitRelease checks that an engine that can put a waiter to sleep until
// a key is released (kv.ReleaseWaiter) says so in its Target, and then wakes
// it at the release, at the key's expiry, or at max. Spurious early returns
// are allowed, so only the latest return is checked, and woken.
func checkWaitRelease(h *harness) {
	t := h.t
	w, ok := h.e.(kv.ReleaseWaiter)
	if ok != h.target.WaitsOnRelease {
		t.Fatalf("implements kv.ReleaseWaiter: %v; Target.WaitsOnRelease: %v", ok, h.target.WaitsOnRelease)
	}
	if !ok {
		t.Log("no kv.ReleaseWaiter: lock and session waiters back off and retry")
		return
	}
	const slack = time.Second // a loaded machine's scheduling, not the engine's
	wait := func(key string, max time.Duration) (bool, time.Duration) {
		t.Helper()
		start := time.Now()
		woken, err := w.WaitRelease(key, max)
		h.noErr("WaitRelease", err)
		return woken, time.Since(start)
	}
	if _, took := wait("free", 5*time.Second); took > slack {
		t.Errorf("WaitRelease of a free key took %v", took)
	}
	if _, err := w.WaitRelease("", time.Second); err == nil {
		t.Error("WaitRelease of an empty key: no error")
	}

	// Released by another client while we wait.
	h.set("lock", "A", time.Minute)
	go func() {
		time.Sleep(50 * time.Millisecond)
		h.peer().DelIfEq("lock", []byte("A"))
	}()
	if woken, took := wait("lock", 10*time.Second); !woken || took > slack {
		t.Errorf("WaitRelease across a release: woken %v after %v", woken, took)
	}
	// Expired while we wait: nobody writes, the ttl runs out.
	h.set("lock", "A", 100*time.Millisecond)
	if _, took := wait("lock", 10*time.Second); took > 100*time.Millisecond+slack {
		t.Errorf("WaitRelease across an expiry returned after %v", took)
	}
	// Held throughout: back after max.
	h.set("lock", "A", time.Minute)
	if _, took := wait("lock", 100*time.Millisecond); took > 100*time.Millisecond+slack {
		t.Errorf("WaitRelease with max 100 ms returned after %v", took)
	}
}
