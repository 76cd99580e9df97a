package shm

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// A key hashes (hashKey, keyed by the segment's seed) to bucket
// h & bucketMask; bucket b belongs to stripe b & stripeMask, whose lock
// guards the bucket's chain. Chains are singly linked through record.next;
// new records go to the head.

func (e *Engine) locate(key string) (b uint64, h uint32) {
	h = e.hashKey(key)
	return uint64(h) & e.bucketMask, h
}

// lockStripe takes stripe si's lock, repairing the stripe first when its
// previous owner died holding it. A live owner that holds it past the
// lock timeout is an error (lockTimeoutError).
func (e *Engine) lockStripe(si uint64) (*stripe, error) {
	if err := e.faulted(); err != nil {
		return nil, err
	}
	armFaults()
	st := e.stripe(si)
	died, held := st.mu.lock(e.lockTimeout)
	if held != 0 {
		return nil, e.lockTimeoutError(si, held)
	}
	if died {
		e.repair(si, noStripe)
	}
	return st, nil
}

// unlock releases the stripe. changed: a record was deleted, expired or
// changed, so sleepers in WaitRelease must re-check. The waiters flag is
// read and cleared under the lock, the wake comes after it.
func (e *Engine) unlock(st *stripe, changed bool) {
	wake := false
	if changed {
		st.seq++
		if st.waiters != 0 {
			st.waiters = 0
			wake = true
		}
	}
	st.mu.unlock()
	if wake {
		futexWake(&st.seq, math.MaxInt32)
	}
}

// find walks bucket b's chain for key of kind. It returns the link word
// that points at the record and the record's offset, 0 when absent. An
// offset outside the arena ends the walk (repair drops such links), and
// so does a walk longer than the arena holds blocks (a corrupt chain that
// loops: repair cuts it, see cutLoop).
func (e *Engine) find(b uint64, h uint32, key string, kind uint8) (link *uint64, off uint64) {
	link = e.bucket(b)
	hops := e.maxChain
	for off = *link; off != 0; off = *link {
		if off < e.arenaOff || off >= e.arenaEnd-recHeader || hops == 0 {
			return link, 0
		}
		hops--
		r := e.rec(off)
		if r.hash == h && r.kind == kind && e.fits(off, r) && e.keyEq(off, r, key) {
			return link, off
		}
		link = &r.next
	}
	return link, 0
}

// linkTo is the link word that points at the record at off in its
// bucket's chain; nil when no chain reaches it (within as many hops as
// the arena holds blocks, and inside the arena: a corrupt chain ends it).
func (e *Engine) linkTo(off uint64) *uint64 {
	link := e.bucket(uint64(e.rec(off).hash) & e.bucketMask)
	for hops := e.maxChain; *link != off; hops-- {
		if next := *link; next == 0 || hops == 0 || next < e.arenaOff || next >= e.arenaEnd-recHeader {
			return nil
		}
		link = &e.rec(*link).next
	}
	return link
}

// fits reports whether the record's key and value lie inside its block, and
// its block inside the arena. Only a corrupt segment has one that does not
// (repair drops it); find passes it by rather than let a reader run past the
// segment's end.
func (e *Engine) fits(off uint64, r *record) bool {
	c := uint64(r.class)
	return c < e.classes && off+classSizes[c] <= e.arenaEnd &&
		recHeader+uint64(r.keyLen)+uint64(r.storedLen) <= classSizes[c]
}

// chainNext is the link after off in a chain walk, 0 at the end or at an
// offset outside the arena.
func (e *Engine) chainNext(off uint64) uint64 {
	if off < e.arenaOff || off >= e.arenaEnd-recHeader {
		return 0
	}
	return atomic.LoadUint64(&e.rec(off).next)
}

// cutLoop ends bucket b's chain where it loops back on itself (only a
// corrupt segment has such a chain: a record is published once, at a
// chain's head or in place of another), keeping every record once. Floyd's
// cycle finding: no memory, two walks of the chain. The caller holds b's
// stripe.
func (e *Engine) cutLoop(b uint64) (cut bool) {
	head := atomic.LoadUint64(e.bucket(b))
	slow, fast := head, head
	for {
		slow = e.chainNext(slow)
		fast = e.chainNext(e.chainNext(fast))
		if slow == 0 || fast == 0 {
			return false
		}
		if slow == fast {
			break
		}
	}
	// The loop starts where a walk from the head meets one from the
	// meeting point; its last record links back to that start.
	start := head
	for start != slow {
		start, slow = e.chainNext(start), e.chainNext(slow)
	}
	last := start
	for e.chainNext(last) != start {
		last = e.chainNext(last)
	}
	atomic.StoreUint64(&e.rec(last).next, 0)
	return true
}

// Chain links are read only under their stripe's lock, so publishing and
// unlinking need no atomic instruction (an XCHG each, ~5 ns on the lock
// path): a plain aligned word store is one store, never torn on the 64-bit
// targets this package builds for, and the compiler keeps stores in
// program order, so a process killed at any instruction has done exactly
// the stores before it (the same argument as for the free lists and the
// journal, see pushFree). Other processes see them after the unlock.
var _ = [1]byte{}[unsafe.Sizeof(uintptr(0))-8] // 64-bit targets only

// remove unlinks the record at off (pointed at by link) and frees its
// block, journaled so repair can finish a free a death interrupted.
func (e *Engine) remove(si uint64, st *stripe, link *uint64, off uint64) {
	r := e.rec(off)
	if r.flags&flagEvictable != 0 {
		e.queueUnlink(st, off)
	}
	st.jFree = journal(off, uint64(r.class))
	*link = r.next
	crashPoint(crashUnlinked)
	e.unaccount(st, r)
	e.pushFree(si, off)
	st.jFree = 0
}

// install publishes the record written in the allocated block blk: in place
// of the record at off (pointed at by link), or as the head of bucket b
// when off is 0. One word store publishes it; the old block is freed
// after. Both blocks are journaled until the end.
func (e *Engine) install(si uint64, st *stripe, b uint64, link *uint64, off, blk uint64) {
	e.publish(si, st, b, link, off, blk, false)
}

// publish is install; moved: blk is a copy of the record at off (compact),
// which takes its place in the SIEVE queue, as old as it was, instead of
// joining it as the newest.
func (e *Engine) publish(si uint64, st *stripe, b uint64, link *uint64, off, blk uint64, moved bool) {
	nr := e.rec(blk)
	crashPoint(crashWritten)
	if off != 0 {
		old := e.rec(off)
		if moved && old.flags&flagEvictable != 0 {
			e.queueReplace(st, off, blk)
		} else if old.flags&flagEvictable != 0 {
			e.queueUnlink(st, off)
		}
		st.jFree = journal(off, uint64(old.class))
		nr.next = old.next
		*link = blk
		crashPoint(crashPublished)
		e.unaccount(st, old)
		e.pushFree(si, off)
	} else {
		head := e.bucket(b)
		nr.next = *head
		*head = blk
		crashPoint(crashPublished)
	}
	e.account(st, nr)
	if nr.flags&flagEvictable != 0 && !moved {
		e.queuePush(st, blk)
	}
	st.jAlloc, st.jFree = 0, 0
}

func (e *Engine) account(st *stripe, r *record) {
	st.bytes += int64(classSizes[r.class])
	if r.kind == kindFence {
		st.fences++
		st.fenceBytes += int64(classSizes[r.class])
		return
	}
	st.keys++
	if r.flags&flagCompressed != 0 {
		st.comp++
	}
	if r.flags&flagQuarantined != 0 {
		st.quarantined++ // moved by a compaction (compact.go)
	}
	if r.flags&flagEvictable != 0 {
		st.evictBytes += int64(classSizes[r.class])
	}
	st.noteDeadline(r.deadline)
}

// noteDeadline keeps minDL a lower bound of the stripe's deadlines.
func (st *stripe) noteDeadline(d int64) {
	if d != 0 && (st.minDL == 0 || d < st.minDL) {
		st.minDL = d
	}
}

func (e *Engine) unaccount(st *stripe, r *record) {
	st.bytes -= int64(classSizes[r.class])
	if r.kind == kindFence {
		st.fences--
		st.fenceBytes -= int64(classSizes[r.class])
		return
	}
	st.keys--
	if r.flags&flagCompressed != 0 {
		st.comp--
	}
	if r.flags&flagQuarantined != 0 {
		st.quarantined--
	}
	if r.flags&flagEvictable != 0 {
		st.evictBytes -= int64(classSizes[r.class])
	}
}
