package shm

import (
	"runtime"
	"sync/atomic"
)

// Allocation runs under the stripe lock of the record being written. It
// tries, in order: the stripe's own free list of the exact class, the
// global bump pointer, a block moved over from another stripe's list of
// the exact class (by tryLock only: never block on a second stripe while
// holding one), then larger classes, own stripe first.
//
// Every step is journaled before it is taken, and each journal entry can
// be settled by repair from the segment alone, so a process killed at any
// instruction leaks nothing:
//   - own-list pop: jAlloc names the block, then the head moves; the block
//     reads free until the record written into it says otherwise. Repair:
//     the block is ours when it is a record of our stripe not in our
//     chains, or free but no longer on our list.
//   - bump: jAlloc names the block, then a CAS on the block's claim word
//     (zero beyond the bump pointer: nothing was ever there) makes it ours,
//     then the bump pointer advances (anyone who finds a claimed block at
//     the bump pointer advances it past: a claimer that died is helped).
//   - steal: the block is flagged in transit, the source stripe's jOut
//     names it and where it goes, then it moves from the source's list to
//     ours and loses the flag. Repair of the source looks for it on both
//     lists, and takes it back only while it still reads in transit: the
//     source may be repaired long after the thief's stripe, when the block
//     has moved on from the thief's list.

// Journal words: block offset | class << 40 | flags.
const (
	offsetBits = 40 // arenas up to 1 TiB
	classMask  = 1<<7 - 1
	jBump      = 1 << 62 // jAlloc: the block came from the bump pointer
	dstShift   = 47      // jOut: destination stripe (12 bits)
)

func journal(off, c uint64) uint64 { return off | c<<offsetBits }

func splitJournal(j uint64) (off, class uint64) {
	return j & (1<<offsetBits - 1), j >> offsetBits & classMask
}

// claimWord is a claimed block's word at offset 24 (kind, flags, class,
// pad, keyLen): kindClaimed, its class, and the claiming stripe + 1 in
// the keyLen slot. Never zero.
func claimWord(si, c uint64) uint64 { return kindClaimed | c<<16 | (si+1)<<32 }

func (e *Engine) claimSlot(off uint64) *uint64 { return e.word(off + 24) }

// alloc returns a block of at least n bytes, journaled in jAlloc, and its
// class; 0 when none is free.
func (e *Engine) alloc(si uint64, st *stripe, n uint64) (off, class uint64) {
	c := uint64(classFor(n))
	if c >= e.classes || classSizes[c] < n {
		return 0, 0
	}
	if off = e.pop(si, st, c); off != 0 {
		return off, c
	}
	if off = e.bump(si, st, c); off != 0 {
		return off, c
	}
	others := e.othersFree(si)
	if others[c/64]&(1<<(c%64)) != 0 && e.steal(si, c) {
		return e.pop(si, st, c), c
	}
	for k := c + 1; k < e.classes; k++ {
		if off = e.pop(si, st, k); off != 0 {
			return off, e.split(si, st, off, k, c)
		}
	}
	for k := c + 1; k < e.classes; k++ {
		if others[k/64]&(1<<(k%64)) != 0 && e.steal(si, k) {
			if off = e.pop(si, st, k); off != 0 {
				return off, e.split(si, st, off, k, c)
			}
			break
		}
	}
	// A bump claim lost to another stripe may have left its intent.
	st.jAlloc = 0
	return 0, 0
}

// pop takes the head of stripe si's free list of class c. It leaves the
// block marked free: repair tells it from one still on the list by walking
// the list, and the record written into it next changes the mark.
func (e *Engine) pop(si uint64, st *stripe, c uint64) uint64 {
	head := e.freeHead(si, c)
	off := atomic.LoadUint64(head)
	if off == 0 {
		return 0
	}
	if !e.isFree(off, c) {
		// A corrupt list: drop it rather than hand out a live block.
		atomic.StoreUint64(head, 0)
		clearFreeBit(st, c)
		return 0
	}
	st.jAlloc = journal(off, c)
	next := e.rec(off).next
	*head = next
	crashPoint(crashPopped)
	if next == 0 {
		clearFreeBit(st, c)
	} else {
		setFreeBit(st, c) // heals a mask a segment of an older build left clear
	}
	return off
}

// setFreeBit and clearFreeBit keep the stripe's freeMask, under its lock;
// other stripes read it without (othersFree).
func setFreeBit(st *stripe, c uint64) {
	w := &st.freeMask[c/64]
	if m := atomic.LoadUint64(w); m&(1<<(c%64)) == 0 {
		atomic.StoreUint64(w, m|1<<(c%64))
	}
}

func clearFreeBit(st *stripe, c uint64) {
	w := &st.freeMask[c/64]
	if m := atomic.LoadUint64(w); m&(1<<(c%64)) != 0 {
		atomic.StoreUint64(w, m&^(1<<(c%64)))
	}
}

// emptyFreeLists empties every stripe's free lists (a coalescing pass or
// a compaction, holding every stripe, rebuilds them): heads first, then
// masks, so a list never holds blocks under a clear bit.
func (e *Engine) emptyFreeLists() {
	for i := uint64(0); i < e.stripes*e.classes; i++ {
		*e.word(e.freeOff + i*8) = 0
	}
	for si := uint64(0); si < e.stripes; si++ {
		st := e.stripe(si)
		atomic.StoreUint64(&st.freeMask[0], 0)
		atomic.StoreUint64(&st.freeMask[1], 0)
	}
}

// othersFree is the union of the other stripes' freeMasks: the classes
// worth a steal. A full segment answers "none" in two loads per stripe,
// where peeking every list head cost one per stripe and class.
func (e *Engine) othersFree(si uint64) (m [2]uint64) {
	for i := uint64(1); i < e.stripes; i++ {
		st := e.stripe((si + i) & e.stripeMask)
		m[0] |= atomic.LoadUint64(&st.freeMask[0])
		m[1] |= atomic.LoadUint64(&st.freeMask[1])
	}
	return m
}

// bump carves a new block of class c from the arena's untouched end.
func (e *Engine) bump(si uint64, st *stripe, c uint64) uint64 {
	bp := e.word(hBump)
	size := classSizes[c]
	for {
		cur := atomic.LoadUint64(bp)
		if cur+size > e.arenaEnd || cur < e.arenaOff {
			return 0
		}
		if w := atomic.LoadUint64(e.claimSlot(cur)); w != 0 {
			// Claimed, the bump pointer not yet past it: help.
			if w>>16&classMask >= e.classes {
				return 0 // corrupt
			}
			atomic.CompareAndSwapUint64(bp, cur, cur+classSizes[w>>16&classMask])
			runtime.Gosched()
			continue
		}
		st.jAlloc = journal(cur, c) | jBump
		if atomic.CompareAndSwapUint64(e.claimSlot(cur), 0, claimWord(si, c)) {
			crashPoint(crashClaimed)
			atomic.CompareAndSwapUint64(bp, cur, cur+size)
			return cur
		}
	}
}

// steal moves the head of another stripe's free list of class c to stripe
// si's list of that class. Masks and list heads are peeked first so that
// held stripes with nothing to give cost no tryLock (which reads /proc
// when the stripe is held).
func (e *Engine) steal(si, c uint64) bool {
	for i := uint64(1); i < e.stripes; i++ {
		src := (si + i) & e.stripeMask
		other := e.stripe(src)
		if atomic.LoadUint64(&other.freeMask[c/64])&(1<<(c%64)) == 0 ||
			atomic.LoadUint64(e.freeHead(src, c)) == 0 {
			continue
		}
		ok, died := other.mu.tryLock()
		if !ok {
			continue
		}
		if died {
			e.repair(src, si)
		}
		head := e.freeHead(src, c)
		off := atomic.LoadUint64(head)
		moved := off != 0 && e.isFree(off, c)
		if moved {
			r := e.rec(off)
			r.flags |= flagInTransit
			other.jOut = journal(off, c) | si<<dstShift
			atomic.StoreUint64(head, r.next)
			if r.next == 0 {
				clearFreeBit(other, c)
			}
			crashPoint(crashStealUnlinked)
			setFreeBit(e.stripe(si), c)
			mine := e.freeHead(si, c)
			r.next = atomic.LoadUint64(mine)
			atomic.StoreUint64(mine, off)
			r.flags &^= flagInTransit
			other.jOut = 0
		}
		other.mu.unlock()
		if moved {
			return true
		}
	}
	return false
}

// pushFree marks the block free and pushes it on stripe si's list of its
// class: mark first, so a block on a list always reads kindFree.
//
// Free list heads are plain stores (so are the journal words): only the
// stripe's lock holder reads or writes them, and a process killed between
// two stores has done exactly the ones before (interrupts are precise; the
// compiler keeps stores in program order). Chain links are plain stores
// too, for the same reason (see remove and install in index.go).
func (e *Engine) pushFree(si, off uint64) {
	r := e.rec(off)
	c := uint64(r.class)
	r.kind = kindFree
	crashPoint(crashMarkedFree)
	setFreeBit(e.stripe(si), c)
	head := e.freeHead(si, c)
	r.next = *head
	*head = off
	crashPoint(crashPushed)
}

// blockInRange reports whether off is an arena block of class c below the bump
// pointer.
func (e *Engine) blockInRange(off, c uint64) bool {
	return off >= e.arenaOff && off%16 == 0 && c < e.classes &&
		off+classSizes[c] <= atomic.LoadUint64(e.word(hBump))
}

// isFree reports whether off is a free block of class c.
func (e *Engine) isFree(off, c uint64) bool {
	return e.blockInRange(off, c) && e.rec(off).kind == kindFree && uint64(e.rec(off).class) == c
}

// onList reports whether off is on stripe si's free list of class c.
func (e *Engine) onList(si, c, off uint64) bool {
	limit := (atomic.LoadUint64(e.word(hBump))-e.arenaOff)/classSizes[0] + 1
	for x := atomic.LoadUint64(e.freeHead(si, c)); x != 0 && limit > 0; x = e.rec(x).next {
		if x == off {
			return true
		}
		if !e.isFree(x, c) {
			return false
		}
		limit--
	}
	return false
}
