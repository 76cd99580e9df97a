package main

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// The running engine's own leases and limiter serve the ops.
func TestLeaseOpsReachTheEngine(t *testing.T) {
	prev := active.Load()
	t.Cleanup(func() { active.Store(prev) })
	active.Store(&engineRef{store.New(store.Config{})})

	l := engine()
	if _, ok, err := l.LeaseAcquire("k", []byte("t"), kv.LeasePermit, 1, time.Minute, 0); !ok || err != nil {
		t.Fatalf("LeaseAcquire: %v %v", ok, err)
	}
	if n, err := l.LeaseCount("k"); n != 1 || err != nil {
		t.Fatalf("LeaseCount: %d %v", n, err)
	}
	r := engine()
	if ok, left, _, err := r.RateLimit("r", 2, time.Minute); !ok || left != 1 || err != nil {
		t.Fatalf("RateLimit: %v %d %v", ok, left, err)
	}
}
