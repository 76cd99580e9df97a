package store

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A store that kept nothing (in-process, or a server without --snapshot)
// still does not restart its fences at 1.
func TestFencesStartAtTheWallClock(t *testing.T) {
	before := time.Now().UnixNano()
	s := newTestStore(t, Config{})
	f, ok, err := s.SetNXFenced("a", []byte("t"), 0)
	if err != nil || !ok || f <= before {
		t.Fatalf("first fence %d (ok=%v err=%v), want above the clock %d ns", f, ok, err, before)
	}
}

// A store that kept nothing starts above every fence the one before it
// issued, at any rate this machine can issue them: the seed counts wall
// clock nanoseconds, more than any counter can count in the same time.
func TestRestartStartsAboveEveryFenceIssued(t *testing.T) {
	first := New(Config{})
	start := time.Now()
	n := 0
	for time.Since(start) < 20*time.Millisecond {
		for range 1000 {
			if _, err := first.issueFence(); err != nil {
				t.Fatal(err)
			}
		}
		n += 1000
	}
	last := first.LastFence()
	first.Close()
	second := newTestStore(t, Config{})
	if f, _, err := second.SetNXFenced("k", []byte("t"), 0); err != nil || f <= last {
		t.Fatalf("first fence after a restart %d (%v), %d below the last before it (%d fences at %.1f M/s)",
			f, err, last-f, n, float64(n)/time.Since(start).Seconds()/1e6)
	}
}

// No fence above the durable mark is ever handed out, whether the next
// block was reserved in the background or the acquirers had to wait.
func TestDurableFencesNeverPassTheMark(t *testing.T) {
	for _, block := range []int64{2, 64} {
		t.Run(fmt.Sprint("block ", block), func(t *testing.T) {
			s := newTestStore(t, Config{})
			var durable atomic.Int64
			var calls atomic.Int64
			noErr(t, s.DurableFences(func(mark int64) error {
				calls.Add(1)
				time.Sleep(200 * time.Microsecond) // an fsync
				if mark <= durable.Load() {
					return fmt.Errorf("mark %d after %d: marks must grow", mark, durable.Load())
				}
				durable.Store(mark)
				return nil
			}, block))
			var wg sync.WaitGroup
			fences := make([][]int64, 8)
			for g := range fences {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 300 {
						key := fmt.Sprintf("k%d-%d", g, i)
						f, ok, err := s.SetNXFenced(key, []byte("t"), 0)
						if err != nil || !ok {
							t.Errorf("acquire: ok=%v err=%v", ok, err)
							return
						}
						if d := durable.Load(); f > d {
							t.Errorf("fence %d issued above the durable mark %d", f, d)
							return
						}
						fences[g] = append(fences[g], f)
					}
				}()
			}
			wg.Wait()
			seen := map[int64]bool{}
			for _, fs := range fences {
				for i, f := range fs {
					if seen[f] || (i > 0 && f <= fs[i-1]) {
						t.Fatalf("fence %d repeated or out of order", f)
					}
					seen[f] = true
				}
			}
			if calls.Load() < 2 {
				t.Fatalf("%d reservations for 2400 fences in blocks of %d", calls.Load(), block)
			}
		})
	}
}

// When the mark cannot be persisted no fence is issued: the acquisition
// fails with the cause and the lock is not taken; it works again once the
// disk does.
func TestFenceReservationFailureRefusesTheAcquisition(t *testing.T) {
	s := newTestStore(t, Config{})
	var broken atomic.Bool
	diskFull := errors.New("no space left on device")
	noErr(t, s.DurableFences(func(int64) error {
		if broken.Load() {
			return diskFull
		}
		return nil
	}, 4))
	var last int64
	broken.Store(true)
	for i := range 10 {
		key := fmt.Sprint("lock", i)
		f, ok, err := s.SetNXFenced(key, []byte("t"), 0)
		if err != nil {
			if !errors.Is(err, diskFull) || ok || f != 0 {
				t.Fatalf("failed acquisition: fence=%d ok=%v err=%v", f, ok, err)
			}
			if held, _ := s.Exists(key); held {
				t.Fatal("the lock was taken although no fence could be issued")
			}
			broken.Store(false)
			f, ok, err = s.SetNXFenced(key, []byte("t"), 0)
			if err != nil || !ok || f <= last {
				t.Fatalf("after the disk recovered: fence=%d (last %d) ok=%v err=%v", f, last, ok, err)
			}
			return
		}
		last = f
	}
	t.Fatal("fences kept coming while no mark could be persisted")
}

// The durable mark, not the clock, is what keeps fences from going
// backwards when the clock steps back between two runs.
func TestDurableMarkOutlivesAClockStepBack(t *testing.T) {
	now := time.Now().UnixNano()
	defer func(f func() int64) { wallNanos = f }(wallNanos)
	wallNanos = func() int64 { return now }
	first := New(Config{})
	var durable atomic.Int64
	noErr(t, first.DurableFences(func(mark int64) error { durable.Store(mark); return nil }, 16))
	var highest int64
	for i := range 100 {
		f, _, err := first.SetNXFenced(fmt.Sprint("k", i), []byte("t"), 0)
		noErr(t, err)
		highest = f
	}
	first.Close() // as good as a crash: nothing but the mark is kept

	wallNanos = func() int64 { return now - 3600e9 } // an hour back
	second := newTestStore(t, Config{})
	noErr(t, second.RestoreFences(FenceState{Counter: durable.Load()}))
	if f, _, err := second.SetNXFenced("k", []byte("t"), 0); err != nil || f <= highest {
		t.Fatalf("fence %d (%v) after a restart, %d before it", f, err, highest)
	}
}

// A fenced lock pair, with and without durable fences (the mark persisted
// by a no-op here: the cost measured is the store's, not the disk's).
func BenchmarkFencedAcquireRelease(b *testing.B) {
	for _, durable := range []bool{false, true} {
		b.Run(fmt.Sprint("durable=", durable), func(b *testing.B) {
			s := newTestStore(b, Config{})
			if durable {
				noErr(b, s.DurableFences(func(int64) error { return nil }, 0))
			}
			token := []byte("0123456789abcdef0123456789abcdef")
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, _ := s.SetNXFenced("lock:bench", token, 30*time.Second); !ok {
					b.Fatal("not acquired")
				}
				if ok, _ := s.DelIfEq("lock:bench", token); !ok {
					b.Fatal("not released")
				}
			}
		})
	}
}

// A lease's fence comes from the same counter and the same durable
// reservation as a lock's: a restart starts above every lease fence issued
// before it even when the clock stepped back.
func TestDurableMarkCoversLeaseFences(t *testing.T) {
	now := time.Now().UnixNano()
	defer func(f func() int64) { wallNanos = f }(wallNanos)
	wallNanos = func() int64 { return now }
	first := New(Config{})
	var durable atomic.Int64
	noErr(t, first.DurableFences(func(mark int64) error { durable.Store(mark); return nil }, 16))
	var highest int64
	modes := []kv.LeaseMode{kv.LeaseShared, kv.LeaseExclusive, kv.LeasePermit}
	for i := range 100 {
		f, ok, err := first.LeaseAcquire(fmt.Sprint("k", i), []byte("t"), modes[i%3], 3, time.Minute, 0)
		if err != nil || !ok {
			t.Fatalf("LeaseAcquire: %v, %v", ok, err)
		}
		highest = max(highest, f)
	}
	first.Close() // as good as a crash: nothing but the mark is kept

	wallNanos = func() int64 { return now - 3600e9 } // an hour back
	second := newTestStore(t, Config{})
	noErr(t, second.RestoreFences(FenceState{Counter: durable.Load()}))
	if f, ok, err := second.LeaseAcquire("k", []byte("t"), kv.LeasePermit, 1, time.Minute, 0); err != nil || !ok || f <= highest {
		t.Fatalf("lease fence %d (%v, %v) after a restart, %d before it", f, ok, err, highest)
	}
}
