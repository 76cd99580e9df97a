package main

import (
	"strings"
	"testing"

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
