package shm

import "sync/atomic"

// Ghosts: the hashes of evictable records SIEVE evicted lately, one 32-bit
// slot each, direct-mapped, so a newer ghost overwrites an older one and
// the table forgets at the pace the cache turns over (ghostsPerBucket sizes
// it at about one slot per record a full segment of small cache holds).
// An evictable write of a key whose ghost is there enters visited: it was
// evicted before it had a second chance to be read and is wanted again, so
// the hand passes it once, as it would a record read since its write.
//
// That is what a loop over more entries than the hand leaves room for
// needs, such as a site reading its options after a flush, while the old
// generation's records, read before the flush, hold their visited marks:
// plain SIEVE then evicts every new record before its second read, for as
// long as the loop runs (go/kv/kvtest checkCacheFlushedGenerations); with
// ghosts the second pass writes them visited, the hand passes them and
// reaches the old generation, which goes. A hit ratio on a Zipf trace
// stays SIEVE's (BenchmarkHitRatioZipf), as S3-FIFO's ghost queue (Yang et
// al., SOSP '23) leaves it.
//
// The slots are hints: written and read with atomics by any process under
// any stripe's lock or none, never journaled or repaired; a lost or stale
// slot costs one record one pass of the hand, never a held record.

// ghostsPerBucket is how many buckets share a slot (a bucket per 256 bytes).
const ghostsPerBucket = 4

func (e *Engine) ghost(h uint32) *uint32 {
	i := uint64(h*0x9e3779b1) >> e.ghostShift
	return (*uint32)(e.at(e.ghostsOff + i*4))
}

// ghostAdd records that the record of hash h was evicted.
func (e *Engine) ghostAdd(h uint32) { atomic.StoreUint32(e.ghost(h), h|1) }

// ghostTake reports whether a record of hash h was evicted lately, and
// forgets it.
func (e *Engine) ghostTake(h uint32) bool {
	g := e.ghost(h)
	if atomic.LoadUint32(g) != h|1 {
		return false
	}
	atomic.StoreUint32(g, 0)
	return true
}
