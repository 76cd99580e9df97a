package shm

import (
	"math"
	"sync/atomic"
	"time"
)

// The caller of repair holds no other stripe, or all of them.
const (
	noStripe   = math.MaxUint64
	allStripes = math.MaxUint64 - 1
)

// repair makes stripe si consistent after its lock was taken over from a
// process that died holding it (a mutation may have stopped at any
// instruction). held is another stripe the caller holds, or noStripe.
// Every mutation publishes with one word store and journals the blocks
// it allocates, frees and gives away (see alloc.go), so repair:
//   - walks the stripe's chains, cutting a chain at a record that is out of
//     range, and quarantining one that fails its checksum (a death alone
//     causes neither: a record is complete before it is published);
//   - settles the journal: a block allocated but never published goes back
//     to the free list, a block unlinked but not yet freed is freed, a
//     block being moved to another stripe ends on exactly one list;
//   - drops a free list whose head is not a free block;
//   - rebuilds the stripe's counters (and earliest deadline) from its chains.
func (e *Engine) repair(si, held uint64) {
	atomic.AddUint64(e.word(hRepairs), 1)
	st := e.stripe(si)
	if st.jAlloc&jSplit != 0 {
		e.repairSplit(si, st.jAlloc)
		st.jAlloc &^= jSplit | classMask<<splitShift
	}
	aOff, aClass := splitJournal(st.jAlloc)
	fOff, fClass := splitJournal(st.jFree)
	aReach, fReach := false, false
	var cnt stripeCount
	var minDL int64
	for b := si; b < e.buckets; b += e.stripes {
		e.cutLoop(b)
		link := e.bucket(b)
		for off := *link; off != 0; off = *link {
			if e.recordProblem(off, b) != "" {
				atomic.StoreUint64(link, 0)
				break
			}
			if r := e.rec(off); r.kind == kindUser && e.contentProblem(off, r) != "" {
				r.flags |= flagQuarantined // kept: it still holds its key (quarantine.go)
			}
			aReach = aReach || off == aOff
			fReach = fReach || off == fOff
			r := e.rec(off)
			cnt.add(r)
			if r.kind == kindUser && r.deadline != 0 && (minDL == 0 || r.deadline < minDL) {
				minDL = r.deadline
			}
			link = &r.next
		}
	}
	for c := uint64(0); c < e.classes; c++ {
		head := e.freeHead(si, c)
		if off := *head; off != 0 && !e.isFree(off, c) {
			atomic.StoreUint64(head, 0)
			clearFreeBit(st, c)
		} else if off != 0 {
			setFreeBit(st, c) // a mask left clear is healed where the list is walked
		}
	}
	if aOff != 0 && !aReach {
		e.repairAlloc(si, aOff, aClass, st.jAlloc&jBump != 0)
	}
	if fOff != 0 && !fReach && e.blockInRange(fOff, fClass) {
		// Unlinked, maybe marked free, maybe pushed: finish the free.
		r := e.rec(fOff)
		if r.kind != kindFree || atomic.LoadUint64(e.freeHead(si, fClass)) != fOff {
			r.class = uint8(fClass)
			e.pushFree(si, fOff)
		}
	}
	if st.jOut != 0 {
		e.repairSteal(si, held, st.jOut)
	}
	st.jAlloc, st.jFree, st.jOut = 0, 0, 0
	st.keys, st.bytes, st.comp, st.fences, st.fenceBytes = cnt.keys, cnt.bytes, cnt.comp, cnt.fences, cnt.fenceBytes
	st.quarantined, st.evictBytes = cnt.quarantined, cnt.evictBytes
	e.rebuildQueue(si, st)
	st.minDL = minDL
	// The dead owner may have released a key: wake sleepers to re-check.
	st.seq++
	if st.waiters != 0 {
		st.waiters = 0
		futexWake(&st.seq, math.MaxInt32)
	}
}

// repairAlloc settles a block stripe si was allocating when its owner
// died, not reachable from its chains: back to the free list if it is
// ours, else left to whoever has it.
func (e *Engine) repairAlloc(si, off, c uint64, bumped bool) {
	if off < e.arenaOff || off%16 != 0 || c >= e.classes || off+classSizes[c] > e.arenaEnd {
		return
	}
	r := e.rec(off)
	var ours bool
	switch r.kind {
	case kindClaimed:
		ours = atomic.LoadUint64(e.claimSlot(off)) == claimWord(si, c)
	case kindUser, kindFence:
		// Written but not published: only our stripe's lock holder writes
		// records of our stripe.
		ours = uint64(r.hash)&e.stripeMask == si && uint64(r.class) == c
	case kindFree:
		// Off our list but not yet written, or never taken off it.
		ours = !bumped && !e.onList(si, c, off)
	}
	if !ours {
		return
	}
	if bumped {
		// Claimed by us: make sure the bump pointer is past it.
		bp := e.word(hBump)
		for cur := atomic.LoadUint64(bp); cur <= off; cur = atomic.LoadUint64(bp) {
			atomic.CompareAndSwapUint64(bp, cur, off+classSizes[c])
		}
	}
	r.class = uint8(c)
	// From here it is a block of ours off our list, whatever its kind
	// reads: a repair that dies inside pushFree (the block marked free,
	// not yet pushed) must not leave a bump journal, which reads a free
	// block as another stripe's.
	e.stripe(si).jAlloc = journal(off, c)
	e.pushFree(si, off)
}

// repairSteal settles a block stripe si was giving to another stripe when
// its owner died: it must end on exactly one of the two lists. The other
// stripe is locked by tryLock only (retrying): a stripe is never waited
// for while one is held.
func (e *Engine) repairSteal(si, held, jOut uint64) {
	off, c := splitJournal(jOut)
	dst := jOut >> dstShift & (maxStripes - 1)
	if !e.blockInRange(off, c) || dst >= e.stripes || dst == si {
		return
	}
	if e.onList(si, c, off) {
		e.rec(off).flags &^= flagInTransit // never left
		return
	}
	if dst != held && held != allStripes {
		other := e.stripe(dst)
		for deadline := time.Now().Add(time.Second); ; {
			ok, died := other.mu.tryLock()
			if ok {
				if died {
					e.repair(dst, si)
				}
				break
			}
			if time.Now().After(deadline) {
				return // could not look: leave it (at worst a leaked block)
			}
			time.Sleep(100 * time.Microsecond)
		}
		defer other.mu.unlock()
	}
	r := e.rec(off)
	if e.onList(dst, c, off) {
		r.flags &^= flagInTransit // arrived
		return
	}
	// Neither list: still in transit, or it arrived and moved on (popped
	// and written, or stolen again: both clear the flag).
	if r.kind == kindFree && r.flags&flagInTransit != 0 {
		e.pushFree(si, off)
		r.flags &^= flagInTransit // after the push: a repair that dies in it must still know
	}
}

// stripeCount is what a stripe's counters must say, from its chains.
type stripeCount struct{ keys, bytes, comp, fences, fenceBytes, quarantined, evictBytes int64 }

func (c *stripeCount) add(r *record) {
	c.bytes += int64(classSizes[r.class])
	if r.kind == kindFence {
		c.fences++
		c.fenceBytes += int64(classSizes[r.class])
		return
	}
	c.keys++
	if r.flags&flagCompressed != 0 {
		c.comp++
	}
	if r.flags&flagQuarantined != 0 {
		c.quarantined++
	}
	if r.flags&flagEvictable != 0 {
		c.evictBytes += int64(classSizes[r.class])
	}
}

// recordProblem checks that a record reached from bucket b's chain can be
// walked past and read within its block; "" = good. contentProblem checks
// its bytes.
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
	}
	return ""
}

// contentProblem checks the bytes of a record recordProblem found sound:
// a stray write, never a death, makes one fail (quarantine.go).
func (e *Engine) contentProblem(off uint64, r *record) string {
	switch {
	case r.flags&flagQuarantined != 0:
		return "quarantined"
	case r.flags&flagCompressed == 0 && r.kind == kindUser && r.plainLen != r.storedLen:
		return "plain length differs from stored length"
	case r.sum != e.checksum(off, r):
		return "bad checksum"
	case e.hashKey(string(e.recKey(off, r))) != r.hash:
		return "hash does not match the key"
	}
	return ""
}

// Repairs is how many times a stripe was repaired after its owner died,
// since the segment was formatted.
func (e *Engine) Repairs() uint64 { return atomic.LoadUint64(e.word(hRepairs)) }
