package shm

import "sync/atomic"

// Allocation runs under the stripe lock of the record being written. It
// tries, in order: the stripe's own free list of the exact class, the
// global bump pointer, other stripes' free lists of the exact class (by
// tryLock only: never block on a second stripe while holding one), then
// larger classes, own stripe first. The block it returns is claimed and
// journaled in the stripe's jAlloc, so a process dying before the block is
// published lets repair free it.

// alloc returns a claimed block of at least n bytes and its class, or 0
// when none is free.
func (e *Engine) alloc(si uint64, st *stripe, n uint64) (off, class uint64) {
	c := uint64(classFor(n))
	if c >= e.classes || classSizes[c] < n {
		return 0, 0
	}
	if off = e.pop(si, st, si, c); off != 0 {
		return off, c
	}
	if off = e.bump(st, c); off != 0 {
		return off, c
	}
	if off, class = e.steal(si, st, c, c+1); off != 0 {
		return off, class
	}
	for k := c + 1; k < e.classes; k++ {
		if off = e.pop(si, st, si, k); off != 0 {
			return off, k
		}
	}
	return e.steal(si, st, c+1, e.classes)
}

// pop takes the head of stripe src's free list of class c for stripe si
// (both locked). The unlink comes before the claim mark, so a claimed
// block is never on a list; a death between the two leaks the block (the
// only window, two stores wide).
func (e *Engine) pop(si uint64, st *stripe, src, c uint64) uint64 {
	head := e.freeHead(src, c)
	off := atomic.LoadUint64(head)
	if off == 0 {
		return 0
	}
	if !e.blockInRange(off, c) || e.rec(off).kind != kindFree || uint64(e.rec(off).class) != c {
		// A corrupt list: drop it rather than hand out a live block.
		atomic.StoreUint64(head, 0)
		return 0
	}
	r := e.rec(off)
	st.jAlloc = off | c<<offsetBits
	atomic.StoreUint64(head, r.next)
	r.kind = kindClaimed
	return off
}

// bump carves a new block of class c from the arena's untouched end. A
// death between the CAS and the journal write leaks the block.
func (e *Engine) bump(st *stripe, c uint64) uint64 {
	bp := e.word(hBump)
	size := classSizes[c]
	for {
		cur := atomic.LoadUint64(bp)
		if cur+size > e.arenaEnd || cur < e.arenaOff {
			return 0
		}
		if atomic.CompareAndSwapUint64(bp, cur, cur+size) {
			st.jAlloc = cur | c<<offsetBits
			r := e.rec(cur)
			r.class = uint8(c)
			r.kind = kindClaimed
			return cur
		}
	}
}

// steal pops a block of a class in [from, to) from another stripe it can
// lock without waiting. A free list head is peeked first so that held
// stripes with nothing to give cost no tryLock (which reads /proc when the
// stripe is held).
func (e *Engine) steal(si uint64, st *stripe, from, to uint64) (uint64, uint64) {
	for i := uint64(1); i < e.stripes; i++ {
		src := (si + i) & e.stripeMask
		for c := from; c < to; c++ {
			if atomic.LoadUint64(e.freeHead(src, c)) == 0 {
				continue
			}
			other := e.stripe(src)
			ok, died := other.mu.tryLock()
			if !ok {
				break
			}
			if died {
				e.repair(src)
			}
			off := e.pop(si, st, src, c)
			other.mu.unlock()
			if off != 0 {
				return off, c
			}
		}
	}
	return 0, 0
}

// pushFree marks the block free and pushes it on stripe si's list of its
// class: mark first, so a block on a list always reads kindFree.
func (e *Engine) pushFree(si, off uint64) {
	r := e.rec(off)
	c := uint64(r.class)
	r.kind = kindFree
	head := e.freeHead(si, c)
	r.next = atomic.LoadUint64(head)
	atomic.StoreUint64(head, off)
}

// blockInRange: off is an arena block of class c below the bump pointer.
func (e *Engine) blockInRange(off, c uint64) bool {
	return off >= e.arenaOff && off%16 == 0 && c < e.classes &&
		off+classSizes[c] <= atomic.LoadUint64(e.word(hBump))
}
