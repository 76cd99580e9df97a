package shm

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// TestLeaseRepairAfterDeathAtEveryStep stops each lease and rate-limit
// operation at every crash point it reaches, as a process dying there
// would; the next locker repairs the stripe: Verify is clean, the key
// holds the set (or log) from before the operation or after it, and the
// other keys are untouched.
func TestLeaseRepairAfterDeathAtEveryStep(t *testing.T) {
	dead := deadOwner(t)
	holds := func(e *Engine, tok string) bool {
		ok, _ := e.LeaseRenew("k", []byte(tok), time.Minute)
		return ok
	}
	cnt := func(e *Engine) int64 { n, _ := e.LeaseCount("k"); return n }
	// admits is how many more calls the log admits under limit.
	admits := func(e *Engine, limit int64) int64 {
		n := int64(0)
		for ; ; n++ {
			ok, _, _, err := e.RateLimit("k", limit, time.Minute)
			if err != nil || !ok {
				return n
			}
		}
	}
	in := func(v int64, want ...int64) error {
		if !slices.Contains(want, v) {
			return fmt.Errorf("%d, want one of %v", v, want)
		}
		return nil
	}
	type scenario struct {
		name    string
		prepare func(e *Engine)
		op      func(e *Engine)
		check   func(e *Engine) error
	}
	acq := func(tok string, mode kv.LeaseMode, ttl time.Duration) func(e *Engine) {
		return func(e *Engine) { e.LeaseAcquire("k", []byte(tok), mode, 3, ttl, 0) }
	}
	none := func(e *Engine) {}
	scenarios := []scenario{
		{"acquire-first", none, acq("a", kv.LeaseExclusive, time.Minute), func(e *Engine) error { return in(cnt(e), 0, 1) }},
		{"acquire-second", acq("a", kv.LeaseShared, time.Minute), acq("b", kv.LeaseShared, time.Minute), func(e *Engine) error {
			if !holds(e, "a") {
				return fmt.Errorf("a lost its lease")
			}
			return in(cnt(e), 1, 2)
		}},
		{"acquire-intent", acq("a", kv.LeaseShared, time.Minute), func(e *Engine) {
			e.LeaseAcquire("k", []byte("w"), kv.LeaseExclusive, 0, time.Minute, time.Minute)
		}, func(e *Engine) error {
			if !holds(e, "a") {
				return fmt.Errorf("a lost its lease")
			}
			return in(cnt(e), 1)
		}},
		{"promote", acq("a", kv.LeaseShared, time.Minute), acq("a", kv.LeaseExclusive, time.Minute), func(e *Engine) error {
			if !holds(e, "a") {
				return fmt.Errorf("a lost its lease")
			}
			return in(cnt(e), 1)
		}},
		{"release-in-place", func(e *Engine) { acq("a", kv.LeaseShared, time.Minute)(e); acq("b", kv.LeaseShared, time.Minute)(e) },
			func(e *Engine) { e.LeaseRelease("k", []byte("a")) }, func(e *Engine) error {
				if !holds(e, "b") {
					return fmt.Errorf("b lost its lease")
				}
				return in(cnt(e), 1, 2)
			}},
		{"release-last", acq("a", kv.LeaseShared, time.Minute), func(e *Engine) { e.LeaseRelease("k", []byte("a")) },
			func(e *Engine) error { return in(cnt(e), 0, 1) }},
		{"renew-longer", acq("a", kv.LeasePermit, time.Minute), func(e *Engine) { e.LeaseRenew("k", []byte("a"), time.Hour) },
			func(e *Engine) error {
				if d, _ := e.TTL("k"); d < 59*time.Second {
					return fmt.Errorf("the key's ttl %v fell below its entry's", d)
				}
				return in(cnt(e), 1)
			}},
		{"renew-shorter", acq("a", kv.LeasePermit, time.Hour), func(e *Engine) { e.LeaseRenew("k", []byte("a"), time.Minute) },
			func(e *Engine) error { return in(cnt(e), 1) }},
		{"acquire-over-expired", acq("a", kv.LeaseExclusive, time.Nanosecond), acq("b", kv.LeaseExclusive, time.Minute),
			func(e *Engine) error { return in(cnt(e), 0, 1) }},
		{"rate-create", none, func(e *Engine) { e.RateLimit("k", 3, time.Minute) }, func(e *Engine) error { return in(admits(e, 3), 2, 3) }},
		{"rate-in-place", func(e *Engine) { e.RateLimit("k", 3, time.Minute) }, func(e *Engine) { e.RateLimit("k", 3, time.Minute) },
			func(e *Engine) error { return in(admits(e, 3), 1, 2) }},
		{"rate-new-limit", func(e *Engine) { e.RateLimit("k", 3, time.Minute) }, func(e *Engine) { e.RateLimit("k", 5, time.Minute) },
			func(e *Engine) error { return in(admits(e, 5), 3, 4) }},
	}
	points := map[int]string{crashWritten: "written", crashPublished: "published", crashUnlinked: "unlinked",
		crashMarkedFree: "marked-free", crashPushed: "pushed", crashPopped: "popped", crashClaimed: "claimed",
		crashInPlace: "in-place"}
	runs := map[string]int{}
	for _, sc := range scenarios {
		for point, pname := range points {
			t.Run(sc.name+"/"+pname, func(t *testing.T) {
				e := newTestEngine(t, 1<<20, Config{})
				e.Set("other", []byte("kept"), 0)
				e.LeaseAcquire("other-set", []byte("x"), kv.LeaseShared, 0, time.Minute, 0)
				sc.prepare(e)
				time.Sleep(time.Microsecond)
				mustVerify(t, e)
				if !crashAt(t, e, "k", point, 1, dead, func() { sc.op(e) }) {
					t.Skip("the op does not reach this point")
				}
				runs[sc.name]++
				mustVerify(t, e)
				mustCoverEntries(t, e, "k")
				mustCoverEntries(t, e, "other-set")
				if err := sc.check(e); err != nil {
					t.Fatal(err)
				}
				if v, _ := get(t, e, "other"); v != "kept" {
					t.Fatalf("other = %q", v)
				}
				if n, _ := e.LeaseCount("other-set"); n != 1 {
					t.Fatalf("other-set has %d holders", n)
				}
				mustVerify(t, e)
			})
		}
	}
	for _, sc := range scenarios {
		if runs[sc.name] == 0 {
			t.Errorf("%s: no crash point reached", sc.name)
		}
	}
}

// mustCoverEntries fails when an entry of key's lease set expires after the
// key: the lease ops never leave that, even when killed midway (moveExpiry
// raises the deadline first, lowers it last).
func mustCoverEntries(t *testing.T, e *Engine, key string) {
	t.Helper()
	b, h := e.locate(key)
	st, _ := e.lockStripe(b & e.stripeMask)
	_, off := e.find(b, h, key, kindUser)
	problem := ""
	if off != 0 {
		if r := e.rec(off); r.flags&flagLease != 0 && e.tailFits(off, r) {
			problem = e.leaseDeadlineProblem(off, r)
		}
	}
	e.unlock(st, false)
	if problem != "" {
		t.Fatalf("%s: %s", key, problem)
	}
}
