package store

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv/cachesim"
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

// SetEvictable from every P at once into a full store: each write takes
// the queue's one mutex to join it, and to evict.
func BenchmarkSetEvictableParallel(b *testing.B) {
	value := make([]byte, 1000)
	s := newTestStore(b, Config{MemoryLimit: 8 << 20, CompressMin: -1})
	for i := 0; s.Counters().Evicted == 0; i++ {
		s.SetEvictable(fmt.Sprint("k", i), value, 0)
	}
	var ids atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		id := ids.Add(1) << 40
		for pb.Next() {
			s.SetEvictable(strconv.FormatInt(id, 10), value, 0)
			id++
		}
	})
}

// The hit ratio of the map's SIEVE on a Zipf(0.99) trace of 1 M reads over
// 100k keys, cache-aside (a miss writes the key evictable), in a store
// that holds about 10% of them, beside an exact LRU of as many entries
// simulated on the same trace. Reported as metrics; run with -benchtime 1x.
func BenchmarkHitRatioZipf(b *testing.B) {
	const reads, keys = 1_000_000, 100_000
	trace := cachesim.ZipfTrace(reads, keys, 0.99, 1)
	value := make([]byte, 100)
	// 10% of the keys: each is accounted its key, value and overheads.
	perEntry := int64(len("k99999") + len(value) + itemOverhead + cacheOverhead)
	buf := make([]byte, len(value))
	names := make([]string, keys)
	for k := range names {
		names[k] = strconv.Itoa(k)
	}
	for b.Loop() {
		s := newTestStore(b, Config{MemoryLimit: keys / 10 * perEntry, CompressMin: -1, SweepInterval: time.Hour})
		hits := 0
		for _, k := range trace {
			if _, ok, _ := s.Get(names[k], buf); ok {
				hits++
			} else if err := s.SetEvictable(names[k], value, 0); err != nil {
				b.Fatal(err)
			}
		}
		held := int(s.Counters().Keys)
		lru := cachesim.LRUHits(trace, held)
		b.ReportMetric(100*float64(hits)/reads, "sieve-hit-%")
		b.ReportMetric(100*float64(lru)/reads, "lru-hit-%")
		b.ReportMetric(float64(held), "entries")
		s.Close()
	}
}
