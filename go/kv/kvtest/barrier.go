package kvtest

import (
	"errors"
	"sync"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// kv.BarrierWait: the parties pass together once the last arrives, none
// before; a timed-out arrival is withdrawn and miscounts no later round;
// the barrier is reusable.
func checkBarrier(h *harness) {
	t := h.t
	if ok, err := kv.BarrierWait(h.e, "b:one", 1, time.Second); !ok || err != nil {
		t.Errorf("a barrier of 1: %v, %v", ok, err)
	}
	if ok, err := kv.BarrierWait(h.e, "b:lonely", 2, 50*time.Millisecond); ok || err != nil {
		t.Errorf("one of 2 parties alone: %v, %v, want a timeout", ok, err)
	}
	// Were the withdrawn arrival still counted, this one would pass at once.
	if ok, err := kv.BarrierWait(h.e, "b:lonely", 2, 50*time.Millisecond); ok || err != nil {
		t.Errorf("one of 2 parties after a withdrawn arrival: %v, %v, want a timeout", ok, err)
	}
	const parties = 3
	for round := range 3 {
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			lastIn   time.Time
			firstOut time.Time
			passed   int
		)
		for i := range parties {
			e := h.peer()
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(i) * 30 * time.Millisecond)
				mu.Lock()
				if now := time.Now(); now.After(lastIn) {
					lastIn = now
				}
				mu.Unlock()
				ok, err := kv.BarrierWait(e, "b:round", parties, 10*time.Second)
				out := time.Now()
				mu.Lock()
				defer mu.Unlock()
				if err != nil || !ok {
					t.Errorf("round %d: party %d: %v, %v", round, i, ok, err)
					return
				}
				passed++
				if firstOut.IsZero() || out.Before(firstOut) {
					firstOut = out
				}
			}()
		}
		wg.Wait()
		if passed != parties || firstOut.Before(lastIn) {
			t.Errorf("round %d: %d passed; first out %v before the last arrived", round, passed, lastIn.Sub(firstOut))
		}
	}
	if _, err := kv.BarrierWait(h.e, "b:round", 4, 20*time.Millisecond); err != nil {
		t.Errorf("another count once no round is open: %v", err)
	}
	h.set("b:plain", "x", 0)
	if _, err := kv.BarrierWait(h.e, "b:plain", 2, time.Second); !errors.Is(err, kv.ErrWrongType) {
		t.Errorf("a barrier on a plain value: %v", err)
	}
	for _, bad := range []struct {
		parties int64
		timeout time.Duration
		want    error
	}{{0, time.Second, kv.ErrBadArgument}, {kv.MaxBarrierParties + 1, time.Second, kv.ErrBadArgument},
		{2, 0, kv.ErrBadTTL}, {2, -time.Second, kv.ErrBadTTL}} {
		if _, err := kv.BarrierWait(h.e, "b:bad", bad.parties, bad.timeout); !errors.Is(err, bad.want) {
			t.Errorf("BarrierWait(%d, %v): %v, want %v", bad.parties, bad.timeout, err, bad.want)
		}
	}
}
