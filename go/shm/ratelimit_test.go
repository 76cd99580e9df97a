package shm

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

func rate(t *testing.T, e *Engine, key string, limit int64, window time.Duration) (bool, int64, time.Duration) {
	t.Helper()
	ok, rem, retry, err := e.RateLimit(key, limit, window)
	if err != nil {
		t.Fatalf("RateLimit(%s): %v", key, err)
	}
	if ok && retry != 0 || !ok && (retry <= 0 || retry > window || rem != 0) {
		t.Fatalf("RateLimit(%s): allowed %v remaining %d retryAfter %v", key, ok, rem, retry)
	}
	return ok, rem, retry
}

func TestRateLimitAdmitsLimitPerWindow(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	const window = 300 * time.Millisecond
	start := time.Now()
	for i := range 5 {
		ok, rem, _ := rate(t, e, "r", 5, window)
		if !ok || rem != int64(4-i) {
			t.Fatalf("call %d: allowed %v remaining %d", i, ok, rem)
		}
	}
	ok, _, retry := rate(t, e, "r", 5, window)
	if ok {
		t.Fatal("a sixth call in the window")
	}
	if elapsed := time.Since(start); retry > window-elapsed+time.Millisecond {
		t.Fatalf("retryAfter %v, but the first call leaves the window within %v", retry, window-elapsed)
	}
	if d, _ := e.TTL("r"); d <= 0 || d > window {
		t.Fatalf("the log's ttl %v, want within one window", d)
	}
	time.Sleep(retry)
	if ok, _, _ := rate(t, e, "r", 5, window); !ok {
		t.Fatal("refused after retryAfter")
	}
	// A lower limit counts the calls already in the window; a higher one
	// admits more (both write the log anew for their capacity).
	for range 5 {
		rate(t, e, "r2", 5, time.Minute)
	}
	if ok, _, _ := rate(t, e, "r2", 3, time.Minute); ok {
		t.Fatal("admitted under a lower limit with more calls in the window")
	}
	if ok, rem, _ := rate(t, e, "r2", 8, time.Minute); !ok || rem != 2 {
		t.Fatalf("higher limit: %v remaining %d, want 2", ok, rem)
	}
	if ok, _, _ := rate(t, e, "r2", 5, time.Minute); ok {
		t.Fatal("back to the first limit: admitted with six calls in the window")
	}
	time.Sleep(window + 20*time.Millisecond)
	if ok, _ := e.Exists("r"); ok {
		t.Fatal("the log outlived one window after its latest call")
	}
}

// The fixed-window recipe lets 2x the limit through around a window edge;
// this one never admits more than limit calls in any window: for admitted
// calls i and i+limit, the second returned at least window after the first
// began.
func TestRateLimitNeverExceedsLimitInAnyWindow(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	const limit, window = 4, 60 * time.Millisecond
	type call struct{ before, after time.Time }
	var admitted []call
	for end := time.Now().Add(4 * window); time.Now().Before(end); {
		before := time.Now()
		ok, _, _ := rate(t, e, "edge", limit, window)
		if ok {
			admitted = append(admitted, call{before, time.Now()})
		}
		time.Sleep(time.Millisecond)
	}
	if len(admitted) < 3*limit {
		t.Fatalf("only %d calls admitted in four windows", len(admitted))
	}
	for i := 0; i+limit < len(admitted); i++ {
		if d := admitted[i+limit].after.Sub(admitted[i].before); d < window {
			t.Fatalf("calls %d and %d admitted within %v < %v: %d calls in one window", i, i+limit, d, window, limit+1)
		}
	}
}

func TestRateLimitConcurrentExact(t *testing.T) {
	mem, err := MapAnonymous(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(mem)
	const limit, workers, calls = 100, 8, 50
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for range workers {
		e, err := Attach(mem, Config{})
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				ok, _, _, err := e.RateLimit("hot", limit, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != limit {
		t.Fatalf("%d calls allowed, limit %d", allowed, limit)
	}
	e, _ := Attach(mem, Config{})
	mustVerify(t, e)
}

// An admitted call on an existing log needs no block: a full segment still
// limits; a new log (or one for another limit) is refused with ErrFull.
func TestRateLimitOnAFullSegment(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	rate(t, e, "r", 3, time.Minute)
	fillSegment(t, e)
	if _, _, _, err := e.RateLimit("new", 3, time.Minute); !errors.Is(err, kv.ErrFull) {
		t.Fatalf("a new log on a full segment: %v", err)
	}
	if _, _, _, err := e.RateLimit("r", 300, time.Minute); !errors.Is(err, kv.ErrFull) {
		t.Fatalf("a larger log on a full segment: %v", err)
	}
	for i := range 2 {
		if ok, _, _ := rate(t, e, "r", 3, time.Minute); !ok {
			t.Fatalf("call %d refused", i)
		}
	}
	if ok, _, _ := rate(t, e, "r", 3, time.Minute); ok {
		t.Fatal("a fourth call")
	}
}

func TestRateLimitBadArguments(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	for _, c := range []struct {
		limit  int64
		window time.Duration
	}{{0, time.Second}, {-1, time.Second}, {kv.MaxRateLimit + 1, time.Second}, {1, 0}, {1, -time.Second}, {1, kv.MaxTTL + 1}} {
		if _, _, _, err := e.RateLimit("r", c.limit, c.window); !errors.Is(err, kv.ErrBadArgument) && !errors.Is(err, kv.ErrBadTTL) {
			t.Errorf("RateLimit(%d, %v): %v", c.limit, c.window, err)
		}
	}
	if ok, _ := e.Exists("r"); ok {
		t.Fatal("a refused argument wrote the key")
	}
	// The largest log fits and works.
	for i := range 3 {
		if ok, rem, _ := rate(t, e, "big", kv.MaxRateLimit, time.Minute); !ok || rem != kv.MaxRateLimit-1-int64(i) {
			t.Fatalf("MaxRateLimit call %d: %v %d", i, ok, rem)
		}
	}
}
