package shm

import (
	"math"
	"sync/atomic"
)

// repair makes stripe si consistent after its lock was taken over from a
// process that died holding it (a mutation may have stopped at any
// instruction). Every mutation publishes with one atomic store and
// journals the blocks it allocates and frees, so repair:
//   - walks the stripe's chains, cutting a chain at a record that is out of
//     range or fails its checksum (cannot happen from a death alone: a
//     record is complete before it is published);
//   - frees the journaled new block if it was never published, and the
//     journaled old block if it was unlinked but not yet freed;
//   - drops a free list whose head is not a free block;
//   - rebuilds the stripe's counters from its chains.
func (e *Engine) repair(si uint64) {
	st := e.stripe(si)
	aOff, aClass := splitJournal(st.jAlloc)
	fOff, fClass := splitJournal(st.jFree)
	aReach, fReach := false, false
	var cnt stripeCount
	for b := si; b < e.buckets; b += e.stripes {
		link := e.bucket(b)
		for off := *link; off != 0; off = *link {
			if e.recordProblem(off, b) != "" {
				atomic.StoreUint64(link, 0)
				break
			}
			aReach = aReach || off == aOff
			fReach = fReach || off == fOff
			r := e.rec(off)
			cnt.add(r)
			link = &r.next
		}
	}
	for c := uint64(0); c < e.classes; c++ {
		head := e.freeHead(si, c)
		if off := *head; off != 0 && (!e.blockInRange(off, c) || e.rec(off).kind != kindFree || uint64(e.rec(off).class) != c) {
			atomic.StoreUint64(head, 0)
		}
	}
	// A block claimed but never published: free it. One that still reads
	// free was not yet (or no longer) off its list: leave it.
	if aOff != 0 && !aReach && e.blockInRange(aOff, aClass) && e.rec(aOff).kind != kindFree {
		e.rec(aOff).class = uint8(aClass)
		e.pushFree(si, aOff)
	}
	// A block unlinked but not yet on the free list: finish the free.
	if fOff != 0 && !fReach && e.blockInRange(fOff, fClass) {
		r := e.rec(fOff)
		if r.kind != kindFree || atomic.LoadUint64(e.freeHead(si, fClass)) != fOff {
			r.class = uint8(fClass)
			e.pushFree(si, fOff)
		}
	}
	st.jAlloc, st.jFree = 0, 0
	st.keys, st.bytes, st.comp, st.fences = cnt.keys, cnt.bytes, cnt.comp, cnt.fences
	// The dead owner may have released a key: wake sleepers to re-check.
	st.seq++
	if st.waiters != 0 {
		st.waiters = 0
		futexWake(&st.seq, math.MaxInt32)
	}
}

func splitJournal(j uint64) (off, class uint64) {
	return j & (1<<offsetBits - 1), j >> offsetBits
}

// stripeCount is what a stripe's counters must say, from its chains.
type stripeCount struct{ keys, bytes, comp, fences int64 }

func (c *stripeCount) add(r *record) {
	c.bytes += int64(classSizes[r.class])
	if r.kind == kindFence {
		c.fences++
		return
	}
	c.keys++
	if r.flags&flagCompressed != 0 {
		c.comp++
	}
}

// recordProblem checks a record reached from bucket b's chain; "" = good.
func (e *Engine) recordProblem(off, b uint64) string {
	if off < e.arenaOff || off%16 != 0 || off+recHeader > atomic.LoadUint64(e.word(hBump)) {
		return "offset out of the arena"
	}
	r := e.rec(off)
	switch {
	case r.kind != kindUser && r.kind != kindFence:
		return "not a record"
	case !e.blockInRange(off, uint64(r.class)):
		return "block past the bump pointer"
	case recHeader+uint64(r.keyLen)+uint64(r.storedLen) > classSizes[r.class]:
		return "longer than its block"
	case uint64(r.hash)&e.bucketMask != b:
		return "in the wrong bucket"
	case r.flags&flagCompressed == 0 && r.kind == kindUser && r.plainLen != r.storedLen:
		return "plain length differs from stored length"
	case r.sum != e.checksum(off, r):
		return "bad checksum"
	case hashKey(string(e.recKey(off, r))) != r.hash:
		return "hash does not match the key"
	}
	return ""
}
