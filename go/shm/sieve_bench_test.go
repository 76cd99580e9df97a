package shm

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/ephpm/ephpm-kv/kv/cachesim"
)

// The hit path of an evictable entry (its visited mark: set on the first
// hit, then only loaded), beside BenchmarkGet's held one.
func BenchmarkGetEvictable(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	e.SetEvictable("k", make([]byte, 100), 0)
	buf := make([]byte, 512)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := e.Get("k", buf); !ok {
			b.Fatal("miss")
		}
	}
}

// Cache writes of 1 KB under new keys, into a segment with room (the
// baseline: 32k keys written in turn, 40 MiB, in 64 MiB) and into one full
// of cache, where every write evicts. The bound: full at most 2x.
func BenchmarkSetEvictableRoom(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{CompressMin: -1})
	benchCacheWrites(b, e, 32<<10)
	if st, _ := e.Stats(); st.Evicted != 0 {
		b.Fatalf("%d evicted: the baseline had no room", st.Evicted)
	}
}

func BenchmarkSetEvictableFull(b *testing.B) {
	e := newTestEngine(b, 16<<20, Config{CompressMin: -1})
	value := make([]byte, 1200)
	for i := 0; ; i++ {
		e.SetEvictable("fill:"+strconv.Itoa(i), value, 0)
		if st, _ := e.Stats(); st.Evicted > 0 {
			break
		}
	}
	benchCacheWrites(b, e, 1<<30)
	if st, _ := e.Stats(); st.Evicted < int64(b.N) {
		b.Fatalf("%d evicted for %d writes: the segment was not full", st.Evicted, b.N)
	}
}

func benchCacheWrites(b *testing.B, e *Engine, keys int) {
	value := make([]byte, 1200)
	names := make([]string, min(keys, 1<<20))
	for i := range names {
		names[i] = "k:" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := e.SetEvictable(names[i%len(names)], value, 0); err != nil {
			b.Fatal(err)
		}
		i++
		if i%len(names) == 0 && keys > len(names) {
			b.StopTimer() // new names, never seen: every write a new key
			for j := range names {
				names[j] = "k:" + strconv.Itoa(i+j)
			}
			b.StartTimer()
		}
	}
}

// The segment's SIEVE on a Zipf(0.99) trace of 1 M reads over 100k keys,
// cache-aside (a miss writes the key evictable), in a segment that holds
// about 10% of them, beside an exact LRU of as many entries simulated on
// the same trace. Reported as metrics; run with -benchtime 1x.
func BenchmarkHitRatioZipf(b *testing.B) {
	const reads, keys = 1_000_000, 100_000
	trace := cachesim.ZipfTrace(reads, keys, 0.99, 1)
	value := make([]byte, 100)
	buf := make([]byte, len(value))
	names := make([]string, keys)
	for k := range names {
		names[k] = fmt.Sprint("k", k)
	}
	for b.Loop() {
		e := newTestEngine(b, 2<<20, Config{CompressMin: -1})
		hits := 0
		for _, k := range trace {
			if _, ok, _ := e.Get(names[k], buf); ok {
				hits++
			} else if err := e.SetEvictable(names[k], value, 0); err != nil {
				b.Fatal(err)
			}
		}
		st, _ := e.Stats()
		lru := cachesim.LRUHits(trace, int(st.Keys))
		b.ReportMetric(100*float64(hits)/reads, "sieve-hit-%")
		b.ReportMetric(100*float64(lru)/reads, "lru-hit-%")
		b.ReportMetric(float64(st.Keys), "entries")
	}
}
