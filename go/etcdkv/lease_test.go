package etcdkv

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ephpm/ephpm-kv/kv"
)

// clients is n engines under one prefix, each its own etcd client, as PHP
// processes on several hosts are.
func clients(t *testing.T, n int) []*Engine {
	first := newTestEngine(t, shared, Config{Timeout: 5 * time.Second})
	es := []*Engine{first}
	for len(es) < n {
		es = append(es, newTestEngine(t, shared, Config{Timeout: 5 * time.Second, Prefix: first.cfg.Prefix}))
	}
	return es
}

func conflicts(es []*Engine) (n int64) {
	for _, e := range es {
		n += e.conflicts.Load()
	}
	return n
}

// Semaphore permits and read/write locks taken at once from several
// clients: the read-decide-write of each acquire loses to another write
// now and then and is tried again (conflicts > 0), and never more than the
// permits, nor a writer with anyone else, hold at any time.
func TestLeaseConflictsAcrossClients(t *testing.T) {
	t.Parallel()
	es := clients(t, 4)
	const permits, perClient, rounds = 2, 3, 4
	var inSem, readers, writers, violations atomic.Int64
	var fences sync.Map
	var wg sync.WaitGroup
	fail := func(format string, args ...any) {
		violations.Add(1)
		t.Errorf(format, args...)
	}
	hold := func(e *Engine, key string, token []byte, mode kv.LeaseMode, limit int64, enter func(), leave func()) {
		for r := 0; r < rounds; r++ {
			deadline := time.Now().Add(4 * time.Second)
			for {
				fence, ok, err := e.LeaseAcquire(key, token, mode, limit, 10*time.Second, 0)
				if err != nil {
					fail("acquire %s: %v", token, err)
					return
				}
				if ok {
					if _, dup := fences.LoadOrStore(fmt.Sprint(key, fence), token); dup {
						fail("fence %d of %s given twice", fence, key)
					}
					break
				}
				if time.Now().After(deadline) {
					fail("%s waited 4 s for %s", token, key)
					return
				}
				time.Sleep(time.Millisecond)
			}
			enter()
			time.Sleep(2 * time.Millisecond)
			leave()
			if ok, err := e.LeaseRelease(key, token); err != nil || !ok {
				fail("release %s: %v %v", token, ok, err)
				return
			}
		}
	}
	for c, e := range es {
		for g := 0; g < perClient; g++ {
			wg.Add(2)
			go func() {
				defer wg.Done()
				hold(e, "sem", []byte(fmt.Sprintf("s%d-%d", c, g)), kv.LeasePermit, permits,
					func() {
						if n := inSem.Add(1); n > permits {
							fail("%d holders of a %d-permit semaphore", n, permits)
						}
					},
					func() { inSem.Add(-1) })
			}()
			go func() {
				defer wg.Done()
				mode := kv.LeaseShared
				if g == 0 {
					mode = kv.LeaseExclusive
				}
				hold(e, "rw", []byte(fmt.Sprintf("rw%d-%d", c, g)), mode, 0,
					func() {
						if mode == kv.LeaseExclusive {
							if w := writers.Add(1); w > 1 || readers.Load() > 0 {
								fail("a writer with %d writers and %d readers", w, readers.Load())
							}
							return
						}
						if readers.Add(1); writers.Load() > 0 {
							fail("a reader with a writer")
						}
					},
					func() {
						if mode == kv.LeaseExclusive {
							writers.Add(-1)
						} else {
							readers.Add(-1)
						}
					})
			}()
		}
	}
	wg.Wait()
	if violations.Load() == 0 && conflicts(es) == 0 {
		t.Fatal("no acquire or release ever met a conflicting write: the retry went untested")
	}
	t.Logf("%d conflicting writes tried again", conflicts(es))
	for _, key := range []string{"sem", "rw"} {
		if ok, err := es[0].Exists(key); err != nil || ok {
			t.Errorf("after every release, Exists(%s) = %v, %v", key, ok, err)
		}
	}
}

// A holder expires on its etcd lease, on the server's clock: another
// client is refused until the ttl has run out, and granted (with a higher
// fence) within the expiry lag after. A holder of a longer ttl outlives a
// shorter one that came first (the guard is given the longer lease).
func TestLeaseHolderExpires(t *testing.T) {
	t.Parallel()
	es := clients(t, 2)
	a, b := es[0], es[1]
	start := time.Now()
	f1, ok, err := a.LeaseAcquire("w", []byte("a"), kv.LeaseExclusive, 0, time.Second, 0)
	if err != nil || !ok {
		t.Fatalf("acquire: %v %v", ok, err)
	}
	if _, ok, err := a.LeaseAcquire("r", []byte("short"), kv.LeaseShared, 0, time.Second, 0); err != nil || !ok {
		t.Fatalf("short reader: %v %v", ok, err)
	}
	if _, ok, err := b.LeaseAcquire("r", []byte("long"), kv.LeaseShared, 0, 6*time.Second, 0); err != nil || !ok {
		t.Fatalf("long reader: %v %v", ok, err)
	}
	for {
		f2, ok, err := b.LeaseAcquire("w", []byte("b"), kv.LeaseExclusive, 0, time.Second, 0)
		if err != nil {
			t.Fatal(err)
		}
		waited := time.Since(start)
		if ok {
			if waited < time.Second {
				t.Fatalf("granted after %v, before the holder's 1 s ran out", waited)
			}
			if f2 <= f1 {
				t.Fatalf("fence %d after %d", f2, f1)
			}
			break
		}
		if waited > 4*time.Second {
			t.Fatalf("the 1 s holder still held after %v", waited)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The short reader goes; the long one still holds.
	for {
		n, err := a.LeaseCount("r")
		if err != nil || n == 0 {
			t.Fatalf("LeaseCount = %d, %v after %v: the long reader was lost with the short one", n, err, time.Since(start))
		}
		if n == 1 {
			break
		}
		if time.Since(start) > 4*time.Second {
			t.Fatalf("the 1 s reader still held after %v", time.Since(start))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ttl, err := a.TTL("r"); err != nil || ttl < time.Second {
		t.Fatalf("TTL of the lease set = %v, %v: shorter than its longest holder's", ttl, err)
	}
}

// A writer's intent lives on its own lease: while it does, a new reader is
// refused; once it expires (the writer gave up without a release), readers
// are granted again.
func TestLeaseIntentExpires(t *testing.T) {
	t.Parallel()
	e := clients(t, 1)[0]
	if _, ok, err := e.LeaseAcquire("k", []byte("r1"), kv.LeaseShared, 0, 10*time.Second, 0); err != nil || !ok {
		t.Fatalf("reader: %v %v", ok, err)
	}
	start := time.Now()
	if _, ok, err := e.LeaseAcquire("k", []byte("w"), kv.LeaseExclusive, 0, 10*time.Second, time.Second); err != nil || ok {
		t.Fatalf("writer with a reader in: %v %v", ok, err)
	}
	if _, ok, err := e.LeaseAcquire("k", []byte("r2"), kv.LeaseShared, 0, 10*time.Second, 0); err != nil || ok {
		t.Fatalf("new reader during the writer's intent: %v %v", ok, err)
	}
	for {
		_, ok, err := e.LeaseAcquire("k", []byte("r2"), kv.LeaseShared, 0, 10*time.Second, 0)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			if d := time.Since(start); d < time.Second {
				t.Fatalf("reader granted %v after the 1 s intent", d)
			}
			break
		}
		if time.Since(start) > 4*time.Second {
			t.Fatal("the 1 s intent still refused readers after 4 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Del of the name frees every holder at once (they become stale, older
// than any later guard), even the same token acquiring again: it gets a
// new, higher fence, and is one holder. A plain value at the name is
// kv.ErrWrongType to both families. Neither Del nor Set of a lease key
// revokes the shared lease other names' holders are on.
func TestLeaseDelFreesHolders(t *testing.T) {
	t.Parallel()
	e := clients(t, 1)[0]
	f1, ok, err := e.LeaseAcquire("k", []byte("a"), kv.LeaseExclusive, 0, 30*time.Second, 0)
	if err != nil || !ok {
		t.Fatalf("acquire: %v %v", ok, err)
	}
	if _, ok, err := e.LeaseAcquire("k", []byte("b"), kv.LeaseExclusive, 0, 30*time.Second, 0); err != nil || ok {
		t.Fatalf("a second writer: %v %v", ok, err)
	}
	// "o" shares k's lease (one grant serves this engine's keys for a
	// second): Del of k must not revoke it.
	if _, ok, err := e.LeaseAcquire("o", []byte("a"), kv.LeaseExclusive, 0, 30*time.Second, 0); err != nil || !ok {
		t.Fatalf("acquire o: %v %v", ok, err)
	}
	if ok, err := e.Del("k"); err != nil || !ok {
		t.Fatalf("Del: %v %v", ok, err)
	}
	if n, err := e.LeaseCount("k"); err != nil || n != 0 {
		t.Fatalf("LeaseCount after Del = %d, %v", n, err)
	}
	if ok, err := e.LeaseRenew("k", []byte("a"), 30*time.Second); err != nil || ok {
		t.Fatalf("renew of a deleted holder: %v %v", ok, err)
	}
	f2, ok, err := e.LeaseAcquire("k", []byte("a"), kv.LeaseExclusive, 0, 30*time.Second, 0)
	if err != nil || !ok || f2 <= f1 {
		t.Fatalf("same token after Del: fence %d (before %d), %v, %v", f2, f1, ok, err)
	}
	if f3, ok, err := e.LeaseAcquire("k", []byte("a"), kv.LeaseExclusive, 0, 30*time.Second, 0); err != nil || !ok || f3 != f2 {
		t.Fatalf("re-acquire: fence %d, want %d; %v %v", f3, f2, ok, err)
	}
	if n, err := e.LeaseCount("k"); err != nil || n != 1 {
		t.Fatalf("LeaseCount = %d, %v", n, err)
	}
	if ok, err := e.LeaseRelease("k", []byte("a")); err != nil || !ok {
		t.Fatalf("release: %v %v", ok, err)
	}
	if ok, err := e.Exists("k"); err != nil || ok {
		t.Fatalf("Exists after the last release: %v %v", ok, err)
	}
	if err := e.Set("k", []byte("plain"), 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.LeaseAcquire("k", []byte("a"), kv.LeaseShared, 0, time.Second, 0); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("acquire on a plain value: %v", err)
	}
	if _, _, _, err := e.RateLimit("k", 3, time.Second); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("rate limit on a plain value: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // a revoke runs in the background
	if n, err := e.LeaseCount("o"); err != nil || n != 1 {
		t.Fatalf("another name's holder after Del and Set of k: %d, %v", n, err)
	}
}

// The rate limiter's compare-and-write from several clients at once: in a
// burst shorter than the window, exactly limit calls are admitted.
func TestRateLimitAcrossClients(t *testing.T) {
	t.Parallel()
	es := clients(t, 3)
	const limit, perClient = 7, 4
	var admitted atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(500 * time.Millisecond)
	for _, e := range es {
		for g := 0; g < perClient; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					ok, _, retry, err := e.RateLimit("rl", limit, 5*time.Second)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						admitted.Add(1)
					} else if retry <= 0 || retry > 5*time.Second {
						t.Errorf("refused with retryAfter %v", retry)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	if n := admitted.Load(); n != limit {
		t.Fatalf("%d calls admitted in a burst within one window, limit %d", n, limit)
	}
	if conflicts(es) == 0 {
		t.Fatal("no admission ever met a conflicting write: the retry went untested")
	}
	t.Logf("%d conflicting writes tried again", conflicts(es))
}

// A shared lease revoked by someone else (an operator, another tool): the
// writes that name it fail whole in etcd, the engine forgets its leases
// and tries again on a new one, instead of failing until it would expire.
func TestLeaseSharedLeaseRevoked(t *testing.T) {
	t.Parallel()
	e := clients(t, 1)[0]
	if _, ok, err := e.LeaseAcquire("x", []byte("a"), kv.LeaseExclusive, 0, 30*time.Second, 0); err != nil || !ok {
		t.Fatalf("acquire: %v %v", ok, err)
	}
	if ok, _, _, err := e.RateLimit("rl", 5, 30*time.Second); err != nil || !ok {
		t.Fatalf("rate limit: %v %v", ok, err)
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	e.book.mu.Lock()
	var ids []clientv3.LeaseID
	for _, l := range e.book.bySecs {
		ids = append(ids, l.id)
	}
	e.book.mu.Unlock()
	for _, id := range ids {
		if _, err := cl.Revoke(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := e.Exists("x"); err != nil || ok {
		t.Fatalf("x after its lease's revoke: %v %v", ok, err)
	}
	if _, ok, err := e.LeaseAcquire("y", []byte("b"), kv.LeaseExclusive, 0, 30*time.Second, 0); err != nil || !ok {
		t.Fatalf("acquire after a revoke: %v %v", ok, err)
	}
	if ok, _, _, err := e.RateLimit("rl2", 5, 30*time.Second); err != nil || !ok {
		t.Fatalf("rate limit after a revoke: %v %v", ok, err)
	}
}

// A long ttl or window: the shared lease serves the calls of many seconds,
// not of one, so the leases alive at once stay a few dozen per length
// (a lease is never revoked: one granted each second for a day-long window
// would be 86400 alive), while a key on it outlives its ttl by at most a
// 64th of it.
func TestSharedLeaseLongTTLServesManySeconds(t *testing.T) {
	t.Parallel()
	e := clients(t, 1)[0]
	cl, ctx, cancel, err := e.op()
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	const ttl = time.Hour
	first, err := e.sharedFor(ctx, cl, ttl)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	again, err := e.sharedFor(ctx, cl, ttl)
	if err != nil {
		t.Fatal(err)
	}
	if again.id != first.id {
		t.Fatalf("an hour's lease 1.5 s later: a new grant (%x, then %x)", first.id, again.id)
	}
	r, err := cl.TimeToLive(ctx, first.id)
	if err != nil {
		t.Fatal(err)
	}
	if left := time.Duration(r.TTL) * time.Second; left < ttl || left > ttl+ttl/64+time.Second {
		t.Fatalf("the shared lease has %v left, want %v to %v", left, ttl, ttl+ttl/64+time.Second)
	}
	// Short ttls keep their second of slack.
	short, err := e.sharedFor(ctx, cl, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := cl.TimeToLive(ctx, short.id); err != nil || r.TTL > 31 {
		t.Fatalf("a 30 s shared lease: %d s left, %v", r.TTL, err)
	}
}
