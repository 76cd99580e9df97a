package kvtest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// The kv.Leases checks: read/write locks and semaphores on one key, each
// holder a token with its own expiry and fence.

const (
	shared    = kv.LeaseShared
	exclusive = kv.LeaseExclusive
	permit    = kv.LeasePermit
)

// leaseHarness is a harness whose engine implements kv.Leases.
type leaseHarness struct {
	*harness
	l kv.Leases
}

func leases(h *harness) *leaseHarness { return &leaseHarness{h, h.e} }

// short is a lease ttl to wait out; a holder under it may already be gone
// when the machine stalls, so checks that need it live use fresh().
func (h *leaseHarness) short() time.Duration { return max(80*time.Millisecond, h.target.TTLResolution) }

// waitShort sleeps until a lease of short() taken before has expired.
func (h *leaseHarness) waitShort() {
	s := h.short()
	time.Sleep(s + s/2 + h.target.TTLResolution + h.target.ExpiryLag)
}

// fresh reports whether a lease of short() taken at start is surely still live.
func (h *leaseHarness) fresh(start time.Time) bool { return time.Since(start) < h.short()/2 }

func (h *leaseHarness) acquire(key, token string, mode kv.LeaseMode, limit int64, ttl, intent time.Duration) (int64, bool) {
	h.t.Helper()
	f, ok, err := h.l.LeaseAcquire(key, []byte(token), mode, limit, ttl, intent)
	h.noErr(fmt.Sprintf("LeaseAcquire %s by %s in mode %d", key, token, mode), err)
	return f, ok
}

// grant acquires for a minute and fails unless granted.
func (h *leaseHarness) grant(key, token string, mode kv.LeaseMode, limit int64) int64 {
	h.t.Helper()
	f, ok := h.acquire(key, token, mode, limit, time.Minute, 0)
	if !ok {
		h.t.Fatalf("LeaseAcquire %s by %s in mode %d (limit %d): refused, want granted", key, token, mode, limit)
	}
	if f <= 0 {
		h.t.Fatalf("LeaseAcquire %s by %s: granted with fence %d", key, token, f)
	}
	return f
}

// refuse acquires for a minute (with intent) and fails unless refused.
func (h *leaseHarness) refuse(key, token string, mode kv.LeaseMode, limit int64, intent time.Duration) {
	h.t.Helper()
	if _, ok := h.acquire(key, token, mode, limit, time.Minute, intent); ok {
		h.t.Fatalf("LeaseAcquire %s by %s in mode %d (limit %d): granted, want refused", key, token, mode, limit)
	}
}

func (h *leaseHarness) release(key, token string) bool {
	h.t.Helper()
	ok, err := h.l.LeaseRelease(key, []byte(token))
	h.noErr("LeaseRelease "+key+" by "+token, err)
	return ok
}

func (h *leaseHarness) renew(key, token string, ttl time.Duration) bool {
	h.t.Helper()
	ok, err := h.l.LeaseRenew(key, []byte(token), ttl)
	h.noErr("LeaseRenew "+key+" by "+token, err)
	return ok
}

func (h *leaseHarness) count(key string) int64 {
	h.t.Helper()
	n, err := h.l.LeaseCount(key)
	h.noErr("LeaseCount "+key, err)
	return n
}

func (h *leaseHarness) wantCount(key string, want int64) {
	h.t.Helper()
	if n := h.count(key); n != want {
		h.t.Fatalf("LeaseCount %s = %d, want %d", key, n, want)
	}
}

// Readers share; a writer excludes readers and writers; a reader blocks a
// writer; a release lets the next one in.
func checkLeaseReadWrite(h0 *harness) {
	h := leases(h0)
	t := h.t
	h.grant("rw", "r1", shared, 0)
	h.grant("rw", "r2", shared, 0)
	h.wantCount("rw", 2)
	h.refuse("rw", "w1", exclusive, 0, 0)
	if !h.release("rw", "r1") {
		t.Fatal("r1's release: false")
	}
	h.refuse("rw", "w1", exclusive, 0, 0) // r2 still reads
	if !h.release("rw", "r2") {
		t.Fatal("r2's release: false")
	}
	h.wantCount("rw", 0)
	h.grant("rw", "w1", exclusive, 0)
	h.refuse("rw", "w2", exclusive, 0, 0)
	h.refuse("rw", "r3", shared, 0, 0)
	h.wantCount("rw", 1)
	if !h.release("rw", "w1") {
		t.Fatal("w1's release: false")
	}
	h.grant("rw", "r3", shared, 0)
	h.wantCount("rw", 1)
}

// A refused writer's intent blocks new readers (holders still renew) until
// the writer gets in, releases its intent, or the intent expires (at most
// ttl after it was recorded).
func checkLeaseIntent(h0 *harness) {
	h := leases(h0)
	t := h.t
	h.grant("i", "r1", shared, 0)
	h.refuse("i", "w", exclusive, 0, time.Minute)
	h.refuse("i", "r2", shared, 0, 0)
	if _, ok := h.acquire("i", "r1", shared, 0, time.Minute, 0); !ok {
		t.Fatal("a reader's re-acquire under a writer's intent: refused")
	}
	if !h.renew("i", "r1", time.Minute) {
		t.Fatal("a reader's renew under a writer's intent: false")
	}
	h.wantCount("i", 1) // an intent is no holder
	if h.renew("i", "w", time.Minute) {
		t.Fatal("LeaseRenew of an intent: true")
	}
	// Released: false (no lease was held), but the intent is gone.
	if h.release("i", "w") {
		t.Fatal("LeaseRelease of an intent: true")
	}
	h.grant("i", "r2", shared, 0)

	// The grant replaces the intent: once the writer is done, readers come in.
	h.refuse("i", "w", exclusive, 0, time.Minute)
	h.refuse("i", "r3", shared, 0, 0)
	h.release("i", "r1")
	h.release("i", "r2")
	h.grant("i", "w", exclusive, 0)
	if !h.release("i", "w") {
		t.Fatal("the writer's release: false")
	}
	h.grant("i", "r3", shared, 0)
	h.release("i", "r3")

	// An intent expires, and never later than its ttl: intent 1 min with a
	// short ttl lasts the short ttl.
	h.grant("i2", "r1", shared, 0)
	start := time.Now()
	if _, ok := h.acquire("i2", "w", exclusive, 0, h.short(), time.Minute); ok {
		t.Fatal("a writer under a reader: granted")
	}
	if _, ok := h.acquire("i2", "r2", shared, 0, time.Minute, 0); ok && h.fresh(start) {
		t.Fatal("a reader under a live intent: granted")
	}
	h.waitShort()
	h.grant("i2", "r2", shared, 0)
	h.wantCount("i2", 2)
}

// Promotion (shared to exclusive) only as the sole holder; demotion always;
// both keep the fence. A refused promotion keeps the read lease.
func checkLeaseModeChange(h0 *harness) {
	h := leases(h0)
	t := h.t
	fa := h.grant("m", "a", shared, 0)
	h.grant("m", "b", shared, 0)
	h.refuse("m", "a", exclusive, 0, 0)
	h.wantCount("m", 2)
	if !h.renew("m", "a", time.Minute) {
		t.Fatal("a refused promotion lost the read lease")
	}
	h.release("m", "b")
	if f := h.grant("m", "a", exclusive, 0); f != fa {
		t.Fatalf("promotion: fence %d, want the lease's %d", f, fa)
	}
	h.refuse("m", "c", shared, 0, 0)
	if f := h.grant("m", "a", shared, 0); f != fa {
		t.Fatalf("demotion: fence %d, want the lease's %d", f, fa)
	}
	h.grant("m", "c", shared, 0)
	h.wantCount("m", 2)
	h.refuse("m", "a", exclusive, 0, 0)
}

// A semaphore of n grants n permits, refuses the next, and a release (or a
// holder's expiry) frees one. A holder's re-acquire is a renewal, granted
// even when all permits are out.
func checkLeaseSemaphore(h0 *harness) {
	h := leases(h0)
	t := h.t
	const n = 3
	for i := range n {
		h.grant("sem", fmt.Sprint("t", i), permit, n)
	}
	h.refuse("sem", "t3", permit, n, 0)
	h.wantCount("sem", n)
	if _, ok := h.acquire("sem", "t1", permit, n, time.Minute, 0); !ok {
		t.Fatal("a permit holder's re-acquire when all permits are out: refused")
	}
	if !h.release("sem", "t1") {
		t.Fatal("t1's release: false")
	}
	h.grant("sem", "t3", permit, n)
	h.refuse("sem", "t4", permit, n, 0)
	h.wantCount("sem", n)
	// A permit of 1 is a mutex.
	h.grant("mutex", "a", permit, 1)
	h.refuse("mutex", "b", permit, 1, 0)
}

// Expired holders and intents free their place, and the key goes once
// every holder has expired.
func checkLeaseExpiry(h0 *harness) {
	h := leases(h0)
	t := h.t
	start := time.Now()
	for _, tok := range []string{"a", "b"} {
		if _, ok := h.acquire("x", tok, permit, 2, h.short(), 0); !ok {
			t.Fatalf("%s: refused a free permit", tok)
		}
	}
	if _, ok := h.acquire("x", "c", permit, 2, h.short(), 0); ok && h.fresh(start) {
		t.Fatal("a third permit of 2: granted")
	}
	start = time.Now()
	if _, ok := h.acquire("y", "r", shared, 0, h.short(), 0); !ok {
		t.Fatal("a reader of a free key: refused")
	}
	if _, ok := h.acquire("y", "w", exclusive, 0, h.short(), 0); ok && h.fresh(start) {
		t.Fatal("a writer under a reader: granted")
	}
	if _, ok := h.acquire("z", "a", shared, 0, h.short(), 0); !ok {
		t.Fatal("z: refused")
	}
	if _, ok := h.acquire("z", "b", shared, 0, h.short(), 0); !ok {
		t.Fatal("z: refused")
	}
	h.waitShort()
	h.wantCount("x", 0)
	h.grant("x", "c", permit, 2)
	h.grant("x", "d", permit, 2)
	h.wantCount("x", 2)
	h.grant("y", "w", exclusive, 0)
	if h.exists("z") {
		t.Fatal("a key whose holders all expired still exists")
	}
	if h.renew("z", "a", time.Minute) || h.release("z", "b") {
		t.Fatal("an expired holder renewed or released its lease")
	}
}

// Re-acquire and LeaseRenew extend a holder's lease and keep its fence;
// LeaseRenew is false for a token that holds nothing, and after expiry.
func checkLeaseRenew(h0 *harness) {
	h := leases(h0)
	t := h.t
	start := time.Now()
	f, ok := h.acquire("r", "a", exclusive, 0, h.short(), 0)
	if !ok {
		t.Fatal("a writer of a free key: refused")
	}
	if g, ok := h.acquire("r", "a", exclusive, 0, time.Minute, 0); !ok || g != f && h.fresh(start) {
		t.Fatalf("re-acquire: granted %v, fence %d, want the first's %d", ok, g, f)
	}
	h.waitShort()
	h.refuse("r", "b", exclusive, 0, 0) // renewed past short
	if h.renew("r", "b", time.Minute) {
		t.Fatal("LeaseRenew by a token that holds nothing: true")
	}
	// Renewing to a short ttl shortens the lease too.
	if !h.renew("r", "a", h.short()) {
		t.Fatal("LeaseRenew by the holder: false")
	}
	h.waitShort()
	if h.renew("r", "a", time.Minute) {
		t.Fatal("LeaseRenew of an expired lease: true")
	}
	if g := h.grant("r", "b", exclusive, 0); g <= f {
		t.Fatalf("the next holder's fence %d is not above the expired one's %d", g, f)
	}
	if h.renew("absent", "a", time.Minute) {
		t.Fatal("LeaseRenew of a missing key: true")
	}
}

// The key goes with its last live entry even when that entry was renewed
// to a shorter ttl than it was granted: a plain SetNX (a Symfony writer on
// the same name) is not refused for the longer ttl nobody holds any more.
func checkLeaseShortenedKeyGoes(h0 *harness) {
	h := leases(h0)
	t := h.t
	h.grant("s", "a", shared, 0)
	if !h.renew("s", "a", h.short()) {
		t.Fatal("LeaseRenew by the holder: false")
	}
	h.waitShort()
	h.wantCount("s", 0)
	if d := h.ttl("s"); d != kv.TTLMissing {
		t.Fatalf("TTL of a lease key whose only holder, renewed from 1 min to %v, expired: %v, want kv.TTLMissing", h.short(), d)
	}
	if ok, err := h.e.SetNX("s", []byte("w"), time.Minute); err != nil || !ok {
		t.Fatalf("SetNX of a lease key whose only holder expired: %v, %v, want granted", ok, err)
	}
	// Likewise after the longer holder released, and after a re-acquire
	// (a renewal) to a shorter ttl.
	h.grant("r", "long", shared, 0)
	if _, ok := h.acquire("r", "short", shared, 0, h.short(), 0); !ok {
		t.Fatal("a second reader: refused")
	}
	h.grant("q", "a", exclusive, 0)
	if _, ok := h.acquire("q", "a", exclusive, 0, h.short(), 0); !ok {
		t.Fatal("a re-acquire by the holder: refused")
	}
	if !h.release("r", "long") {
		t.Fatal("LeaseRelease by the longer holder: false")
	}
	h.waitShort()
	for _, key := range []string{"r", "q"} {
		if d := h.ttl(key); d != kv.TTLMissing {
			t.Fatalf("TTL of lease key %s, its 1 min holder gone (released, or re-acquired for %v) and its short one expired: %v, want kv.TTLMissing", key, h.short(), d)
		}
	}
}

// Every grant takes a fence from the counter SetNXFenced uses: above one
// taken before, below one taken after, strictly increasing.
func checkLeaseFences(h0 *harness) {
	h := leases(h0)
	t := h.t
	name := h.target.fenceName
	before, ok, err := h.e.SetNXFenced(name("lock"), []byte("t"), time.Minute)
	if err != nil || !ok {
		t.Fatalf("SetNXFenced: %v, %v", ok, err)
	}
	last := before
	next := func(f int64, what string) {
		t.Helper()
		if f <= last {
			t.Fatalf("%s: fence %d is not above the one before, %d", what, f, last)
		}
		last = f
	}
	next(h.grant(name("f"), "r1", shared, 0), "first reader")
	next(h.grant(name("f"), "r2", shared, 0), "second reader")
	next(h.grant(name("g"), "p1", permit, 2), "a permit")
	next(h.grant(name("g"), "p2", permit, 2), "another permit")
	h.release(name("f"), "r1")
	h.release(name("f"), "r2")
	next(h.grant(name("f"), "w", exclusive, 0), "the writer after")
	after, ok, err := h.e.SetNXFenced(name("lock2"), []byte("t"), time.Minute)
	if err != nil || !ok {
		t.Fatalf("SetNXFenced: %v, %v", ok, err)
	}
	next(after, "SetNXFenced after the leases")
}

// LeaseRelease frees only its own token's lease, once; LeaseCount counts
// the live holders; the key goes with its last holder. Plain Del, Get and
// TTL treat a lease key as any key.
func checkLeaseRelease(h0 *harness) {
	h := leases(h0)
	t := h.t
	if h.release("none", "a") {
		t.Fatal("LeaseRelease of a missing key: true")
	}
	h.wantCount("none", 0)
	h.grant("k", "a", shared, 0)
	h.grant("k", "b", shared, 0)
	if h.release("k", "c") {
		t.Fatal("LeaseRelease by a token that holds nothing: true")
	}
	h.wantCount("k", 2)
	if !h.release("k", "a") || h.release("k", "a") {
		t.Fatal("a's release: want true once, then false")
	}
	h.wantCount("k", 1)
	if !h.renew("k", "b", time.Minute) {
		t.Fatal("a's release freed b's lease")
	}
	if !h.exists("k") {
		t.Fatal("a lease key with a holder does not exist")
	}
	if !h.release("k", "b") {
		t.Fatal("b's release: false")
	}
	if h.exists("k") {
		t.Fatal("a lease key without holders exists")
	}

	// Plain ops: TTL is the latest holder's, Get finds it, Del frees all.
	start := time.Now()
	h.grant("p", "a", shared, 0)
	if _, ok := h.acquire("p", "b", shared, 0, 2*time.Minute, 0); !ok {
		t.Fatal("b: refused")
	}
	if d := h.ttl("p"); !h.within(d, 2*time.Minute, time.Since(start)) {
		t.Fatalf("TTL of a lease key: %v, want the latest holder's 2 min", d)
	}
	if _, ok := h.get("p"); !ok {
		t.Fatal("Get of a lease key: not found")
	}
	if ok, err := h.e.Del("p"); err != nil || !ok {
		t.Fatalf("Del of a lease key: %v, %v", ok, err)
	}
	h.wantCount("p", 0)
	h.grant("p", "c", exclusive, 0)
}

// Bad arguments are refused with kv.ErrBadArgument or kv.ErrBadTTL, and leave
// nothing behind.
func checkLeaseBadArgs(h0 *harness) {
	h := leases(h0)
	t := h.t
	long := strings.Repeat("t", kv.MaxLeaseToken+1)
	ok64 := strings.Repeat("t", kv.MaxLeaseToken)
	cases := []struct {
		name   string
		token  string
		mode   kv.LeaseMode
		limit  int64
		ttl    time.Duration
		intent time.Duration
		want   error
	}{
		{"empty token", "", shared, 0, time.Minute, 0, kv.ErrBadArgument},
		{"long token", long, shared, 0, time.Minute, 0, kv.ErrBadArgument},
		{"mode 0", "t", 0, 1, time.Minute, 0, kv.ErrBadArgument},
		{"mode 4", "t", permit + 1, 1, time.Minute, 0, kv.ErrBadArgument},
		{"0 permits", "t", permit, 0, time.Minute, 0, kv.ErrBadArgument},
		{"-1 permits", "t", permit, -1, time.Minute, 0, kv.ErrBadArgument},
		{"too many permits", "t", permit, kv.MaxLeaseHolders + 1, time.Minute, 0, kv.ErrBadArgument},
		{"ttl 0", "t", shared, 0, 0, 0, kv.ErrBadTTL},
		{"ttl -1", "t", exclusive, 0, -1, 0, kv.ErrBadTTL},
		{"ttl past MaxTTL", "t", permit, 1, kv.MaxTTL + 1, 0, kv.ErrBadTTL},
		{"intent -1", "t", exclusive, 0, time.Minute, -1, kv.ErrBadTTL},
		{"intent past MaxTTL", "t", exclusive, 0, time.Minute, kv.MaxTTL + 1, kv.ErrBadTTL},
	}
	for _, c := range cases {
		if _, ok, err := h.l.LeaseAcquire("bad", []byte(c.token), c.mode, c.limit, c.ttl, c.intent); !errors.Is(err, c.want) || ok {
			t.Errorf("LeaseAcquire with %s: %v, %v; want %v", c.name, ok, err, c.want)
		}
	}
	for _, tok := range []string{"", long} {
		if _, err := h.l.LeaseRelease("bad", []byte(tok)); !errors.Is(err, kv.ErrBadArgument) {
			t.Errorf("LeaseRelease with a %d-byte token: %v", len(tok), err)
		}
		if _, err := h.l.LeaseRenew("bad", []byte(tok), time.Minute); !errors.Is(err, kv.ErrBadArgument) {
			t.Errorf("LeaseRenew with a %d-byte token: %v", len(tok), err)
		}
	}
	for _, ttl := range []time.Duration{0, -1, kv.MaxTTL + 1} {
		if _, err := h.l.LeaseRenew("bad", []byte("t"), ttl); !errors.Is(err, kv.ErrBadTTL) {
			t.Errorf("LeaseRenew with ttl %d ns: %v", int64(ttl), err)
		}
	}
	if _, _, err := h.l.LeaseAcquire("", []byte("t"), shared, 0, time.Minute, 0); !errors.Is(err, kv.ErrEmptyKey) {
		t.Errorf("LeaseAcquire of the empty key: %v", err)
	}
	if h.exists("bad") {
		t.Fatal("a refused LeaseAcquire left the key behind")
	}
	// The edges are accepted: a 64-byte token, MaxLeaseHolders permits,
	// MaxTTL, an intent longer than the ttl.
	h.grant("good", ok64, permit, kv.MaxLeaseHolders)
	if _, ok := h.acquire("good2", "t", exclusive, 0, kv.MaxTTL, kv.MaxTTL); !ok {
		t.Fatal("a lease of MaxTTL: refused")
	}
}

// A key that holds a plain value (or the other family's record) is
// kv.ErrWrongType to every lease and rate-limit op, and stays as it was.
func checkLeaseWrongType(h0 *harness) {
	h := leases(h0)
	t := h.t
	tok := []byte("t")
	ops := map[string]func(key string) error{
		"LeaseAcquire shared": func(k string) error {
			_, _, err := h.l.LeaseAcquire(k, tok, shared, 0, time.Minute, 0)
			return err
		},
		"LeaseAcquire exclusive with intent": func(k string) error {
			_, _, err := h.l.LeaseAcquire(k, tok, exclusive, 0, time.Minute, time.Minute)
			return err
		},
		"LeaseAcquire permit": func(k string) error {
			_, _, err := h.l.LeaseAcquire(k, tok, permit, 3, time.Minute, 0)
			return err
		},
		"LeaseRelease": func(k string) error { _, err := h.l.LeaseRelease(k, tok); return err },
		"LeaseRenew":   func(k string) error { _, err := h.l.LeaseRenew(k, tok, time.Minute); return err },
		"LeaseCount":   func(k string) error { _, err := h.l.LeaseCount(k); return err },
		"LeaseTTL":     func(k string) error { _, err := h.l.LeaseTTL(k, tok); return err },
	}
	rl := h.e
	ops["RateLimit"] = func(k string) error { _, _, _, err := rl.RateLimit(k, 5, time.Minute); return err }
	// The other family's keys, each refused by the other.
	if _, _, _, err := rl.RateLimit("rate", 5, time.Minute); err != nil {
		t.Fatalf("RateLimit: %v", err)
	}
	h.grant("lease", "a", shared, 0)
	for name, op := range ops {
		key := "rate" // a lease op on the rate-limit key
		if name == "RateLimit" {
			key = "lease"
		}
		if err := op(key); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("%s of the other family's key %q: %v, want kv.ErrWrongType", name, key, err)
		}
	}
	h.wantCount("lease", 1)
	if allowed, remaining, _, err := rl.RateLimit("rate", 5, time.Minute); err != nil || !allowed || remaining != 3 {
		t.Errorf("the rate-limit key after the lease ops: %v, %d left, %v; want allowed, 3 left", allowed, remaining, err)
	}
	start := time.Now()
	for _, v := range []string{"plain", "", "12", compressible(2000)} {
		h.set("v", v, time.Minute)
		for name, op := range ops {
			if err := op("v"); !errors.Is(err, kv.ErrWrongType) {
				t.Errorf("%s of a plain %d-byte value: %v, want kv.ErrWrongType", name, len(v), err)
			}
			if got, d := h.value("v"), h.ttl("v"); got != v || !h.within(d, time.Minute, time.Since(start)) {
				t.Fatalf("%s changed a plain value: %.20q, ttl %v", name, got, d)
			}
		}
		start = time.Now()
	}
	// An expired plain value is no value: the lease takes its place.
	h.set("old", "plain", expireSoon)
	h.waitExpiry()
	h.grant("old", "a", exclusive, 0)
}

// More than kv.MaxLeaseHolders holders of one key: kv.ErrFull (the
// in-process engines: kv.ErrTooManyHolders), never false.
func checkLeaseMaxHolders(h0 *harness) {
	h := leases(h0)
	t := h.t
	// A long ttl: on etcd the 1024 grants, one consensus round each, can take
	// tens of seconds on a loaded machine; none may expire before the check.
	const ttl = 10 * time.Minute
	for i := range kv.MaxLeaseHolders {
		if _, ok := h.acquire("many", fmt.Sprint("r", i), shared, 0, ttl, 0); !ok {
			t.Fatalf("reader %d: refused", i)
		}
	}
	_, ok, err := h.l.LeaseAcquire("many", []byte("one-too-many"), shared, 0, ttl, 0)
	if !errors.Is(err, kv.ErrFull) || ok {
		t.Fatalf("reader %d: %v, %v; want kv.ErrFull", kv.MaxLeaseHolders+1, ok, err)
	}
	h.wantCount("many", kv.MaxLeaseHolders)
	if _, ok := h.acquire("many", "r7", shared, 0, ttl, 0); !ok {
		t.Fatal("a holder's renewal at the bound: refused")
	}
	h.release("many", "r0")
	h.grant("many", "one-too-many", shared, 0)
}

// Workers on their own clients take permits of a semaphore of n: never
// more than n hold one at once, and every holder's release succeeds.
func checkLeaseSemaphoreConcurrent(h0 *harness) {
	h := leases(h0)
	const n, rounds = 3, 25
	var inside, most, overlaps atomic.Int32
	h.each(func(w int, e kv.Engine) error {
		l := e.(kv.Leases)
		token := []byte(fmt.Sprint("worker-", w))
		for got := 0; got < rounds; {
			_, ok, err := l.LeaseAcquire("sem", token, permit, n, time.Minute, 0)
			if err != nil {
				return err
			}
			if !ok {
				runtime.Gosched()
				continue
			}
			now := inside.Add(1)
			if now > n {
				overlaps.Add(1)
			}
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			time.Sleep(100 * time.Microsecond)
			inside.Add(-1)
			if ok, err := l.LeaseRelease("sem", token); err != nil || !ok {
				return fmt.Errorf("release of my permit: %v, %v", ok, err)
			}
			got++
		}
		return nil
	})
	if o := overlaps.Load(); o != 0 {
		h.t.Fatalf("%d times more than %d holders at once (at most %d)", o, n, most.Load())
	}
	h.t.Logf("at most %d of %d permits held at once", most.Load(), n)
	if h.exists("sem") {
		h.t.Fatal("the semaphore's key outlived its last holder")
	}
}

// A holder's change between modes other than a promotion is judged as a
// new holder of that mode would be against the others (writers' intents
// aside, as for a renewal), and keeps its fence: a reader turning permit
// counts the readers as permits out.
func checkLeaseModeMix(h0 *harness) {
	h := leases(h0)
	t := h.t
	fa := h.grant("mix", "a", shared, 0)
	h.grant("mix", "b", shared, 0)
	h.grant("mix", "c", shared, 0)
	h.refuse("mix", "a", permit, 2, 0) // b and c hold 2 already
	h.wantCount("mix", 3)
	if !h.renew("mix", "a", time.Minute) {
		t.Fatal("a refused change of mode lost the read lease")
	}
	if f := h.grant("mix", "a", permit, 3); f != fa {
		t.Fatalf("shared to permit: fence %d, want the lease's %d", f, fa)
	}
	h.refuse("mix", "d", permit, 3, 0)
	// A writer's intent keeps new readers out, not a holder turning reader.
	h.refuse("mix", "w", exclusive, 0, time.Minute)
	h.refuse("mix", "d", shared, 0, 0)
	if f := h.grant("mix", "a", shared, 0); f != fa {
		t.Fatalf("permit to shared under an intent: fence %d, want the lease's %d", f, fa)
	}
	h.wantCount("mix", 3)
}

// A permit never shares a key with another token's writer, however many
// permits are free: a writer's exclusivity holds against a semaphore on
// the same name. The writer itself may turn permit (a demotion, keeping
// its fence), and then it is one permit among the others.
func checkLeasePermitBesideWriter(h0 *harness) {
	h := leases(h0)
	t := h.t
	fw := h.grant("pw", "w", exclusive, 0)
	h.refuse("pw", "p1", permit, 5, 0)
	h.refuse("pw", "p1", permit, kv.MaxLeaseHolders, 0)
	h.refuse("pw", "r", shared, 0, 0)
	h.wantCount("pw", 1)
	if !h.renew("pw", "w", time.Minute) {
		t.Fatal("the writer lost its lease to a refused permit")
	}
	if h.release("pw", "p1") {
		t.Fatal("a refused permit was released: it was granted")
	}
	if f := h.grant("pw", "w", permit, 5); f != fw {
		t.Fatalf("the writer turning permit: fence %d, want the lease's %d", f, fw)
	}
	h.grant("pw", "p1", permit, 5)
	h.wantCount("pw", 2)
	h.refuse("pw", "w", exclusive, 0, 0) // p1 holds a permit now
	h.release("pw", "w")
	h.release("pw", "p1")

	// Once the writer is gone, the permits come in.
	h.grant("pw2", "w", exclusive, 0)
	h.refuse("pw2", "p1", permit, 2, 0)
	if !h.release("pw2", "w") {
		t.Fatal("the writer's release: false")
	}
	h.grant("pw2", "p1", permit, 2)
	h.grant("pw2", "p2", permit, 2)
	h.refuse("pw2", "w", exclusive, 0, 0)
	h.wantCount("pw2", 2)
}

// A plain Expire of a lease key sets its TTL as any key's: lease ops that
// write nothing (a count, a refusal) leave it, and when it runs out every
// holder goes with the key, as after a Del.
func checkLeaseKeyExpire(h0 *harness) {
	h := leases(h0)
	t := h.t
	expire := func(key string, ttl time.Duration) {
		t.Helper()
		if ok, err := h.e.Expire(key, ttl); err != nil || !ok {
			t.Fatalf("Expire of lease key %s: %v, %v", key, ok, err)
		}
	}
	start := time.Now()
	h.grant("e", "a", exclusive, 0)
	expire("e", 30*time.Second)
	h.wantCount("e", 1)
	h.refuse("e", "b", exclusive, 0, 0)
	h.refuse("e", "c", shared, 0, 0)
	if d := h.ttl("e"); !h.within(d, 30*time.Second, time.Since(start)) {
		t.Fatalf("TTL of a lease key after Expire 30 s, a count and refusals: %v", d)
	}
	h.grant("gone", "a", shared, 0)
	h.grant("gone", "b", shared, 0)
	expire("gone", h.short())
	h.waitShort()
	h.wantCount("gone", 0)
	if h.renew("gone", "a", time.Minute) {
		t.Fatal("a holder renewed its lease on a key that expired")
	}
	h.grant("gone", "w", exclusive, 0)

	// A lease write after a plain Persist or a shortening Expire makes the
	// key's expiry its latest entry's again: no holder is lost with the key
	// before its own expiry, and the key goes after the last.
	for _, ttl := range []time.Duration{0, 3 * h.short()} {
		key := fmt.Sprint("p", ttl)
		start := time.Now()
		h.grant(key, "a", shared, 0)
		if ok, err := h.e.Expire(key, ttl); err != nil || !ok {
			t.Fatalf("Expire of lease key %s to %v: %v, %v", key, ttl, ok, err)
		}
		if _, ok := h.acquire(key, "b", shared, 0, h.short(), 0); !ok {
			t.Fatalf("a reader of %s: refused", key)
		}
		if d := h.ttl(key); !h.within(d, time.Minute, time.Since(start)) {
			t.Fatalf("TTL of lease key %s after Expire %v and a grant: %v, want its latest holder's minute", key, ttl, d)
		}
	}
}

// Plain writes act on a lease key or rate log as on any key: Incr refuses
// it (not an integer) and leaves it, Set replaces it (the lease ops then
// refuse it), and after a Del no holder from before counts.
func checkLeasePlainWrites(h0 *harness) {
	h := leases(h0)
	t := h.t
	fa := h.grant("k", "a", shared, 0)
	h.grant("k", "b", shared, 0)
	if _, err := h.e.Incr("k", 1, 0); !errors.Is(err, kv.ErrNotInteger) {
		t.Fatalf("Incr of a lease key: %v, want kv.ErrNotInteger", err)
	}
	h.wantCount("k", 2)
	if _, _, _, err := h.e.RateLimit("r", 5, time.Minute); err != nil {
		t.Fatalf("RateLimit: %v", err)
	}
	if _, err := h.e.Incr("r", 1, 0); !errors.Is(err, kv.ErrNotInteger) {
		t.Fatalf("Incr of a rate-limit key: %v, want kv.ErrNotInteger", err)
	}
	if allowed, remaining, _, err := h.e.RateLimit("r", 5, time.Minute); err != nil || !allowed || remaining != 3 {
		t.Fatalf("the rate-limit key after Incr: %v, %d left, %v; want allowed, 3 left", allowed, remaining, err)
	}
	h.set("k", "plain", time.Minute)
	if _, _, err := h.l.LeaseAcquire("k", []byte("a"), shared, 0, time.Minute, 0); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("LeaseAcquire of a lease key Set over: %v, want kv.ErrWrongType", err)
	}
	if h.value("k") != "plain" {
		t.Fatal("a refused lease op changed the plain value")
	}
	if ok, err := h.e.Del("k"); err != nil || !ok {
		t.Fatalf("Del: %v, %v", ok, err)
	}
	h.wantCount("k", 0)
	if f := h.grant("k", "a", exclusive, 0); f <= fa {
		t.Fatalf("a's grant after the Del: fence %d, not above its lease's from before, %d", f, fa)
	}
	h.wantCount("k", 1)
	if h.release("k", "b") {
		t.Fatal("a holder from before the Set and Del released a lease")
	}
}

func (h *leaseHarness) leaseTTL(key, token string) time.Duration {
	h.t.Helper()
	d, err := h.l.LeaseTTL(key, []byte(token))
	h.noErr("LeaseTTL "+key+" by "+token, err)
	return d
}

// LeaseTTL is the time left of a holder's own lease, counting down (a
// read never extends it), and kv.TTLMissing for a token that holds no
// live lease: a non-holder, an intent, an expired or a released holder.
func checkLeaseTTL(h0 *harness) {
	h := leases(h0)
	t := h.t
	start := time.Now()
	h.grant("k", "a", shared, 0)
	if _, ok := h.acquire("k", "b", shared, 0, 2*time.Minute, 0); !ok {
		t.Fatal("b: refused")
	}
	da, db := h.leaseTTL("k", "a"), h.leaseTTL("k", "b")
	if !h.within(da, time.Minute, time.Since(start)) || !h.within(db, 2*time.Minute, time.Since(start)) {
		t.Fatalf("LeaseTTL of holders for 1 and 2 min: %v, %v", da, db)
	}
	for _, tok := range []string{"c", "ab", "A"} {
		if d := h.leaseTTL("k", tok); d != kv.TTLMissing {
			t.Fatalf("LeaseTTL by %q, who holds nothing: %v, want kv.TTLMissing", tok, d)
		}
	}
	if d := h.leaseTTL("absent", "a"); d != kv.TTLMissing {
		t.Fatalf("LeaseTTL of a missing key: %v", d)
	}
	// Counting down: reads do not renew (on etcd, whole seconds, so wait
	// past one).
	keyTTL := h.ttl("k")
	time.Sleep(h.target.TTLResolution + h.target.TTLResolution/10 + 20*time.Millisecond)
	for range 3 {
		h.leaseTTL("k", "a")
	}
	if d := h.leaseTTL("k", "a"); d >= da || d <= 0 {
		t.Fatalf("LeaseTTL read again later: %v, want below the first read's %v", d, da)
	}
	if d := h.ttl("k"); d >= keyTTL {
		t.Fatalf("the key's TTL went from %v to %v over LeaseTTL reads", keyTTL, d)
	}
	// A writer's intent is not a lease.
	h.refuse("k", "w", exclusive, 0, time.Minute)
	if d := h.leaseTTL("k", "w"); d != kv.TTLMissing {
		t.Fatalf("LeaseTTL of a writer's intent: %v, want kv.TTLMissing", d)
	}
	h.release("k", "w")
	if !h.release("k", "a") {
		t.Fatal("a's release: false")
	}
	if d := h.leaseTTL("k", "a"); d != kv.TTLMissing {
		t.Fatalf("LeaseTTL of a released holder: %v, want kv.TTLMissing", d)
	}
	if d := h.leaseTTL("k", "b"); !h.within(d, 2*time.Minute, time.Since(start)) {
		t.Fatalf("LeaseTTL of the holder left: %v", d)
	}
	// An expired holder beside a live one, and a key whose holders all
	// expired.
	start = time.Now()
	h.grant("e", "long", permit, 3)
	h.acquire("e", "short", permit, 3, h.short(), 0)
	h.acquire("f", "short", exclusive, 0, h.short(), 0)
	h.waitShort()
	if d, f := h.leaseTTL("e", "short"), h.leaseTTL("f", "short"); d != kv.TTLMissing || f != kv.TTLMissing {
		t.Fatalf("LeaseTTL of expired holders: %v, %v, want kv.TTLMissing", d, f)
	}
	if d := h.leaseTTL("e", "long"); !h.within(d, time.Minute, time.Since(start)) {
		t.Fatalf("LeaseTTL of the live holder beside an expired one: %v", d)
	}
	// A plain value is not a lease set; bad tokens are refused.
	h.set("v", "plain", time.Minute)
	if _, err := h.l.LeaseTTL("v", []byte("a")); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("LeaseTTL of a plain value: %v, want kv.ErrWrongType", err)
	}
	for _, tok := range [][]byte{nil, []byte(strings.Repeat("t", kv.MaxLeaseToken+1))} {
		if _, err := h.l.LeaseTTL("k", tok); !errors.Is(err, kv.ErrBadArgument) {
			t.Fatalf("LeaseTTL with a %d-byte token: %v, want kv.ErrBadArgument", len(tok), err)
		}
	}
}
