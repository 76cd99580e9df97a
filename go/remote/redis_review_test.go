package remote

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
	"github.com/ephpm/ephpm-kv/server"
)

// The fence counter is a key another client can write. A value the
// script's doubles cannot carry exactly (not a decimal integer, or 2^53
// and up) must be refused before the lock is taken: taken anyway, the
// lock would be held by a caller told it failed, and the fence would not
// rise (2^53 + 1 is 2^53 in a double) or would not parse.
func TestRedisFenceCounterClobbered(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	for _, bad := range []string{"1e300", "9007199254740993", "9223372036854775807", "abc", "0x10", " 5", "-3", "1.5"} {
		redisCmd(t, sock, "SET", fenceCounterKey, bad)
		f, ok, err := e.SetNXFenced("lock", []byte("A"), time.Minute)
		if ok || err == nil || !errors.Is(err, kv.ErrNotInteger) || !strings.Contains(err.Error(), fenceCounterKey) {
			t.Errorf("counter %q: SetNXFenced = %d, %v, %v; want kv.ErrNotInteger naming %s", bad, f, ok, err, fenceCounterKey)
		}
		if v, _ := redisTry(sock, "EXISTS", "lock"); v != "0" {
			t.Errorf("counter %q: the lock was taken by a call that failed", bad)
			redisCmd(t, sock, "DEL", "lock")
		}
	}
	// A counter just under 2^53 still works, and the next is higher.
	redisCmd(t, sock, "SET", fenceCounterKey, "9007199254740990")
	f, ok, err := e.SetNXFenced("lock", []byte("A"), time.Minute)
	if !ok || err != nil || f != 9007199254740991 {
		t.Fatalf("counter 2^53-2: %d, %v, %v; want 2^53-1", f, ok, err)
	}
	// The next would be 2^53, where a double stops counting by one.
	if f, ok, err := e.SetNXFenced("lock2", []byte("A"), time.Minute); ok || !errors.Is(err, kv.ErrNotInteger) {
		t.Fatalf("counter 2^53-1: %d, %v, %v; want kv.ErrNotInteger", f, ok, err)
	}
}

// A live key's TTL is never 0 (which, given back to Expire, means "no
// expiry"): the store says a positive time until the key is gone. Redis
// answers PTTL 0 in the last millisecond (the key lives while now is at
// its deadline); the client rounds that up to one millisecond.
func TestRedisTTLOfLiveKeyNeverZero(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	checkTTLNeverZero(t, newEngine(t, "unix://"+sock, "", 5*time.Second))
}

// The same on an ephpm-kv server, whose PTTL rounds to the nearest
// millisecond: 0 in the last half.
func TestServerTTLOfLiveKeyNeverZero(t *testing.T) {
	checkTTLNeverZero(t, newEngine(t, startServer(t, server.Config{}), "", 5*time.Second))
}

func checkTTLNeverZero(t *testing.T, e *Engine) {
	tok := []byte("A")
	zeros := 0
	for round := 0; round < 20; round++ {
		if err := e.Set("k", tok, 2*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			ttl, err := e.TTL("k")
			if err != nil {
				t.Fatal(err)
			}
			if ttl == 0 {
				zeros++
			}
			ttlEq, err := e.TTLIfEq("k", tok)
			if err != nil {
				t.Fatal(err)
			}
			if ttlEq == 0 {
				zeros++
			}
			if ttl == kv.TTLMissing && ttlEq == kv.TTLMissing {
				break
			}
			if i > 100000 {
				t.Fatal("a key of TTL 2 ms still there")
			}
		}
	}
	if zeros > 0 {
		t.Fatalf("a live key's TTL read as 0 (no expiry) %d times", zeros)
	}
}
