package kvtest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

const workers = 8

// each runs fn in workers goroutines, each with its own client of the
// store (h.peer), and waits for them.
func (h *harness) each(fn func(w int, e kv.Engine) error) {
	h.t.Helper()
	engines := make([]kv.Engine, workers)
	for w := range engines {
		engines[w] = h.peer()
	}
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w, e := range engines {
		wg.Go(func() {
			if err := fn(w, e); err != nil {
				errs <- fmt.Errorf("worker %d: %w", w, err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		h.t.Error(err)
	}
}

// SetNX and DelIfEq as a lock: one holder at a time, every release of
// one's own lock succeeds, and nobody starves forever. The 800
// acquisitions are four locks of 8 workers x 25 each, each lock on an
// engine of its own: as contended as one, and side by side on an engine
// where each attempt is a round of consensus.
func checkMutualExclusion(h *harness) {
	for part := range 4 {
		h.sub(fmt.Sprint(part), func(h *harness) { checkMutualExclusionOf(h, 25) })
	}
}

func checkMutualExclusionOf(h *harness, rounds int) {
	var inside, overlaps atomic.Int32
	h.each(func(w int, e kv.Engine) error {
		token := []byte(fmt.Sprintf("token-%d", w))
		for n := 0; n < rounds; {
			ok, err := e.SetNX("lock", token, time.Minute)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if inside.Add(1) != 1 {
				overlaps.Add(1)
			}
			inside.Add(-1)
			// Another worker's release attempt with its token must fail.
			other := []byte(fmt.Sprintf("token-%d", (w+1)%workers))
			if ok, err := e.DelIfEq("lock", other); err != nil || ok {
				return fmt.Errorf("another token released my lock: %v, %v", ok, err)
			}
			if ok, err := e.DelIfEq("lock", token); err != nil || !ok {
				return fmt.Errorf("lost my own lock: %v, %v", ok, err)
			}
			n++
		}
		return nil
	})
	if n := overlaps.Load(); n != 0 {
		h.t.Fatalf("%d times two holders at once", n)
	}
}

// Workers racing on the same fresh key: exactly one SetNX wins; then all
// race to release it with the winner's token: exactly one DelIfEq wins.
func checkOneWinner(h *harness) {
	const rounds = 50
	var won, released [rounds]atomic.Int32
	// One-shot barriers, two per round: all workers are between the same
	// two steps when each step starts.
	barriers := make([]sync.WaitGroup, 2*rounds)
	for i := range barriers {
		barriers[i].Add(workers)
	}
	meet := func(i int) { barriers[i].Done(); barriers[i].Wait() }
	var failed atomic.Pointer[error]
	h.each(func(w int, e kv.Engine) error {
		for r := 0; r < rounds; r++ {
			key := fmt.Sprintf("race:%d", r)
			meet(2 * r)
			// An error is kept, not returned: the others wait at the
			// barriers for every worker.
			ok, err := e.SetNX(key, []byte("shared-token"), time.Minute)
			if ok {
				won[r].Add(1)
			}
			meet(2*r + 1)
			ok, err2 := e.DelIfEq(key, []byte("shared-token"))
			if ok {
				released[r].Add(1)
			}
			if err = errors.Join(err, err2); err != nil {
				failed.CompareAndSwap(nil, &err)
			}
		}
		return nil
	})
	if err := failed.Load(); err != nil {
		h.t.Fatal(*err)
	}
	for r := range rounds {
		if w, d := won[r].Load(), released[r].Load(); w != 1 || d != 1 {
			h.t.Errorf("round %d: %d SetNX won, %d DelIfEq deleted; want 1 and 1", r, w, d)
		}
		if h.exists(fmt.Sprintf("race:%d", r)) {
			h.t.Errorf("race:%d left behind", r)
		}
	}
}

// Concurrent Incr: no update lost, every result seen exactly once. The
// 2400 increments are four counters of 8 workers x 75 each, each counter
// on an engine of its own: as contended as one, and on an engine where an
// increment is a round of consensus (retried when another came between
// its read and its write) the four run side by side.
func checkIncrExact(h *harness) {
	for part := range 4 {
		h.sub(fmt.Sprint(part), func(h *harness) { checkIncrExactOf(h, 75) })
	}
}

func checkIncrExactOf(h *harness, rounds int) {
	results := make([][]int64, workers)
	h.each(func(w int, e kv.Engine) error {
		for range rounds {
			n, err := e.Incr("counter", 1, time.Hour)
			if err != nil {
				return err
			}
			results[w] = append(results[w], n)
		}
		return nil
	})
	seen := make(map[int64]bool, workers*rounds)
	for _, rs := range results {
		for _, n := range rs {
			if seen[n] || n < 1 || n > int64(workers*rounds) {
				h.t.Fatalf("Incr returned %d twice or out of 1..%d", n, workers*rounds)
			}
			seen[n] = true
		}
	}
	if v := h.value("counter"); v != fmt.Sprint(workers*rounds) {
		h.t.Fatalf("counter %s after %d increments", v, workers*rounds)
	}
}

// Fences issued concurrently are all distinct, and increase in each
// worker's order.
func checkFencesConcurrent(h *harness) {
	const rounds = 100
	fences := make([][]int64, workers)
	h.each(func(w int, e kv.Engine) error {
		for r := range rounds {
			key := h.target.fenceName(fmt.Sprintf("fenced:%d:%d", w, r%3))
			f, ok, err := e.SetNXFenced(key, []byte("t"), time.Minute)
			if err != nil || !ok {
				return fmt.Errorf("SetNXFenced of my own free key: %v, %v", ok, err)
			}
			if n := len(fences[w]); n > 0 && f <= fences[w][n-1] {
				return fmt.Errorf("fence %d after %d", f, fences[w][n-1])
			}
			fences[w] = append(fences[w], f)
			if ok, err := e.DelIfEq(key, []byte("t")); err != nil || !ok {
				return fmt.Errorf("release: %v, %v", ok, err)
			}
		}
		return nil
	})
	seen := map[int64]bool{}
	for _, fs := range fences {
		for _, f := range fs {
			if seen[f] {
				h.t.Fatalf("fence %d issued twice", f)
			}
			seen[f] = true
		}
	}
}
