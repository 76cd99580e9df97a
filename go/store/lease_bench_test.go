package store

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A lease's acquire and release next to the fenced lock pair they extend,
// in one run: a writer on a free key (the set is made and deleted each
// time), a second reader (the set stays, changed in place), and renewals.
func BenchmarkLeasePair(b *testing.B) {
	s := newTestStore(b, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	other := []byte("fedcba9876543210fedcba9876543210")
	b.Run("SetNXFenced+DelIfEq", func(b *testing.B) {
		for b.Loop() {
			if _, ok, _ := s.SetNXFenced("lock:bench", token, 30*time.Second); !ok {
				b.Fatal("not acquired")
			}
			if ok, _ := s.DelIfEq("lock:bench", token); !ok {
				b.Fatal("not released")
			}
		}
	})
	b.Run("LeaseAcquire+LeaseRelease/writer", func(b *testing.B) {
		for b.Loop() {
			if _, ok, _ := s.LeaseAcquire("lease:bench", token, kv.LeaseExclusive, 0, 30*time.Second, 0); !ok {
				b.Fatal("not acquired")
			}
			if ok, _ := s.LeaseRelease("lease:bench", token); !ok {
				b.Fatal("not released")
			}
		}
	})
	b.Run("LeaseAcquire+LeaseRelease/second-reader", func(b *testing.B) {
		s.LeaseAcquire("lease:read", other, kv.LeaseShared, 0, time.Hour, 0)
		for b.Loop() {
			if _, ok, _ := s.LeaseAcquire("lease:read", token, kv.LeaseShared, 0, 30*time.Second, 0); !ok {
				b.Fatal("not acquired")
			}
			if ok, _ := s.LeaseRelease("lease:read", token); !ok {
				b.Fatal("not released")
			}
		}
	})
	b.Run("ExpireIfEq", func(b *testing.B) {
		s.Set("lock:renew", token, time.Hour)
		for b.Loop() {
			s.ExpireIfEq("lock:renew", token, 30*time.Second)
		}
	})
	b.Run("LeaseRenew", func(b *testing.B) {
		s.LeaseAcquire("lease:renew", token, kv.LeaseExclusive, 0, time.Hour, 0)
		for b.Loop() {
			s.LeaseRenew("lease:renew", token, 30*time.Second)
		}
	})
}

// RateLimit next to Incr, the fixed-window counter it replaces: admitted
// calls of a log that keeps 100 (each call drops the oldest once full),
// and refused calls of a full log.
func BenchmarkRateLimit(b *testing.B) {
	s := newTestStore(b, Config{})
	b.Run("Incr", func(b *testing.B) {
		for b.Loop() {
			s.Incr("count:bench", 1, time.Minute)
		}
	})
	b.Run("admitted", func(b *testing.B) {
		for b.Loop() {
			s.RateLimit("rate:bench", kv.MaxRateLimit, 10*time.Microsecond)
		}
	})
	b.Run("refused", func(b *testing.B) {
		for range 100 {
			s.RateLimit("rate:full", 100, time.Hour)
		}
		for b.Loop() {
			if ok, _, _, _ := s.RateLimit("rate:full", 100, time.Hour); ok {
				b.Fatal("admitted")
			}
		}
	})
}
