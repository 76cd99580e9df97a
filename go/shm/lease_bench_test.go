package shm

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Lease and rate-limit costs next to the fenced lock pair they extend:
// compare in one run (go test -bench 'FencedLockPair|LeasePair|RateLimit').

func BenchmarkFencedLockPair(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := e.SetNXFenced("lock:bench", token, 30*time.Second); !ok {
			b.Fatal("not acquired")
		}
		if ok, _ := e.DelIfEq("lock:bench", token); !ok {
			b.Fatal("not released")
		}
	}
}

// A write lock on a free key: the set is created, then removed.
func BenchmarkLeasePairExclusive(b *testing.B) {
	benchLeasePair(b, kv.LeaseExclusive, 0)
}

// A permit of a semaphore two others hold: the acquire writes the set
// anew, the release is in place.
func BenchmarkLeasePairPermit(b *testing.B) {
	benchLeasePair(b, kv.LeasePermit, 2)
}

func benchLeasePair(b *testing.B, mode kv.LeaseMode, others int) {
	e := newTestEngine(b, 64<<20, Config{})
	for i := range others {
		if _, ok, err := e.LeaseAcquire("lease:bench", []byte{'o', byte('0' + i)}, mode, 8, time.Hour, 0); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
	token := []byte("0123456789abcdef0123456789abcdef")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := e.LeaseAcquire("lease:bench", token, mode, 8, 30*time.Second, 0); !ok {
			b.Fatal("not acquired")
		}
		if ok, _ := e.LeaseRelease("lease:bench", token); !ok {
			b.Fatal("not released")
		}
	}
}

// A holder's renewal (in place).
func BenchmarkLeaseRenew(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	e.LeaseAcquire("lease:bench", token, kv.LeaseShared, 0, time.Minute, 0)
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := e.LeaseRenew("lease:bench", token, time.Minute); !ok {
			b.Fatal("not renewed")
		}
	}
}

// An admitted call (the window so short each call finds the last gone):
// one slot and the state word written in place.
func BenchmarkRateLimit(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	b.ReportAllocs()
	for b.Loop() {
		if ok, _, _, _ := e.RateLimit("rate:bench", 100, time.Nanosecond); !ok {
			b.Fatal("refused")
		}
	}
}

// A refused call on a full window of the largest limit.
func BenchmarkRateLimitRefused(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	for range kv.MaxRateLimit {
		e.RateLimit("rate:bench", kv.MaxRateLimit, time.Hour)
	}
	b.ReportAllocs()
	for b.Loop() {
		if ok, _, _, _ := e.RateLimit("rate:bench", kv.MaxRateLimit, time.Hour); ok {
			b.Fatal("admitted")
		}
	}
}
