package shm

import (
	"sync/atomic"
	"time"
)

// Free memory never stays stranded in one size class:
//   - alloc splits a larger free block it takes (split), keeping the
//     smallest head that fits and freeing the tail as blocks of their own;
//   - when a write finds no block even after expired records went, one
//     pass under every stripe lock (coalesce) merges each run of adjacent
//     free blocks and lays it out again as the largest blocks it holds.
//
// Both keep one invariant at every instruction: the arena below the bump
// pointer parses as a sequence of blocks, each block's class byte giving
// its size. New headers inside a region are written last block first, so
// a walk that meets an old header skips over the new ones and a walk that
// meets a new one finds every later one already written. A death leaves
// at worst free blocks on no list, which a pass finds again: a split is
// journaled (repairSplit finishes it), a pass is named in the header
// (whoever finds its owner dead runs the pass again, see coalesceLocked).

// representable reports whether n bytes can be laid out as whole blocks (0
// included). Classes start 64, 80, 112, 144 (multiples of 16), so every
// multiple of 16 is a sum of classes but 16, 32, 48 and 96.
func representable(n uint64) bool {
	return n%16 == 0 && (n == 0 || n == 64 || n == 80 || n >= 112)
}

// carveClass is the largest class of at most rem bytes that leaves a
// representable rest. rem must be representable and > 0.
func (e *Engine) carveClass(rem uint64) uint64 {
	c := min(uint64(classFor(rem)), e.classes-1)
	for classSizes[c] > rem || !representable(rem-classSizes[c]) {
		c--
	}
	return c
}

// carve lays free-block headers over [start, end) (representable): first
// n blocks of class c, then the largest blocks the rest holds. It then
// calls push with each block in address order. The headers are written
// from the last block back (see above).
func (e *Engine) carve(start, end, c, n uint64, push func(off uint64)) {
	var buf [80]uint64
	offs := buf[:0]
	for off := start; off < end; {
		offs = append(offs, off)
		if n > 0 {
			n--
			off += classSizes[c]
		} else {
			off += classSizes[e.carveClass(end-off)]
		}
	}
	for i := len(offs) - 1; i >= 0; i-- {
		next := end
		if i+1 < len(offs) {
			next = offs[i+1]
		}
		atomic.StoreUint64(e.claimSlot(offs[i]), kindFree|uint64(classFor(next-offs[i]))<<16)
		crashPoint(crashCarved)
	}
	for _, off := range offs {
		push(off)
	}
}

// slabBytes is how much of a larger block a split turns into blocks of
// the class it was taken for (at most slabBlocks of them): the next writes
// of that class pop one each, and the rest, which may leave a few blocks
// too small for that class, is cut once per slab rather than per record.
const (
	slabBytes  = 256 << 10
	slabBlocks = 1024
)

// splitPlan is how split cuts a block of class k for a record of class c:
// the block's new class, and how many blocks of that class follow it
// before the rest. ok is false when the block stays whole.
func splitPlan(k, c uint64) (head, n uint64, ok bool) {
	for ; c < k; c++ {
		rest := classSizes[k] - classSizes[c]
		for n = min(rest/classSizes[c], max(min(slabBytes/classSizes[c], slabBlocks), 1)); ; n-- {
			if representable(rest - n*classSizes[c]) {
				return c, n, true
			}
			if n == 0 {
				break
			}
		}
	}
	return k, 0, false
}

// split cuts the free block off of class k, just taken off a list for a
// record of class c < k, down to class c (or the next one that leaves a
// representable rest: splitPlan), and frees the rest on stripe si. It
// returns the block's class.
func (e *Engine) split(si uint64, st *stripe, off, k, c uint64) uint64 {
	c, n, ok := splitPlan(k, c)
	if !ok {
		return k
	}
	st.jAlloc = journal(off, c) | k<<splitShift | jSplit
	e.carve(off+classSizes[c], off+classSizes[k], c, n, func(blk uint64) {
		crashPoint(crashSplitTail)
		if blk == off+classSizes[c] {
			e.rec(off).class = uint8(c) // once every tail header is written
			crashPoint(crashSplitShrunk)
		}
		e.pushFree(si, blk)
	})
	st.jAlloc = journal(off, c)
	return c
}

// repairSplit finishes a split that stripe si's owner died in: the tail
// laid out as split lays it and every tail block on the stripe's list
// once. The block off itself then reads as class c, popped and not
// written.
func (e *Engine) repairSplit(si, jAlloc uint64) {
	off, c := splitJournal(jAlloc)
	k := jAlloc >> splitShift & classMask
	if k >= e.classes || !e.blockInRange(off, k) {
		return
	}
	head, n, ok := splitPlan(k, c)
	if !ok || head != c {
		return
	}
	e.carve(off+classSizes[c], off+classSizes[k], c, n, func(blk uint64) {
		e.rec(off).class = uint8(c)
		if cb := uint64(e.rec(blk).class); !e.onList(si, cb, blk) {
			e.pushFree(si, blk)
		}
	})
}

// Journal bits of a split (jAlloc): the class the block had.
const (
	splitShift = 48
	jSplit     = 1 << 61
)

// roomFor reports whether the write of stripe si that found no block for
// need bytes on its attempt-th try should try again after making room,
// and makes it (the caller holds no stripe): first by reclaiming expired
// records, then by evicting cache (sieve.go), then by a coalescing pass
// when one may help.
// noRoom is a write's way out when stripe si (held, st) has no block for
// need bytes on its attempt-th try: it unlocks (changed: as unlock's), makes
// room, and returns nil for the caller to try again, or the refusal once
// nothing is left to try. Called only on that slow path.
func (e *Engine) noRoom(si uint64, st *stripe, changed bool, attempt int, need uint64) error {
	e.unlock(st, changed)
	if e.roomFor(si, attempt, need) {
		return nil
	}
	return e.refuse(si, need)
}

func (e *Engine) roomFor(si uint64, attempt int, need uint64) bool {
	switch attempt {
	case 0:
		e.reclaimExpired()
		return true
	case 1:
		if e.evict(si, need) {
			return true
		}
		return e.coalesce(need)
	case 2:
		return e.coalesce(need)
	}
	return false
}

// coalesce runs a pass if one may give a block for need bytes; it reports
// whether it ran.
func (e *Engine) coalesce(need uint64) bool {
	if !e.coalesceHelps(need) {
		return false
	}
	if e.lockAll() != nil {
		return false // a stopped process holds a stripe: no pass until it goes
	}
	ran := e.coalesceHelps(need) // not when another process's pass just ran
	if ran {
		c := classFor(need)
		largest := e.coalesceLocked()
		if largest < c && e.compactLocked(classSizes[c]) {
			largest = e.coalesceLocked() // lists again what compactLocked took off
		}
		// A pass that made no room is not run again until more is free
		// (or a while later); one that did may run again at once for the
		// next write that finds none (a compaction frees compactBatch at
		// a time).
		left := uint64(0)
		if largest < c {
			left = e.arenaBytes() - uint64(max(e.usedBytes()-e.evictableBytes(), 0))
		}
		atomic.StoreUint64(e.word(hCoalesceFree), left)
	}
	e.unlockAll() // not deferred: a pass that dies must leave every stripe held
	return ran
}

// coalesceHelps reports whether the free bytes could hold a block for need
// bytes, and a pass may find it: one died unfinished, or more memory is free
// than after the last pass, or that pass is a while ago. A full segment that
// keeps refusing writes pays for a pass (a walk of the arena under every lock)
// only as often as memory is freed.
func (e *Engine) coalesceHelps(need uint64) bool {
	if w := atomic.LoadUint64(e.word(hCoalesce)); w != 0 && !ownerAlive(w) {
		return true
	}
	// What a pass may give: the free bytes, and the cache a compaction
	// evicts.
	free := e.arenaBytes() - uint64(max(e.usedBytes()-e.evictableBytes(), 0))
	if free < classSizes[min(uint64(classFor(need)), e.classes-1)] {
		return false
	}
	last := atomic.LoadUint64(e.word(hCoalesceFree))
	return free >= last+max(need, e.arenaBytes()/1024) ||
		nanotime()-int64(atomic.LoadUint64(e.word(hCoalesceAt))) > int64(time.Second)
}

func (e *Engine) arenaBytes() uint64 { return e.arenaEnd - e.arenaOff }

// coalesceLocked is the pass; the caller holds every stripe. A walk that
// does not end exactly at the bump pointer (a corrupt header) changes
// nothing. Then every free list is emptied and each run of free blocks is
// laid out anew, its blocks dealt to the stripes in turn. It returns the
// largest class it laid out (-1: none).
func (e *Engine) coalesceLocked() (largest int) {
	largest = -1
	bump := atomic.LoadUint64(e.word(hBump))
	for off := e.arenaOff; off < bump; {
		c := uint64(e.rec(off).class)
		if c >= e.classes || off+classSizes[c] > bump {
			return largest
		}
		off += classSizes[c]
	}
	atomic.StoreUint64(e.word(hCoalesce), self())
	e.emptyFreeLists()
	crashPoint(crashListsEmptied)
	deal := uint64(0)
	push := func(off uint64) {
		e.pushFree(deal&e.stripeMask, off)
		deal++
	}
	run := uint64(0) // start of the current run of free blocks, 0 = none
	for off := e.arenaOff; off < bump; {
		r := e.rec(off)
		next := off + classSizes[r.class]
		if r.kind == kindFree {
			if run == 0 {
				run = off
			}
		} else if run != 0 {
			largest = max(largest, int(e.carveClass(off-run)))
			e.carve(run, off, 0, 0, push)
			run = 0
		}
		off = next
	}
	if run != 0 {
		largest = max(largest, int(e.carveClass(bump-run)))
		e.carve(run, bump, 0, 0, push)
	}
	atomic.StoreUint64(e.word(hCoalesceAt), uint64(nanotime()))
	atomic.AddUint64(e.word(hCoalesces), 1)
	atomic.StoreUint64(e.word(hCoalesce), 0)
	return largest
}

// Coalesces is how many coalescing passes ran since the segment was
// formatted (diagnostics, as Repairs).
func (e *Engine) Coalesces() uint64 { return atomic.LoadUint64(e.word(hCoalesces)) }

// finishCoalesce runs again a pass whose process died in it; the caller
// holds every stripe.
func (e *Engine) finishCoalesce() {
	if w := atomic.LoadUint64(e.word(hCoalesce)); w != 0 && !ownerAlive(w) {
		e.coalesceLocked()
	}
}

func (e *Engine) unlockAll() {
	for si := uint64(0); si < e.stripes; si++ {
		e.stripe(si).mu.unlock()
	}
}

// lowerBump gives the free blocks at the arena's end back to the untouched
// region above the bump pointer, zeroed as it was, so that writes carve
// them again exactly as in a fresh segment: a flush leaves none of a
// split's small blocks behind. The caller holds every stripe. Each block
// goes body first, then the bump pointer, then its header: a death leaves
// at worst a free block on no list (named in the header as a pass, so the
// next one finds it), never one a walk cannot parse.
func (e *Engine) lowerBump() {
	bump := atomic.LoadUint64(e.word(hBump))
	var offs []uint64
	for off := e.arenaOff; off < bump; {
		c := uint64(e.rec(off).class)
		if c >= e.classes || off+classSizes[c] > bump || len(offs) == 1<<16 {
			return // corrupt, or too fragmented to be worth it
		}
		offs = append(offs, off)
		off += classSizes[c]
	}
	atomic.StoreUint64(e.word(hCoalesce), self())
	e.emptyFreeLists()
	for i := len(offs) - 1; i >= 0 && e.rec(offs[i]).kind == kindFree; i-- {
		q := offs[i]
		clear(e.mem[q+recHeader : bump])
		crashPoint(crashLowering)
		atomic.StoreUint64(e.word(hBump), q)
		clear(e.mem[q : q+recHeader])
		bump = q
	}
	e.coalesceLocked() // lists what stays below the bump pointer
}
