package shm

import (
	"fmt"
	"sync/atomic"

	"github.com/ephpm/ephpm-kv/kv"
)

// Expired records are reclaimed lazily, with no goroutine or timer in any
// process: when an operation meets one, and by a pass over the stripes
// when an allocation finds no free block, before the write is refused.

// reclaimExpired removes every expired record, stripe by stripe (holding
// one lock at a time); a write that found no free block calls it before
// reporting the store full. Stripes whose earliest deadline is still
// ahead are skipped: a segment full of live records refuses a write
// without walking them.
func (e *Engine) reclaimExpired() {
	now := nanotime()
	for si := uint64(0); si < e.stripes; si++ {
		st, err := e.lockStripe(si)
		if err != nil {
			continue // held by a stopped process: skip it
		}
		n := 0
		if st.minDL != 0 && st.minDL <= now {
			n = e.reclaimStripe(si, st, now)
		}
		e.unlock(st, n > 0)
	}
}

// reclaimStripe removes the expired records of stripe si (locked) and
// sets minDL to the earliest deadline left.
func (e *Engine) reclaimStripe(si uint64, st *stripe, now int64) (n int) {
	st.minDL = 0
	for b := si; b < e.buckets; b += e.stripes {
		e.cutLoop(b) // a corrupt chain must not hold the walk below for ever
		link := e.bucket(b)
		for off := *link; off != 0; off = *link {
			if off < e.arenaOff || off >= e.arenaEnd-recHeader {
				break
			}
			r := e.rec(off)
			if (r.kind != kindUser && r.kind != kindFence) || !e.fits(off, r) {
				break // corrupt: freeing it would index past the class tables (repair drops it)
			}
			if r.kind == kindUser && r.deadline != 0 && r.deadline <= now {
				e.remove(si, st, link, off)
				st.expired++
				n++
				continue
			}
			if r.kind == kindUser {
				st.noteDeadline(r.deadline)
			}
			link = &r.next
		}
	}
	return n
}

// refuse counts a write refused for want of a block for need bytes on
// stripe si (the caller holds none) and says why.
func (e *Engine) refuse(si, need uint64) error {
	st, err := e.lockStripe(si)
	if err != nil {
		return err
	}
	st.reject++
	e.unlock(st, false)
	return e.fullError(need)
}

// fullError says what holds the memory: by then expired records are gone
// and free blocks are merged, so what is stored is the truth.
func (e *Engine) fullError(n uint64) error {
	var used, keys, fences int64
	for si := uint64(0); si < e.stripes; si++ {
		st := e.stripe(si)
		used += atomic.LoadInt64(&st.bytes)
		keys += atomic.LoadInt64(&st.keys)
		fences += atomic.LoadInt64(&st.fences)
	}
	free := int64(e.arenaBytes()) - used
	why := "the rest is free but in pieces smaller than that, between live records"
	if free < int64(classSizes[min(uint64(classFor(n)), e.classes-1)]) {
		why = "the rest is too small"
	}
	return fmt.Errorf("%w: no free block for a %d-byte record in the %s segment: %d of %d bytes hold %d live keys and %d fence records, %s",
		kv.ErrFull, n, sizeString(e.size), used, e.arenaBytes(), keys, fences, why)
}

func (e *Engine) usedBytes() int64 {
	var n int64
	for si := uint64(0); si < e.stripes; si++ {
		n += atomic.LoadInt64(&e.stripe(si).bytes)
	}
	return n
}
