package shm

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

func acquire(t *testing.T, e *Engine, key, token string, mode kv.LeaseMode, limit int64, ttl, intent time.Duration) (int64, bool) {
	t.Helper()
	f, ok, err := e.LeaseAcquire(key, []byte(token), mode, limit, ttl, intent)
	if err != nil {
		t.Fatalf("LeaseAcquire(%s, %s): %v", key, token, err)
	}
	if ok != (f != 0) {
		t.Fatalf("LeaseAcquire(%s, %s): granted %v with fence %d", key, token, ok, f)
	}
	return f, ok
}

func count(t *testing.T, e *Engine, key string) int64 {
	t.Helper()
	n, err := e.LeaseCount(key)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func release(t *testing.T, e *Engine, key, token string) bool {
	t.Helper()
	ok, err := e.LeaseRelease(key, []byte(token))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestLeaseReadersAndWriter(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	before, _, _ := e.SetNXFenced("lock", []byte("x"), time.Minute)
	f1, ok1 := acquire(t, e, "rw", "r1", kv.LeaseShared, 0, time.Minute, 0)
	f2, ok2 := acquire(t, e, "rw", "r2", kv.LeaseShared, 0, time.Minute, 0)
	if !ok1 || !ok2 || f1 <= before || f2 <= f1 {
		t.Fatalf("readers: %v %v fences %d %d after a lock's %d", ok1, ok2, f1, f2, before)
	}
	if _, ok := acquire(t, e, "rw", "w", kv.LeaseExclusive, 0, time.Minute, 0); ok {
		t.Fatal("writer granted while readers hold")
	}
	if n := count(t, e, "rw"); n != 2 {
		t.Fatalf("count %d, want 2", n)
	}
	// A reader re-acquiring renews, keeping its fence.
	if f, ok := acquire(t, e, "rw", "r1", kv.LeaseShared, 0, time.Hour, 0); !ok || f != f1 {
		t.Fatalf("renew by re-acquire: %v fence %d, want %d", ok, f, f1)
	}
	if d, _ := e.TTL("rw"); d < 59*time.Minute {
		t.Fatalf("the key's ttl %v is not its latest entry's (1 h)", d)
	}
	if !release(t, e, "rw", "r1") || release(t, e, "rw", "r1") {
		t.Fatal("release r1: first must be true, second false")
	}
	if d, _ := e.TTL("rw"); d > time.Minute {
		t.Fatalf("the key's ttl %v outlived its released latest entry", d)
	}
	release(t, e, "rw", "r2")
	if ok, _ := e.Exists("rw"); ok {
		t.Fatal("the key outlived its last holder")
	}
	fw, ok := acquire(t, e, "rw", "w", kv.LeaseExclusive, 0, time.Minute, 0)
	if !ok || fw <= f2 {
		t.Fatalf("writer after the readers: %v fence %d", ok, fw)
	}
	if _, ok := acquire(t, e, "rw", "r3", kv.LeaseShared, 0, time.Minute, 0); ok {
		t.Fatal("reader granted while a writer holds")
	}
	if _, ok := acquire(t, e, "rw", "w2", kv.LeaseExclusive, 0, time.Minute, 0); ok {
		t.Fatal("second writer granted")
	}
	after, _, _ := e.SetNXFenced("lock2", []byte("x"), time.Minute)
	if after <= fw {
		t.Fatalf("a lock's fence %d after the writer's %d", after, fw)
	}
}

func TestLeaseWriterIntentKeepsNewReadersOut(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	f1, _ := acquire(t, e, "rw", "r1", kv.LeaseShared, 0, time.Minute, 0)
	if _, ok := acquire(t, e, "rw", "w", kv.LeaseExclusive, 0, time.Minute, time.Minute); ok {
		t.Fatal("writer granted while a reader holds")
	}
	if _, ok := acquire(t, e, "rw", "r2", kv.LeaseShared, 0, time.Minute, 0); ok {
		t.Fatal("a new reader got in past a waiting writer's intent")
	}
	if n := count(t, e, "rw"); n != 1 {
		t.Fatalf("count %d: an intent counted as a holder", n)
	}
	if f, ok := acquire(t, e, "rw", "r1", kv.LeaseShared, 0, time.Minute, 0); !ok || f != f1 {
		t.Fatal("the holding reader could not renew past the intent")
	}
	if ok, _ := e.LeaseRenew("rw", []byte("w"), time.Minute); ok {
		t.Fatal("an intent renewed as a lease")
	}
	release(t, e, "rw", "r1")
	fw, ok := acquire(t, e, "rw", "w", kv.LeaseExclusive, 0, time.Minute, time.Minute)
	if !ok || fw <= f1 {
		t.Fatalf("writer after the reader left: %v %d", ok, fw)
	}
	release(t, e, "rw", "w")
	if _, ok := acquire(t, e, "rw", "r2", kv.LeaseShared, 0, time.Minute, 0); !ok {
		t.Fatal("the grant did not replace the intent: readers still kept out")
	}

	// An intent expires on its own (after intent, at most ttl) and is
	// dropped by a release.
	e.Del("rw")
	acquire(t, e, "rw", "r1", kv.LeaseShared, 0, time.Minute, 0)
	acquire(t, e, "rw", "w", kv.LeaseExclusive, 0, time.Minute, 30*time.Millisecond)
	if _, ok := acquire(t, e, "rw", "r2", kv.LeaseShared, 0, time.Minute, 0); ok {
		t.Fatal("reader past a live intent")
	}
	time.Sleep(50 * time.Millisecond)
	if _, ok := acquire(t, e, "rw", "r2", kv.LeaseShared, 0, time.Minute, 0); !ok {
		t.Fatal("an expired intent still keeps readers out")
	}
	acquire(t, e, "rw", "w", kv.LeaseExclusive, 0, 20*time.Millisecond, time.Minute) // capped at ttl
	time.Sleep(40 * time.Millisecond)
	if _, ok := acquire(t, e, "rw", "r3", kv.LeaseShared, 0, time.Minute, 0); !ok {
		t.Fatal("an intent outlived its ttl")
	}
	acquire(t, e, "rw", "w", kv.LeaseExclusive, 0, time.Minute, time.Minute)
	if ok := release(t, e, "rw", "w"); ok {
		t.Fatal("releasing an intent reported a lease")
	}
	if _, ok := acquire(t, e, "rw", "r4", kv.LeaseShared, 0, time.Minute, 0); !ok {
		t.Fatal("a released intent still keeps readers out")
	}
}

func TestLeasePromotionAndDemotion(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	f1, _ := acquire(t, e, "rw", "a", kv.LeaseShared, 0, time.Minute, 0)
	acquire(t, e, "rw", "b", kv.LeaseShared, 0, time.Minute, 0)
	if _, ok := acquire(t, e, "rw", "a", kv.LeaseExclusive, 0, time.Minute, 0); ok {
		t.Fatal("promoted while another reader holds")
	}
	if n := count(t, e, "rw"); n != 2 {
		t.Fatalf("a refused promotion changed the holders: %d", n)
	}
	release(t, e, "rw", "b")
	if f, ok := acquire(t, e, "rw", "a", kv.LeaseExclusive, 0, time.Minute, 0); !ok || f != f1 {
		t.Fatalf("promotion as the only reader: %v fence %d want %d", ok, f, f1)
	}
	if _, ok := acquire(t, e, "rw", "b", kv.LeaseShared, 0, time.Minute, 0); ok {
		t.Fatal("reader past the promoted writer")
	}
	if f, ok := acquire(t, e, "rw", "a", kv.LeaseShared, 0, time.Minute, 0); !ok || f != f1 {
		t.Fatalf("demotion: %v fence %d", ok, f)
	}
	if _, ok := acquire(t, e, "rw", "b", kv.LeaseShared, 0, time.Minute, 0); !ok {
		t.Fatal("reader refused after the writer demoted")
	}
}

func TestLeaseSemaphore(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	var fences []int64
	for i := range 3 {
		f, ok := acquire(t, e, "sem", fmt.Sprint("p", i), kv.LeasePermit, 3, time.Minute, 0)
		if !ok {
			t.Fatalf("permit %d refused", i)
		}
		fences = append(fences, f)
	}
	if _, ok := acquire(t, e, "sem", "p3", kv.LeasePermit, 3, time.Minute, 0); ok {
		t.Fatal("a fourth permit of three")
	}
	if f, ok := acquire(t, e, "sem", "p1", kv.LeasePermit, 3, time.Minute, 0); !ok || f != fences[1] {
		t.Fatal("a holder's re-acquire is not a renewal")
	}
	release(t, e, "sem", "p1")
	if f, ok := acquire(t, e, "sem", "p3", kv.LeasePermit, 3, time.Minute, 0); !ok || f <= fences[2] {
		t.Fatalf("permit after a release: %v %d", ok, f)
	}
	// An expired permit is reclaimed without a release.
	e.Del("sem")
	acquire(t, e, "sem", "short", kv.LeasePermit, 1, 30*time.Millisecond, 0)
	if _, ok := acquire(t, e, "sem", "next", kv.LeasePermit, 1, time.Minute, 0); ok {
		t.Fatal("granted past a live permit")
	}
	time.Sleep(50 * time.Millisecond)
	if n := count(t, e, "sem"); n != 0 {
		t.Fatalf("an expired permit counted: %d", n)
	}
	if _, ok := acquire(t, e, "sem", "next", kv.LeasePermit, 1, time.Minute, 0); !ok {
		t.Fatal("an expired permit was not reclaimed")
	}
	if ok, _ := e.LeaseRenew("sem", []byte("short"), time.Minute); ok {
		t.Fatal("renewed an expired permit")
	}
	if ok, _ := e.LeaseRenew("sem", []byte("next"), 20*time.Millisecond); !ok {
		t.Fatal("renew of a live permit refused")
	}
	time.Sleep(40 * time.Millisecond)
	if n := count(t, e, "sem"); n != 0 {
		t.Fatal("a renewal to a shorter ttl did not shorten the lease")
	}
}

func TestLeaseMaxHolders(t *testing.T) {
	e := newTestEngine(t, 4<<20, Config{})
	tok := func(i int) string { return fmt.Sprintf("%064d", i) } // the longest token
	for i := range kv.MaxLeaseHolders {
		if _, ok := acquire(t, e, "many", tok(i), kv.LeaseShared, 0, time.Minute, 0); !ok {
			t.Fatalf("reader %d refused", i)
		}
	}
	if _, ok, err := e.LeaseAcquire("many", []byte(tok(kv.MaxLeaseHolders)), kv.LeaseShared, 0, time.Minute, 0); ok || !errors.Is(err, kv.ErrFull) {
		t.Fatalf("a reader past MaxLeaseHolders: %v %v, want kv.ErrFull", ok, err)
	}
	if _, ok := acquire(t, e, "many", tok(7), kv.LeaseShared, 0, time.Hour, 0); !ok {
		t.Fatal("a holder could not renew at MaxLeaseHolders")
	}
	if n := count(t, e, "many"); n != kv.MaxLeaseHolders {
		t.Fatalf("count %d", n)
	}
}

func TestLeaseWrongTypeAndBadArguments(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	e.Set("plain", []byte("value"), 0)
	// Bytes that look like a lease set still are a plain value.
	e.Set("lookalike", []byte{leaseMagic, leaseVersion, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 'a'}, 0)
	e.RateLimit("rate", 5, time.Minute)
	acquire(t, e, "lease", "a", kv.LeaseShared, 0, time.Minute, 0)
	for _, key := range []string{"plain", "lookalike", "rate"} {
		if _, _, err := e.LeaseAcquire(key, []byte("t"), kv.LeaseShared, 0, time.Minute, 0); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("LeaseAcquire on %s: %v", key, err)
		}
		if _, err := e.LeaseRelease(key, []byte("t")); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("LeaseRelease on %s: %v", key, err)
		}
		if _, err := e.LeaseRenew(key, []byte("t"), time.Second); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("LeaseRenew on %s: %v", key, err)
		}
		if _, err := e.LeaseCount(key); !errors.Is(err, kv.ErrWrongType) {
			t.Errorf("LeaseCount on %s: %v", key, err)
		}
	}
	if _, _, _, err := e.RateLimit("lease", 5, time.Minute); !errors.Is(err, kv.ErrWrongType) {
		t.Errorf("RateLimit on a lease set: %v", err)
	}
	if _, _, _, err := e.RateLimit("plain", 5, time.Minute); !errors.Is(err, kv.ErrWrongType) {
		t.Errorf("RateLimit on a plain value: %v", err)
	}
	if v, _ := get(t, e, "plain"); v != "value" {
		t.Fatal("the plain value changed")
	}
	// A plain set replaces a lease set, a plain del frees it.
	if _, ok := get(t, e, "lease"); !ok {
		t.Fatal("get does not see a lease key")
	}
	if ok, _ := e.Del("lease"); !ok {
		t.Fatal("del of a lease key")
	}
	if _, ok := acquire(t, e, "lease", "b", kv.LeaseExclusive, 0, time.Minute, 0); !ok {
		t.Fatal("del did not free the lease key")
	}
	bad := []struct {
		token  string
		mode   kv.LeaseMode
		limit  int64
		ttl    time.Duration
		intent time.Duration
	}{
		{"", kv.LeaseShared, 0, time.Second, 0},
		{string(make([]byte, kv.MaxLeaseToken+1)), kv.LeaseShared, 0, time.Second, 0},
		{"t", 0, 0, time.Second, 0},
		{"t", 4, 0, time.Second, 0},
		{"t", kv.LeasePermit, 0, time.Second, 0},
		{"t", kv.LeasePermit, kv.MaxLeaseHolders + 1, time.Second, 0},
		{"t", kv.LeaseShared, 0, 0, 0},
		{"t", kv.LeaseShared, 0, -time.Second, 0},
		{"t", kv.LeaseExclusive, 0, time.Second, -1},
	}
	for _, b := range bad {
		if _, _, err := e.LeaseAcquire("new", []byte(b.token), b.mode, b.limit, b.ttl, b.intent); !errors.Is(err, kv.ErrBadArgument) && !errors.Is(err, kv.ErrBadTTL) {
			t.Errorf("LeaseAcquire(%q, %d, %d, %v, %v): %v", b.token, b.mode, b.limit, b.ttl, b.intent, err)
		}
	}
	if ok, _ := e.Exists("new"); ok {
		t.Fatal("a refused argument wrote the key")
	}
	if _, err := e.LeaseRenew("lease", []byte("b"), 0); !errors.Is(err, kv.ErrBadTTL) {
		t.Errorf("LeaseRenew with ttl 0: %v", err)
	}
	if _, err := e.LeaseRelease("lease", nil); !errors.Is(err, kv.ErrBadArgument) {
		t.Errorf("LeaseRelease with no token: %v", err)
	}
}

// Renewals and releases are in place: on a segment full of live records a
// holder can still renew and release (never blocked by kv.ErrFull), while
// a new holder, which needs a block, is refused with it.
func TestLeaseRenewAndReleaseOnAFullSegment(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	for _, tok := range []string{"a", "b", "c"} {
		acquire(t, e, "sem", tok, kv.LeasePermit, 5, time.Minute, 0)
	}
	fillSegment(t, e)
	if _, _, err := e.LeaseAcquire("sem", []byte("d"), kv.LeasePermit, 5, time.Minute, 0); !errors.Is(err, kv.ErrFull) {
		t.Fatalf("a new holder on a full segment: %v", err)
	}
	if ok, err := e.LeaseRenew("sem", []byte("a"), time.Hour); !ok || err != nil {
		t.Fatalf("renew on a full segment: %v %v", ok, err)
	}
	if _, ok, err := e.LeaseAcquire("sem", []byte("b"), kv.LeasePermit, 5, time.Hour, 0); !ok || err != nil {
		t.Fatalf("re-acquire on a full segment: %v %v", ok, err)
	}
	if ok, err := e.LeaseRelease("sem", []byte("a")); !ok || err != nil {
		t.Fatalf("release on a full segment: %v %v", ok, err)
	}
	if n := count(t, e, "sem"); n != 2 {
		t.Fatalf("count %d after the release", n)
	}
}

// fillSegment writes live records until the segment refuses one.
func fillSegment(t *testing.T, e *Engine) {
	t.Helper()
	for i := 0; ; i++ {
		err := e.Set(fmt.Sprint("fill", i), make([]byte, 40), 0)
		if errors.Is(err, kv.ErrFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// Smaller records too, down to the smallest class.
	for i := 0; ; i++ {
		if e.Set(fmt.Sprint("f", i), nil, 0) != nil {
			return
		}
	}
}

// A holder that leaves by expiry wakes WaitRelease on the set at its own
// expiry, not at the set's (its other holders' latest); a release wakes it
// at once.
func TestLeaseWaitRelease(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	acquire(t, e, "sem", "long", kv.LeasePermit, 2, time.Minute, 0)
	acquire(t, e, "sem", "short", kv.LeasePermit, 2, 60*time.Millisecond, 0)
	start := time.Now()
	woken, err := e.WaitRelease("sem", 10*time.Second)
	if d := time.Since(start); err != nil || !woken || d < 40*time.Millisecond || d > 2*time.Second {
		t.Fatalf("woken %v err %v after %v, want true after the 60 ms permit's expiry", woken, err, d)
	}
	if _, ok := acquire(t, e, "sem", "next", kv.LeasePermit, 2, time.Minute, 0); !ok {
		t.Fatal("no permit after the expiry")
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(50 * time.Millisecond)
		released <- time.Now()
		e.LeaseRelease("sem", []byte("long"))
	}()
	woken, err = e.WaitRelease("sem", 10*time.Second)
	at := time.Now()
	if err != nil || !woken {
		t.Fatalf("woken %v err %v", woken, err)
	}
	if lag := at.Sub(<-released); lag > 500*time.Millisecond {
		t.Fatalf("woke %v after the release", lag)
	}
	// With no live entry left the key is free at once.
	e.LeaseRelease("sem", []byte("next"))
	if woken, _ := e.WaitRelease("sem", time.Second); !woken {
		t.Fatal("an empty set: not woken at once")
	}
}

// Many goroutines (through several attachments of one segment, as
// processes would) hammer a semaphore: never more holders than permits.
func TestLeaseSemaphoreBoundConcurrent(t *testing.T) {
	mem, err := MapAnonymous(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(mem)
	const permits, workers, rounds = 3, 8, 300
	var inside, peak int64
	var mu = make(chan struct{}, 1)
	done := make(chan error, workers)
	for w := range workers {
		e, err := Attach(mem, Config{})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			tok := []byte(fmt.Sprint("w", w))
			for i := 0; i < rounds; {
				_, ok, err := e.LeaseAcquire("sem", tok, kv.LeasePermit, permits, time.Minute, 0)
				if err != nil {
					done <- err
					return
				}
				if !ok {
					e.WaitRelease("sem", 10*time.Millisecond)
					continue
				}
				mu <- struct{}{}
				inside++
				peak = max(peak, inside)
				n := inside
				<-mu
				if n > permits {
					done <- fmt.Errorf("%d holders of %d permits", n, permits)
					return
				}
				mu <- struct{}{}
				inside--
				<-mu
				if ok, err := e.LeaseRelease("sem", tok); !ok || err != nil {
					done <- fmt.Errorf("release: %v %v", ok, err)
					return
				}
				i++
			}
			done <- nil
		}()
	}
	for range workers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	e, _ := Attach(mem, Config{})
	mustVerify(t, e)
	if peak != permits {
		t.Logf("peak %d of %d permits (not reached: little contention)", peak, permits)
	}
}
