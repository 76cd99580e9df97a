package kvtest

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// checkIncr checks Incr: created with its ttl, kept expiry, integers only,
// never wrapped.
func checkIncr(h *harness) {
	t := h.t
	incr := func(key string, by int64, ttl time.Duration) int64 {
		t.Helper()
		n, err := h.e.Incr(key, by, ttl)
		h.noErr("Incr "+key, err)
		return n
	}
	start := time.Now()
	if n := incr("n", 5, time.Minute); n != 5 || h.value("n") != "5" || !h.within(h.ttl("n"), time.Minute, time.Since(start)) {
		t.Fatalf("Incr of a missing key: %d, %q, ttl %v", n, h.value("n"), h.ttl("n"))
	}
	// An existing counter keeps its expiry, whatever ttl the call gives.
	for _, ttl := range []time.Duration{0, time.Hour} {
		if n := incr("n", -7, ttl); n != -2 || !h.within(h.ttl("n"), time.Minute, time.Since(start)) {
			t.Fatalf("Incr with ttl %v of a counter with 1 min: %d, ttl %v", ttl, n, h.ttl("n"))
		}
		incr("n", 7, 0)
	}
	h.set("p", "10", 0)
	if n := incr("p", 1, time.Hour); n != 11 || h.ttl("p") != kv.TTLPersistent {
		t.Fatalf("Incr of a persistent counter: %d, ttl %v", n, h.ttl("p"))
	}
	// An expired counter is absent: created anew, with the new ttl.
	h.set("e", "100", expireSoon)
	h.waitExpiry()
	if n := incr("e", 1, time.Hour); n != 1 || !h.within(h.ttl("e"), time.Hour, time.Minute) {
		t.Fatalf("Incr of an expired counter: %d, ttl %v", n, h.ttl("e"))
	}
	if n := incr("z", 0, 0); n != 0 || h.value("z") != "0" {
		t.Fatalf("Incr by 0 of a missing key: %d, %q", n, h.value("z"))
	}

	// Only canonical decimal integers count; the value stays as it was.
	for _, v := range []string{"abc", "", " 1", "1 ", "+1", "01", "-0", "1.5", "0x10", "9223372036854775808", compressible(2000)} {
		h.set("s", v, 0)
		if _, err := h.e.Incr("s", 1, 0); !errors.Is(err, kv.ErrNotInteger) || h.value("s") != v {
			t.Fatalf("Incr of %.20q: %v, value now %.20q", v, err, h.value("s"))
		}
	}
	// The int64 range is honoured to its edges and refused past them.
	h.set("max", strconv.FormatInt(math.MaxInt64-1, 10), 0)
	if n := incr("max", 1, 0); n != math.MaxInt64 {
		t.Fatalf("Incr to MaxInt64: %d", n)
	}
	if _, err := h.e.Incr("max", 1, 0); !errors.Is(err, kv.ErrOverflow) || h.value("max") != strconv.FormatInt(math.MaxInt64, 10) {
		t.Fatalf("Incr past MaxInt64: %v, value %q", err, h.value("max"))
	}
	h.set("min", strconv.FormatInt(math.MinInt64+1, 10), 0)
	if n := incr("min", -1, 0); n != math.MinInt64 {
		t.Fatalf("Incr to MinInt64: %d", n)
	}
	if _, err := h.e.Incr("min", -1, 0); !errors.Is(err, kv.ErrOverflow) || h.value("min") != strconv.FormatInt(math.MinInt64, 10) {
		t.Fatalf("Incr past MinInt64: %v, value %q", err, h.value("min"))
	}
	if n := incr("big", math.MaxInt64, 0); n != math.MaxInt64 {
		t.Fatalf("Incr by MaxInt64 of a missing key: %d", n)
	}
	if _, err := h.e.Incr("big", math.MaxInt64, 0); !errors.Is(err, kv.ErrOverflow) {
		t.Fatalf("Incr by MaxInt64 of MaxInt64: %v", err)
	}
	if n := incr("small", math.MinInt64, 0); n != math.MinInt64 {
		t.Fatalf("Incr by MinInt64 of a missing key: %d", n)
	}
}

// checkFences checks the fences: one increasing counter across names (per hash
// tag on a cluster); Fence per resource.
func checkFences(h *harness) {
	t := h.t
	fenced := func(key string) (int64, bool) {
		t.Helper()
		f, ok, err := h.e.SetNXFenced(key, []byte("tok"), time.Minute)
		h.noErr("SetNXFenced "+key, err)
		return f, ok
	}
	var last int64
	a := h.target.fenceName("a")
	for i, key := range []string{"a", "b", "c", "a2"} {
		key = h.target.fenceName(key)
		f, ok := fenced(key)
		if !ok || f <= last || h.value(key) != "tok" || !h.within(h.ttl(key), time.Minute, time.Minute) {
			t.Fatalf("acquisition %d (%s): fence %d after %d, acquired %v", i, key, f, last, ok)
		}
		last = f
	}
	if f, ok := fenced(a); ok || f != 0 {
		t.Fatalf("SetNXFenced of a held lock: fence %d, acquired %v", f, ok)
	}
	// A held lock issued no fence: the next one is still the next.
	if _, err := h.e.Del(a); err != nil {
		t.Fatal(err)
	}
	if f, ok := fenced(a); !ok || f <= last {
		t.Fatalf("re-acquired: fence %d after %d", f, last)
	}

	fence := func(resource string, f int64) bool {
		t.Helper()
		ok, err := h.e.Fence(resource, f)
		h.noErr("Fence", err)
		return ok
	}
	cases := []struct {
		resource string
		fence    int64
		fresh    bool
	}{
		{"db", 10, true},
		{"db", 10, true}, // at least the highest: the same holder writes again
		{"db", 9, false},
		{"db", 11, true},
		{"db", 10, false},
		{"queue", 5, true}, // per resource
		{"db", 11, true},
		{"queue", 4, false},
		// The whole int64 range, no wrap: below zero, then the top.
		{"edge", -5, true},
		{"edge", math.MinInt64, false},
		{"edge", 0, true},
		{"edge", math.MaxInt64, true},
		{"edge", math.MaxInt64, true},
		{"edge", math.MinInt64, false},
		// Negative fences of one length compare by value, not as text.
		{"neg", -3, true},
		{"neg", -5, false},
		{"neg", -2, true},
		{"neg", -3, false},
		{"neg", 2, true},
		{"neg", -9, false},
	}
	for i, c := range cases {
		if got := fence(c.resource, c.fence); got != c.fresh {
			t.Fatalf("step %d: Fence(%s, %d) = %v, want %v", i, c.resource, c.fence, got, c.fresh)
		}
	}
	// Fence records are not keys.
	if h.exists("db") || h.exists("queue") {
		t.Fatal("a fence record is visible as a key")
	}
	h.set("db", "v", 0)
	if !fence("db", 12) || fence("db", 11) || h.value("db") != "v" {
		t.Fatalf("a key named like a resource changed its fences, or the reverse: %q", h.value("db"))
	}
}
