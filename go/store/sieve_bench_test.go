package store

import (
	"fmt"
	"testing"
)

// The hit path of an evictable entry (its visited mark: set once, then
// only loaded), beside BenchmarkGet's held one.
func BenchmarkGetEvictable(b *testing.B) {
	s := newTestStore(b, Config{})
	s.SetEvictable("k", make([]byte, 100), 0)
	buf := make([]byte, 512)
	for b.Loop() {
		if _, ok, _ := s.Get("k", buf); !ok {
			b.Fatal("miss")
		}
	}
}

// Writes of 1 KB cache entries under new keys: into an empty store, and
// into a full one, where each evicts (the hand walks past a hit tenth).
func BenchmarkSetEvictable(b *testing.B) {
	value := make([]byte, 1000)
	b.Run("empty", func(b *testing.B) {
		s := newTestStore(b, Config{MemoryLimit: 1 << 40, CompressMin: -1})
		i := 0
		for b.Loop() {
			s.SetEvictable(fmt.Sprint("k", i), value, 0)
			i++
		}
	})
	b.Run("full", func(b *testing.B) {
		s := newTestStore(b, Config{MemoryLimit: 8 << 20, CompressMin: -1})
		i := 0
		for ; s.Counters().Evicted == 0; i++ {
			s.SetEvictable(fmt.Sprint("k", i), value, 0)
		}
		buf := make([]byte, 1000)
		for b.Loop() {
			s.SetEvictable(fmt.Sprint("k", i), value, 0)
			if i%10 == 0 {
				s.Get(fmt.Sprint("k", i-100), buf)
			}
			i++
		}
		if s.Counters().Rejected != 0 {
			b.Fatal("refused")
		}
	})
}
