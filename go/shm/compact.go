package shm

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// Merging free neighbours (coalesce.go) cannot help where live records
// sit between the free blocks: a lock every few KB leaves runs too short
// for a larger record however much is free. compactLocked then moves the
// live records out of the stretch of the arena that holds the fewest of
// them into free blocks elsewhere, and the pass that follows merges the
// stretch whole.
//
// A move is a replace, as a write does it (install): the record copied
// into a free block journaled as that stripe's allocation, the old block
// journaled as freed before the copy is published in its place. A death
// at any step leaves the stripe for repair (every stripe is held, so
// every one is repaired when next taken), and free blocks on no list for
// the pass named in the header to list again.

// compactBatch is how much a compaction frees at most (or 1/64 of the
// arena, when more): the writes after it find room without a pass each.
// A pass walks the arena under every stripe lock, about 8 ms for 64 MiB
// here, so a larger segment frees more per pass.
const compactBatch = 256 << 10

// stretch is a part of the arena a compaction may empty: [start, end),
// with cost bytes of records to move out of it.
type stretch struct{ start, end, cost uint64 }

// compactLocked empties stretches of at least span+112 bytes (they carve a
// block of span's class) by moving the live records in them; the caller
// holds every stripe. When it reports true it took the free blocks off
// their lists, for the coalesceLocked the caller runs next.
func (e *Engine) compactLocked(span uint64) bool {
	bump := atomic.LoadUint64(e.word(hBump))
	free := e.arenaBytes() - uint64(max(e.usedBytes(), 0))
	chosen := e.chooseStretches(bump, span, free)
	if len(chosen) == 0 {
		return false
	}
	atomic.StoreUint64(e.word(hCoalesce), self())
	e.emptyFreeLists()
	crashPoint(crashListsEmptied)
	// The free blocks outside every chosen stretch, by class.
	pool := make([][]uint64, e.classes)
	slices.SortFunc(chosen, func(a, b stretch) int { return cmp.Compare(a.start, b.start) })
	next := 0
	for off := e.arenaOff; off < bump; off += classSizes[e.rec(off).class] {
		for next < len(chosen) && chosen[next].end <= off {
			next++
		}
		inside := next < len(chosen) && off >= chosen[next].start
		if r := e.rec(off); r.kind == kindFree && !inside {
			pool[r.class] = append(pool[r.class], off)
		}
	}
	for _, s := range chosen {
		for off := s.start; off < s.end; {
			r := e.rec(off)
			next := off + classSizes[r.class]
			switch {
			case r.kind == kindUser && r.flags&(flagEvictable|flagVisited) == flagEvictable:
				// Cache not read since the hand last passed: dropped, as
				// the hand would drop it. Cache read since is moved.
				si, h := uint64(r.hash)&e.stripeMask, r.hash
				if e.evictAt(si, e.stripe(si), off) {
					e.ghostAdd(h)
				}
			case (r.kind == kindUser || r.kind == kindFence) && !e.move(off, pool):
				return true // no block left for it: what moved stays moved
			}
			off = next
		}
	}
	return true
}

// chooseStretches walks the arena below bump once for stretches holding
// only free blocks, evictable records (evicted, at no cost) and held
// records smaller than span (a record as large as
// the block wanted is not worth moving for it, and a block mid-allocation
// is never moved), and picks the cheapest, up to a batch of bytes, whose
// records fit in what is free outside them.
func (e *Engine) chooseStretches(bump, span, free uint64) []stretch {
	c := uint64(classFor(span))
	want := span + 112
	var found []stretch
	start, cost := e.arenaOff, uint64(0)
	for off := e.arenaOff; off < bump; {
		r := e.rec(off)
		size := classSizes[r.class]
		off += size
		switch {
		case r.kind == kindFree:
		case r.kind == kindUser && r.flags&(flagEvictable|flagVisited) == flagEvictable: // evicted, not moved
		case (r.kind == kindUser || r.kind == kindFence) && uint64(r.class) < c:
			cost += size
		default:
			start, cost = off, 0
			continue
		}
		if off-start >= want {
			found = append(found, stretch{start, off, cost})
			start, cost = off, 0
		}
	}
	slices.SortFunc(found, func(a, b stretch) int { return cmp.Compare(a.cost, b.cost) })
	batch := max(compactBatch, e.arenaBytes()/64)
	var spans, costs uint64
	for i, s := range found {
		size := s.end - s.start
		// Moved into free blocks outside: free minus the free bytes inside.
		if spans >= batch || costs+s.cost > free-(spans-costs)-(size-s.cost) {
			return found[:i]
		}
		spans += size
		costs += s.cost
	}
	return found
}

// move copies the record at off into a free block of the pool (split to
// the smallest class that fits it) and publishes the copy in its place.
// It reports false when the pool has no block for it, or the record is
// in no chain (then it is left where it is).
func (e *Engine) move(off uint64, pool [][]uint64) bool {
	r := e.rec(off)
	b := uint64(r.hash) & e.bucketMask
	link := e.linkTo(off)
	if link == nil {
		return false
	}
	c := uint64(r.class)
	k := c
	for k < e.classes && len(pool[k]) == 0 {
		k++
	}
	if k == e.classes {
		return false
	}
	dst := pool[k][len(pool[k])-1]
	pool[k] = pool[k][:len(pool[k])-1]
	if k > c {
		if head, n, ok := splitPlan(k, c); ok {
			e.carve(dst+classSizes[head], dst+classSizes[k], head, n, func(blk uint64) {
				pool[e.rec(blk).class] = append(pool[e.rec(blk).class], blk)
			})
			e.rec(dst).class = uint8(head) // once the tail's headers are written
			k = head
		}
	}
	si := b & e.stripeMask
	st := e.stripe(si)
	st.jAlloc = journal(dst, k)
	crashPoint(crashPopped)
	// Everything but the class byte (offset 26), which stays the block's
	// own so the arena parses at every instruction; the tail words of a
	// lease set or rate log come along.
	copy(e.mem[dst:dst+26], e.mem[off:off+26])
	copy(e.mem[dst+27:dst+classSizes[c]], e.mem[off+27:off+classSizes[c]])
	if k != c && r.flags&flagQuarantined == 0 {
		if r.sum != e.checksum(off, r) {
			e.quarantine(st, r) // never laundered by the new checksum
			e.rec(dst).flags = r.flags
		} else {
			e.sealRecord(dst) // the class is under the checksum
		}
	}
	crashPoint(crashMoved)
	e.publish(si, st, b, link, off, dst, true)
	atomic.AddUint64(e.word(hMoves), 1)
	return true
}

// Moves is how many records compactions moved since the segment was
// formatted (diagnostics, as Coalesces).
func (e *Engine) Moves() uint64 { return atomic.LoadUint64(e.word(hMoves)) }
