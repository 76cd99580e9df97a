package kvtest

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// The kv.RateLimiter checks: an exact sliding-window log.

type rateHarness struct {
	*harness
	rl kv.RateLimiter
}

func rateLimiter(h *harness) *rateHarness { return &rateHarness{h, h.e} }

// window is short enough to wait out a few times, long enough for a few
// calls, and a whole number of the engine's time units.
func (h *rateHarness) window() time.Duration {
	return max(150*time.Millisecond, 2*h.target.TTLResolution)
}

type rateCall struct {
	start, end time.Time
	allowed    bool
	remaining  int64
	retry      time.Duration
}

func (h *rateHarness) call(key string, limit int64, window time.Duration) rateCall {
	h.t.Helper()
	c := rateCall{start: time.Now()}
	var err error
	c.allowed, c.remaining, c.retry, err = h.rl.RateLimit(key, limit, window)
	c.end = time.Now()
	h.noErr("RateLimit "+key, err)
	switch {
	case c.allowed && c.retry != 0:
		h.t.Fatalf("RateLimit %s: allowed with retryAfter %v, want 0", key, c.retry)
	case c.allowed && (c.remaining < 0 || c.remaining >= limit):
		h.t.Fatalf("RateLimit %s: allowed with %d remaining of %d", key, c.remaining, limit)
	case !c.allowed && c.remaining != 0:
		h.t.Fatalf("RateLimit %s: refused with %d remaining", key, c.remaining)
	case !c.allowed && (c.retry <= 0 || c.retry > window+h.target.TTLResolution):
		h.t.Fatalf("RateLimit %s: refused with retryAfter %v, want within (0, %v]", key, c.retry, window)
	}
	return c
}

// exact checks a log of calls made one after another on one key: an
// admitted call j and the admitted call limit places before it were
// admitted at engine times inside [start, end] of each, and those must lie
// at least window apart (else limit+1 calls fit in one window).
func (h *rateHarness) exact(log []rateCall, limit int, window time.Duration) int {
	h.t.Helper()
	var admitted []rateCall
	for _, c := range log {
		if c.allowed {
			admitted = append(admitted, c)
		}
	}
	for j := limit; j < len(admitted); j++ {
		if span := admitted[j].end.Sub(admitted[j-limit].start); span < window {
			h.t.Fatalf("admitted calls %d and %d (of %d) lie %v apart: %d calls in less than the %v window",
				j-limit, j, len(admitted), span, limit+1, window)
		}
	}
	return len(admitted)
}

// limit calls admitted, counting remaining down, then refused with a
// retryAfter that is enough; refused calls are not recorded; the key
// expires one window after its latest admitted call.
func checkRateLimit(h0 *harness) {
	h := rateLimiter(h0)
	t := h.t
	w := h.window()
	const limit = 3
	var log []rateCall
	for i := range limit {
		c := h.call("r", limit, w)
		log = append(log, c)
		if !c.allowed || c.remaining != int64(limit-1-i) {
			t.Fatalf("call %d of %d: allowed %v, remaining %d; want allowed, %d", i+1, limit, c.allowed, c.remaining, limit-1-i)
		}
	}
	first := log[0]
	c := h.call("r", limit, w)
	log = append(log, c)
	if c.allowed {
		t.Fatalf("call %d of a limit of %d in %v: allowed", limit+1, limit, c.end.Sub(first.start))
	}
	// retryAfter is when the oldest admitted call leaves the window.
	res := h.target.TTLResolution
	if lo, hi := first.start.Add(w).Sub(c.end), first.end.Add(w).Sub(c.start); c.retry < lo-res || c.retry > hi+res {
		t.Fatalf("retryAfter %v; the oldest call leaves the window in %v to %v", c.retry, lo, hi)
	}
	// Refused calls, made half a window in, are not recorded: once the
	// admitted calls have left the window, calls are admitted again though
	// these are still in it.
	time.Sleep(w / 2)
	refused := true
	for range 3 {
		c = h.call("r", limit, w)
		log = append(log, c)
		refused = refused && !c.allowed
	}
	if refused {
		time.Sleep(time.Until(log[limit-1].end.Add(w + res + 2*time.Millisecond)))
		c = h.call("r", limit, w)
		log = append(log, c)
		if !c.allowed {
			t.Fatalf("refused once the admitted calls left the window, %v after the first (refused calls recorded?)", c.start.Sub(first.end))
		}
	} else {
		t.Logf("the machine stalled past the window (%v): refused calls not checked", c.end.Sub(first.start))
	}
	h.exact(log, limit, w)
	if d := h.ttl("r"); d <= 0 || d > w+h.target.TTLResolution {
		t.Fatalf("a rate-limit key's TTL is %v, want at most the window %v", d, w)
	}
	time.Sleep(w + h.target.TTLResolution + h.target.ExpiryLag + 5*time.Millisecond)
	if h.exists("r") {
		t.Fatal("the key outlived its latest admitted call by more than a window")
	}
	// A window of its own per key.
	if c := h.call("other", 1, w); !c.allowed {
		t.Fatal("a new key: refused")
	}
}

// Calls that a fixed window admits and an exact log refuses: one at the
// start of a window (a multiple of it since the Unix epoch, and the first
// call's), limit-1 just before its end, then calls every few ms for a
// window. A fixed window of any phase lets limit of those in after its next
// edge, less than a window after the limit-1 (unless the edge falls in the
// last few ms); an exact log admits no more than limit in any window.
func checkRateLimitExact(h0 *harness) {
	h := rateLimiter(h0)
	w := h.window()
	const limit = 4
	margin := w / 8
	t0 := time.Unix(0, (time.Now().UnixNano()/int64(w)+1)*int64(w)).Add(2 * time.Millisecond)
	var log []rateCall
	burst := func(at time.Time, n int) {
		time.Sleep(time.Until(at))
		for range n {
			log = append(log, h.call("edge", limit, w))
		}
	}
	burst(t0, 1)
	burst(t0.Add(w-margin), limit-1)
	step := max(time.Millisecond, w/100)
	for at := t0.Add(w + margin/4); at.Before(t0.Add(2 * w)); at = at.Add(step) {
		burst(at, 1)
	}
	n := h.exact(log, limit, w)
	if n < limit {
		h.t.Fatalf("%d calls admitted over %v, want at least %d", n, log[len(log)-1].end.Sub(log[0].start), limit)
	}
	h.t.Logf("%d of %d calls admitted", n, len(log))
}

// Workers on their own clients call one limiter at once: exactly limit
// calls are admitted within the window.
func checkRateLimitConcurrent(h0 *harness) {
	h := rateLimiter(h0)
	const limit, calls = 40, 15
	var admitted atomic.Int64
	h.each(func(w int, e kv.Engine) error {
		rl := e.(kv.RateLimiter)
		for range calls {
			ok, _, _, err := rl.RateLimit("busy", limit, time.Minute)
			if err != nil {
				return err
			}
			if ok {
				admitted.Add(1)
			}
		}
		return nil
	})
	if n := admitted.Load(); n != limit {
		h.t.Fatalf("%d of %d calls admitted under a limit of %d", n, workers*calls, limit)
	}
}

// Bad arguments are refused with kv.ErrBadArgument or kv.ErrBadTTL, and
// record nothing.
func checkRateLimitBadArgs(h0 *harness) {
	h := rateLimiter(h0)
	cases := []struct {
		limit  int64
		window time.Duration
		want   error
	}{
		{0, time.Second, kv.ErrBadArgument},
		{-1, time.Second, kv.ErrBadArgument},
		{kv.MaxRateLimit + 1, time.Second, kv.ErrBadArgument},
		{1, 0, kv.ErrBadTTL},
		{1, -time.Second, kv.ErrBadTTL},
		{1, kv.MaxTTL + 1, kv.ErrBadTTL},
	}
	for _, c := range cases {
		if ok, _, _, err := h.rl.RateLimit("bad", c.limit, c.window); !errors.Is(err, c.want) || ok {
			h.t.Errorf("RateLimit with limit %d, window %v: %v, %v; want %v", c.limit, c.window, ok, err, c.want)
		}
	}
	if _, _, _, err := h.rl.RateLimit("", 1, time.Second); !errors.Is(err, kv.ErrEmptyKey) {
		h.t.Errorf("RateLimit of the empty key: %v", err)
	}
	if h.exists("bad") {
		h.t.Fatal("a refused RateLimit left the key behind")
	}
	// The edges are accepted.
	if c := h.call("good", kv.MaxRateLimit, kv.MaxTTL); !c.allowed || c.remaining != kv.MaxRateLimit-1 {
		h.t.Fatalf("RateLimit at the bounds: %v, %d remaining", c.allowed, c.remaining)
	}
	if c := h.call("good1", 1, time.Minute); !c.allowed || c.remaining != 0 {
		h.t.Fatalf("RateLimit with limit 1: %v, %d remaining", c.allowed, c.remaining)
	}
	if c := h.call("good1", 1, time.Minute); c.allowed {
		h.t.Fatal("the second call under limit 1: allowed")
	}
}

// A call with another limit than the log's earlier calls is judged by its
// own limit against every admitted call still in the window: a raised
// limit admits more at once, a lowered one refuses until enough calls
// have left (retryAfter: the call that must leave for one more to fit).
func checkRateLimitChangedLimit(h0 *harness) {
	h := rateLimiter(h0)
	t := h.t
	w := h.window()
	type step struct {
		limit     int64
		allowed   bool
		remaining int64
	}
	steps := []step{{3, true, 2}, {3, true, 1}, {3, true, 0}, {3, false, 0}, {5, true, 1},
		{2, false, 0}, {7, true, 2}, {10, true, 4}, {6, false, 0}, {7, true, 0}}
	var log []rateCall
	start := time.Now()
	for _, s := range steps {
		log = append(log, h.call("c", s.limit, w))
	}
	if time.Since(start) > w/2 {
		t.Skipf("the machine stalled: %d calls took %v of the %v window", len(steps), time.Since(start), w)
	}
	admitted := []rateCall{}
	for i, s := range steps {
		c := log[i]
		if c.allowed != s.allowed || c.remaining != s.remaining {
			t.Fatalf("call %d with limit %d: allowed %v, remaining %d; want %v, %d", i+1, s.limit, c.allowed, c.remaining, s.allowed, s.remaining)
		}
		if !c.allowed {
			// The call that must leave: the (n-limit)th oldest of the n admitted.
			must := admitted[int64(len(admitted))-s.limit]
			res := h.target.TTLResolution
			if lo, hi := must.start.Add(w).Sub(c.end), must.end.Add(w).Sub(c.start); c.retry < lo-res || c.retry > hi+res {
				t.Fatalf("call %d with limit %d: retryAfter %v, want %v to %v", i+1, s.limit, c.retry, lo, hi)
			}
			continue
		}
		admitted = append(admitted, c)
	}
}

// A call with a shorter window than the log's earlier calls counts only
// the admitted calls inside its own window, and the key then expires one
// of its windows after it. (Engines agree on windows that never grow; a
// longer window again may find calls forgotten, engine by engine: see
// kv.RateLimiter.)
func checkRateLimitShorterWindow(h0 *harness) {
	h := rateLimiter(h0)
	t := h.t
	w := h.window()
	long := 20 * w
	if c := h.call("s", 10, long); !c.allowed || c.remaining != 9 {
		t.Fatalf("the first call: allowed %v, remaining %d; want true, 9", c.allowed, c.remaining)
	}
	time.Sleep(w + h.target.TTLResolution + 10*time.Millisecond) // the first call leaves a short window
	start := time.Now()
	log := []rateCall{h.call("s", 10, long), h.call("s", 10, long), h.call("s", 10, w), h.call("s", 3, w)}
	d := h.ttl("s")
	if time.Since(start) > w/2 {
		t.Skipf("the machine stalled: %d calls took %v of the %v window", len(log), time.Since(start), w)
	}
	want := []struct {
		allowed   bool
		remaining int64
	}{{true, 8}, {true, 7}, {true, 7}, {false, 0}} // the short window holds calls 2 and 3, then 2 to 4
	for i, c := range log {
		if c.allowed != want[i].allowed || c.remaining != want[i].remaining {
			t.Fatalf("call %d: allowed %v, remaining %d; want %v, %d", i+2, c.allowed, c.remaining, want[i].allowed, want[i].remaining)
		}
	}
	// Refused: once call 2, the oldest inside the short window, leaves it.
	res := h.target.TTLResolution
	if c, lo, hi := log[3], log[0].start.Add(w).Sub(log[3].end), log[0].end.Add(w).Sub(log[3].start); c.retry < lo-res || c.retry > hi+res {
		t.Fatalf("retryAfter under the short window: %v, want %v to %v", c.retry, lo, hi)
	}
	if d <= 0 || d > w+res+h.target.ExpiryLag {
		t.Fatalf("the key's TTL after an admitted call with the short window: %v, want at most %v", d, w)
	}
}
