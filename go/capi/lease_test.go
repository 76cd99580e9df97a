package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// plainEngine hides every optional interface of the engine it wraps.
type plainEngine struct{ kv.Engine }

// An engine without kv.Leases or kv.RateLimiter answers with an error that
// names it (a KvException in PHP), never with a refusal that PHP would read
// as "someone else holds it".
func TestLeaseOpsOnAnEngineWithoutThemSaySo(t *testing.T) {
	prev := active.Load()
	t.Cleanup(func() { active.Store(prev) })
	active.Store(&engineRef{plainEngine{store.New(store.Config{})}})

	if _, err := leases(); err == nil || !strings.Contains(err.Error(), "does not implement leases") {
		t.Errorf("leases() on an engine without them: %v", err)
	} else if codeOf(err) != codeInternal {
		t.Errorf("code %d, want INTERNAL", codeOf(err))
	}
	if _, err := rateLimiter(); err == nil || !strings.Contains(err.Error(), "does not implement the rate limiter") {
		t.Errorf("rateLimiter() on an engine without it: %v", err)
	}
}

// The running engine's own leases and limiter serve the ops.
func TestLeaseOpsReachTheEngine(t *testing.T) {
	prev := active.Load()
	t.Cleanup(func() { active.Store(prev) })
	active.Store(&engineRef{store.New(store.Config{})})

	l, err := leases()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := l.LeaseAcquire("k", []byte("t"), kv.LeasePermit, 1, time.Minute, 0); !ok || err != nil {
		t.Fatalf("LeaseAcquire: %v %v", ok, err)
	}
	if n, err := l.LeaseCount("k"); n != 1 || err != nil {
		t.Fatalf("LeaseCount: %d %v", n, err)
	}
	r, err := rateLimiter()
	if err != nil {
		t.Fatal(err)
	}
	if ok, left, _, err := r.RateLimit("r", 2, time.Minute); !ok || left != 1 || err != nil {
		t.Fatalf("RateLimit: %v %d %v", ok, left, err)
	}
}
