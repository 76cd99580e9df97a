package shm

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"
)

// Fence records and the fence floor. A resource's highest fence lives in
// its fence record (Fence, ops.go); a resource without one accepts a fence
// only from the segment's floor up. The floor only rises, and it rises
// past a record's fence before the record goes, so forgetting a record
// never makes a stale fence acceptable. Records go by folding, lowest
// fences first, when a stripe's fence records outgrow their share of an
// eighth of the arena, and by Flush, which also lifts the floor past every
// fence issued. The price of folding: a resource whose record was folded
// refuses fences below the floor, even its own last one (a holder that old
// is refused, never a stale one accepted).

// fenceCeiling is as far as a fence recorded by hand raises the counter
// with the floor: far below math.MaxInt64, so that issuing never wraps
// (the counter, seeded in ns, reaches it in the year 2116).
const fenceCeiling = math.MaxInt64 / 2

func (e *Engine) fenceFloor() int64 { return int64(atomic.LoadUint64(e.word(hFenceFloor))) }

// raiseFloor lifts the floor to f, and the counter to just below it, so
// that the fences issued next pass it.
func (e *Engine) raiseFloor(f int64) {
	raiseTo(e.word(hFenceFloor), f)
	if f > math.MinInt64 {
		raiseTo(e.word(hFence), min(f-1, fenceCeiling))
	}
}

// fenceAfter is the least fence above f (f itself at the top of the range).
func fenceAfter(f int64) int64 {
	if f == math.MaxInt64 {
		return f
	}
	return f + 1
}

// fenceShare is how many block bytes a stripe's fence records may hold
// before Fence folds some: an eighth of the arena in all.
func (e *Engine) fenceShare() int64 {
	return int64((e.arenaEnd - e.arenaOff) / 8 / e.stripes)
}

// foldFences folds the lowest fences of stripe si (whose lock the caller
// holds) into the floor until the stripe's fence records hold at most keep
// bytes, and returns the block bytes freed (to the stripe's free lists,
// each block journaled as by any remove). keep 0 frees every fence record
// of the stripe: what an allocation that found no block may do before it
// gives up. No fence that was stale becomes acceptable; the next fences
// issued stay acceptable for every resource.
func (e *Engine) foldFences(si uint64, st *stripe, keep int64) (freed int64) {
	if st.fenceBytes <= keep {
		return 0
	}
	type held struct{ fence, size int64 }
	var recs []held
	e.walkFences(si, func(off uint64, r *record) bool {
		recs = append(recs, held{r.deadline, int64(classSizes[r.class])})
		return false
	})
	slices.SortFunc(recs, func(a, b held) int { return cmp.Compare(a.fence, b.fence) })
	over, floor, found := st.fenceBytes-keep, int64(0), false
	for _, h := range recs {
		if over <= 0 {
			break
		}
		floor, over, found = h.fence, over-h.size, true
	}
	if !found {
		return 0
	}
	e.raiseFloor(floor) // before any record goes
	e.walkFences(si, func(off uint64, r *record) bool {
		if r.deadline > floor {
			return false
		}
		freed += int64(classSizes[r.class])
		return true
	})
	return freed
}

// walkFences calls f on each fence record of stripe si (locked) and removes
// the record when f says so. A corrupt chain ends the walk of its bucket,
// as in reclaimStripe.
func (e *Engine) walkFences(si uint64, f func(off uint64, r *record) (remove bool)) {
	st := e.stripe(si)
	for b := si; b < e.buckets; b += e.stripes {
		e.cutLoop(b)
		link := e.bucket(b)
		for off := *link; off != 0; off = *link {
			if off < e.arenaOff || off >= e.arenaEnd-recHeader {
				break
			}
			r := e.rec(off)
			if (r.kind != kindUser && r.kind != kindFence) || !e.fits(off, r) {
				break
			}
			if r.kind == kindFence && f(off, r) {
				e.remove(si, st, link, off)
				continue
			}
			link = &r.next
		}
	}
}
