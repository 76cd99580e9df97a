package store

import (
	"hash/maphash"
	"math/bits"
	"sync/atomic"
)

// ghosts holds a fingerprint of each evictable entry SIEVE evicted lately,
// one 32-bit slot each, direct-mapped, so a newer ghost overwrites an
// older one and the table forgets at the pace the cache turns over (about
// one slot per KiB of the memory limit). An evictable write of a key whose
// ghost is there enters visited: it went before its second read and is
// wanted again, so the hand passes it once. Without that, a loop over more
// entries than the hand leaves room for (a site reading its options after
// a flush, while the old generation's entries keep the visited marks
// their reads gave them) evicts every new entry before its second read
// for as long as the loop runs (kvtest checkCacheFlushedGenerations).
// S3-FIFO's ghost queue (Yang et al., SOSP '23) does the same; the Zipf
// hit ratio stays SIEVE's (BenchmarkHitRatioZipf).
//
// The table is made at the first eviction: a store that never evicts
// pays nothing.
type ghosts struct {
	seed  maphash.Seed
	table atomic.Pointer[ghostTable]
	limit int64
}

type ghostTable struct {
	slots []atomic.Uint32
	shift uint
}

func (g *ghosts) init(memoryLimit int64) {
	g.seed, g.limit = maphash.MakeSeed(), memoryLimit
}

func (g *ghosts) slot(t *ghostTable, key string) (*atomic.Uint32, uint32) {
	h := maphash.String(g.seed, key)
	return &t.slots[h>>t.shift], uint32(h) | 1
}

// add records that key's entry was evicted.
func (g *ghosts) add(key string) {
	t := g.table.Load()
	if t == nil {
		n := uint64(64)
		for n*2 <= uint64(g.limit>>10) && n < 1<<24 {
			n *= 2
		}
		t = &ghostTable{slots: make([]atomic.Uint32, n), shift: uint(64 - bits.TrailingZeros64(n))}
		if !g.table.CompareAndSwap(nil, t) {
			t = g.table.Load()
		}
	}
	s, fp := g.slot(t, key)
	s.Store(fp)
}

// take reports whether key's entry was evicted lately, and forgets it.
func (g *ghosts) take(key string) bool {
	t := g.table.Load()
	if t == nil {
		return false
	}
	s, fp := g.slot(t, key)
	return s.Load() == fp && s.CompareAndSwap(fp, 0)
}
