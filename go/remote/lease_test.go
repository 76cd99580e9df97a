package remote

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
	"github.com/ephpm/ephpm-kv/server"
	"github.com/ephpm/ephpm-kv/store"
)

// leaseEngine is an engine with both optional interfaces.
type leaseEngine interface {
	kv.Engine
	kv.Leases
	kv.RateLimiter
}

// checkLeaseWire runs each operation once through the wire and the
// script or command behind it, with the names and values a server sees
// (tag: a hash tag the names share, for a cluster). The full semantics are
// the kvtest conformance cases'; these are the paths only a remote engine
// has: arguments, replies, the fence counter, WRONGTYPE.
func checkLeaseWire(t *testing.T, e leaseEngine, tag string) {
	t.Helper()
	key, plain, rate := tag+"rw", tag+"plain", tag+"rate"
	a, b, c := []byte("A"), []byte("B"), []byte("C")
	lock, _, err := e.SetNXFenced(tag+"lock", a, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	fa, ok, err := e.LeaseAcquire(key, a, kv.LeaseShared, 0, time.Minute, 0)
	if !ok || err != nil || fa <= lock {
		t.Fatalf("reader A: %d, %v, %v (the lock's fence %d)", fa, ok, err, lock)
	}
	fb, ok, err := e.LeaseAcquire(key, b, kv.LeaseShared, 0, time.Minute, 0)
	if !ok || err != nil || fb <= fa {
		t.Fatalf("reader B: %d, %v, %v", fb, ok, err)
	}
	// A writer is refused and records its intent; a new reader is then
	// refused, a holder renews with its own fence.
	if f, ok, err := e.LeaseAcquire(key, c, kv.LeaseExclusive, 0, time.Minute, time.Minute); ok || err != nil || f != 0 {
		t.Fatalf("writer C with readers: %d, %v, %v", f, ok, err)
	}
	if _, ok, err := e.LeaseAcquire(key, []byte("D"), kv.LeaseShared, 0, time.Minute, 0); ok || err != nil {
		t.Fatalf("reader D past C's intent: %v, %v", ok, err)
	}
	if f, ok, err := e.LeaseAcquire(key, a, kv.LeaseShared, 0, 2*time.Minute, 0); !ok || err != nil || f != fa {
		t.Fatalf("reader A renewing: %d, %v, %v; want fence %d", f, ok, err, fa)
	}
	if n, err := e.LeaseCount(key); n != 2 || err != nil {
		t.Fatalf("count: %d, %v; want 2 (the intent is not a holder)", n, err)
	}
	if ok, err := e.LeaseRenew(key, b, time.Minute); !ok || err != nil {
		t.Fatalf("renew B: %v, %v", ok, err)
	}
	if ok, err := e.LeaseRenew(key, c, time.Minute); ok || err != nil {
		t.Fatalf("renew of an intent: %v, %v; want false", ok, err)
	}
	for _, tok := range [][]byte{a, b} {
		if ok, err := e.LeaseRelease(key, tok); !ok || err != nil {
			t.Fatalf("release %s: %v, %v", tok, ok, err)
		}
	}
	fc, ok, err := e.LeaseAcquire(key, c, kv.LeaseExclusive, 0, time.Minute, time.Minute)
	if !ok || err != nil || fc <= fb {
		t.Fatalf("writer C once alone: %d, %v, %v", fc, ok, err)
	}
	if ok, err := e.LeaseRelease(key, c); !ok || err != nil {
		t.Fatalf("release C: %v, %v", ok, err)
	}
	if ok, err := e.Exists(key); ok || err != nil {
		t.Fatalf("the key outlived its last entry: %v, %v", ok, err)
	}
	// Permits.
	sem := tag + "sem"
	for i, tok := range [][]byte{a, b} {
		if _, ok, err := e.LeaseAcquire(sem, tok, kv.LeasePermit, 2, time.Minute, 0); !ok || err != nil {
			t.Fatalf("permit %d: %v, %v", i, ok, err)
		}
	}
	if _, ok, err := e.LeaseAcquire(sem, c, kv.LeasePermit, 2, time.Minute, 0); ok || err != nil {
		t.Fatalf("a third permit of 2: %v, %v", ok, err)
	}
	if ttl, err := e.TTL(sem); err != nil || ttl <= 50*time.Second || ttl > time.Minute+2*time.Millisecond {
		t.Fatalf("the set's TTL %v, %v; want its latest entry's, a minute (rounded up to the millisecond)", ttl, err)
	}
	// A plain value, and the other family's key: WRONGTYPE.
	if err := e.Set(plain, a, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.LeaseAcquire(plain, a, kv.LeaseShared, 0, time.Minute, 0); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("acquire on a plain value: %v", err)
	}
	if _, _, _, err := e.RateLimit(sem, 1, time.Minute); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("rate limit on a lease set: %v", err)
	}
	// Rate limit: 2 a minute.
	for i := int64(0); i < 2; i++ {
		if ok, left, retry, err := e.RateLimit(rate, 2, time.Minute); !ok || left != 1-i || retry != 0 || err != nil {
			t.Fatalf("call %d: %v, %d, %v, %v", i, ok, left, retry, err)
		}
	}
	ok, left, retry, err := e.RateLimit(rate, 2, time.Minute)
	if ok || left != 0 || retry <= 50*time.Second || retry > time.Minute || err != nil {
		t.Fatalf("third call: %v, %d, %v, %v; want refused, retry in about a minute", ok, left, retry, err)
	}
	if _, err := e.LeaseCount(rate); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("lease count of a rate log: %v", err)
	}
	// Bad arguments are refused before anything is sent.
	if _, _, err := e.LeaseAcquire(key, nil, kv.LeaseShared, 0, time.Minute, 0); !errors.Is(err, kv.ErrBadArgument) {
		t.Fatalf("empty token: %v", err)
	}
	if _, _, _, err := e.RateLimit(rate, kv.MaxRateLimit+1, time.Minute); !errors.Is(err, kv.ErrBadArgument) {
		t.Fatalf("limit over the maximum: %v", err)
	}
}

func TestRedisLeaseWire(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	checkLeaseWire(t, newEngine(t, "unix://"+sock, "", 5*time.Second), "")
	if typ := redisCmd(t, sock, "TYPE", "sem"); typ != "string" {
		t.Errorf("a lease set is a %s", typ)
	}
}

func TestRedisClusterLeaseWire(t *testing.T) {
	url, socks := redisCluster(t)
	for _, s := range socks {
		openRedisWarm(t, s, kvtest.DefaultConfig, servedKey(t, s))
	}
	checkLeaseWire(t, newCluster(t, url), "{lw}")
}

// A raw Redis client sees the refusals of a lease script word for word.
func TestRedisLeaseRefusalsRaw(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	redisCmd(t, sock, "SET", "plain", "v")
	_, err := redisTry(sock, "EVAL", scriptLeaseAcquire.src, "2", "plain", fenceCounterKey, "A", "1", "0", "1000", "0")
	if err == nil || !strings.Contains(err.Error(), ": WRONGTYPE Operation against a key holding the wrong kind of value") {
		t.Fatalf("a lease on a plain value: %v", err)
	}
	// A fence counter another client clobbered: ERR, and no lease taken.
	redisCmd(t, sock, "SET", fenceCounterKey, "abc")
	_, err = redisTry(sock, "EVAL", scriptLeaseAcquire.src, "2", "free", fenceCounterKey, "A", "2", "0", "1000", "0")
	if err == nil || !strings.Contains(err.Error(), ": ERR value is not an integer or out of range") {
		t.Fatalf("a lease with a clobbered fence counter: %v", err)
	}
	if v := redisCmd(t, sock, "EXISTS", "free"); v != "0" {
		t.Fatal("the lease was taken by a call that failed")
	}
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	if _, ok, err := e.LeaseAcquire("free", []byte("A"), kv.LeaseExclusive, 0, time.Minute, 0); ok || !errors.Is(err, kv.ErrNotInteger) || !strings.Contains(err.Error(), fenceCounterKey) {
		t.Fatalf("LeaseAcquire with a clobbered fence counter: %v, %v; want kv.ErrNotInteger naming it", ok, err)
	}
}

// No server, or one that never answers: every lease and rate-limit op is
// kv.ErrUnavailable, never a refusal (granted false, allowed false with a
// nil error would read as "someone else holds it").
func TestLeaseUnavailable(t *testing.T) {
	for name, url := range map[string]string{
		"no server":     "unix://" + filepath.Join(t.TempDir(), "nobody.sock"),
		"silent server": silentServer(t),
	} {
		e := newEngine(t, url, "", 100*time.Millisecond)
		tok := []byte("t")
		if _, ok, err := e.LeaseAcquire("k", tok, kv.LeaseExclusive, 0, time.Minute, time.Second); ok || !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("%s: LeaseAcquire = %v, %v", name, ok, err)
		}
		if _, err := e.LeaseRelease("k", tok); !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("%s: LeaseRelease: %v", name, err)
		}
		if _, err := e.LeaseRenew("k", tok, time.Minute); !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("%s: LeaseRenew: %v", name, err)
		}
		if _, err := e.LeaseCount("k"); !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("%s: LeaseCount: %v", name, err)
		}
		if ok, _, _, err := e.RateLimit("k", 5, time.Minute); ok || !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("%s: RateLimit = %v, %v", name, ok, err)
		}
	}
}

// A script the Redis lost (SCRIPT FLUSH; a restart, a promoted replica) is
// loaded again and the operation sent once more: NOSCRIPT ran nothing.
func TestRedisLeaseNoScript(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	if _, ok, err := e.LeaseAcquire("k", []byte("A"), kv.LeasePermit, 2, time.Minute, 0); !ok || err != nil {
		t.Fatalf("acquire: %v, %v", ok, err)
	}
	if ok, _, _, err := e.RateLimit("r", 2, time.Minute); !ok || err != nil {
		t.Fatalf("rate: %v, %v", ok, err)
	}
	redisCmd(t, sock, "SCRIPT", "FLUSH")
	if _, ok, err := e.LeaseAcquire("k", []byte("B"), kv.LeasePermit, 2, time.Minute, 0); !ok || err != nil {
		t.Fatalf("acquire after SCRIPT FLUSH: %v, %v", ok, err)
	}
	redisCmd(t, sock, "SCRIPT", "FLUSH")
	if ok, left, _, err := e.RateLimit("r", 2, time.Minute); !ok || left != 0 || err != nil {
		t.Fatalf("rate after SCRIPT FLUSH: %v, %d, %v (want the second call, counted once)", ok, left, err)
	}
	if n, err := e.LeaseCount("k"); n != 2 || err != nil {
		t.Fatalf("count: %d, %v", n, err)
	}
}

func TestServerLeaseWire(t *testing.T) {
	url := startServer(t, server.Config{Store: store.Config{MemoryLimit: 1 << 20, MaxValueSize: 4096}})
	checkLeaseWire(t, newEngine(t, url, "", 5*time.Second), "")
}

// The cost of a Redis rate-limit call against the size of its log: a call
// admitted into a log of n-1 calls (the log rewritten: a SET of 8n bytes)
// and one refused by a full log of n (a binary search, nothing written).
func BenchmarkRedisRateLimit(b *testing.B) {
	sock := redisSocket(b)
	e, err := New("unix://"+sock, "", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for _, n := range []int64{10, 1000, 10000} {
		key := fmt.Sprint("bench-rate-", n)
		redisCmd(b, sock, "DEL", key)
		for i := int64(0); i < n-1; i++ {
			if ok, _, _, err := e.RateLimit(key, n, time.Hour); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
		log := redisCmd(b, sock, "GET", key)
		b.Run(fmt.Sprint("admitted/", n), func(b *testing.B) {
			for range b.N {
				if ok, _, _, err := e.RateLimit(key, n, time.Hour); !ok || err != nil {
					b.Fatal(ok, err)
				}
				b.StopTimer()
				redisCmd(b, sock, "SET", key, log, "PX", "3600000") // back to n-1 calls
				b.StartTimer()
			}
		})
		if ok, _, _, err := e.RateLimit(key, n, time.Hour); !ok || err != nil {
			b.Fatal(ok, err)
		}
		b.Run(fmt.Sprint("refused/", n), func(b *testing.B) {
			for range b.N {
				if ok, _, _, err := e.RateLimit(key, n, time.Hour); ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

// A Redis over its maxmemory refuses writes: a refused acquire, a release
// or renew by a non-holder, and a count write nothing, so they answer as
// usual; the last holder's release is a DEL, which a full Redis takes; a
// grant is kv.ErrFull, never a false.
func TestRedisLeaseAtMaxMemory(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.Config{MemoryLimit: 64 << 10})
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	if _, ok, err := e.LeaseAcquire("k", []byte("A"), kv.LeaseExclusive, 0, time.Minute, 0); !ok || err != nil {
		t.Fatalf("acquire: %v, %v", ok, err)
	}
	// Over its maxmemory from here on, whatever the client buffers do.
	redisCmd(t, sock, "CONFIG", "SET", "maxmemory", "1")
	t.Cleanup(func() { redisCmd(t, sock, "CONFIG", "SET", "maxmemory", "0") })
	if _, ok, err := e.LeaseAcquire("k", []byte("B"), kv.LeaseExclusive, 0, time.Minute, 0); ok || err != nil {
		t.Fatalf("a refused acquire at maxmemory: %v, %v; want false", ok, err)
	}
	if _, ok, err := e.LeaseAcquire("k", []byte("B"), kv.LeaseShared, 0, time.Minute, 0); ok || err != nil {
		t.Fatalf("a refused reader at maxmemory: %v, %v; want false", ok, err)
	}
	if ok, err := e.LeaseRenew("k", []byte("B"), time.Minute); ok || err != nil {
		t.Fatalf("a non-holder's renew at maxmemory: %v, %v", ok, err)
	}
	if ok, err := e.LeaseRelease("k", []byte("B")); ok || err != nil {
		t.Fatalf("a non-holder's release at maxmemory: %v, %v", ok, err)
	}
	if n, err := e.LeaseCount("k"); n != 1 || err != nil {
		t.Fatalf("count at maxmemory: %d, %v", n, err)
	}
	if ok, err := e.LeaseRelease("k", []byte("A")); !ok || err != nil {
		t.Fatalf("the last holder's release at maxmemory: %v, %v", ok, err)
	}
	if _, ok, err := e.LeaseAcquire("k2", []byte("A"), kv.LeaseExclusive, 0, time.Minute, 0); ok || !errors.Is(err, kv.ErrFull) {
		t.Fatalf("a grant at maxmemory: %v, %v; want kv.ErrFull", ok, err)
	}
}
