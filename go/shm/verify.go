package shm

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"
)

// Verify walks the whole segment under every stripe lock (taken in order,
// so it deadlocks with nobody: no one else blocks on a second stripe) and
// reports every inconsistency: each block below the bump pointer must be
// reachable from exactly one chain or on exactly one free list, without
// overlaps; checksums good (a quarantined record is reported, naming its
// key); the stripes' counters equal to what their
// chains hold; journals clear. A stripe whose owner died is repaired first
// (that is what taking its lock does).
func (e *Engine) Verify() error {
	if err := e.lockAll(); err != nil {
		return fmt.Errorf("shm verify: %w", err)
	}
	defer e.unlockAll()
	e.finishCoalesce() // a pass that died left free blocks off every list
	var problems []error
	report := func(format string, args ...any) {
		if len(problems) < 20 {
			problems = append(problems, fmt.Errorf(format, args...))
		}
	}
	type block struct{ off, size uint64 }
	var blocks []block
	bump := atomic.LoadUint64(e.word(hBump))
	if bump < e.arenaOff || bump > e.arenaEnd {
		return fmt.Errorf("shm verify: bump pointer %d outside the arena [%d, %d)", bump, e.arenaOff, e.arenaEnd)
	}
	limit := (bump-e.arenaOff)/classSizes[0] + 1 // more links than blocks: a cycle
	for si := uint64(0); si < e.stripes; si++ {
		st := e.stripe(si)
		if st.jAlloc != 0 || st.jFree != 0 || st.jOut != 0 {
			report("stripe %d: journal not clear (alloc %#x, free %#x, out %#x)", si, st.jAlloc, st.jFree, st.jOut)
		}
		var cnt stripeCount
		for b := si; b < e.buckets; b += e.stripes {
			n := uint64(0)
			for off := *e.bucket(b); off != 0; off = e.rec(off).next {
				if p := e.recordProblem(off, b); p != "" {
					report("bucket %d: record at %d: %s", b, off, p)
					break
				}
				if n++; n > limit {
					report("bucket %d: chain longer than the arena holds blocks (a cycle)", b)
					break
				}
				r := e.rec(off)
				cnt.add(r)
				if r.kind == kindUser && r.deadline != 0 && (st.minDL == 0 || r.deadline < st.minDL) {
					report("stripe %d: record at %d expires at %d, before the stripe's earliest deadline %d", si, off, r.deadline, st.minDL)
				}
				if p := e.contentProblem(off, r); p != "" {
					report("bucket %d: record at %d of key %q: %s", b, off, e.recKey(off, r), p)
				} else if p := e.familyProblem(off, r); p != "" {
					report("bucket %d: record at %d: %s", b, off, p)
				}
				blocks = append(blocks, block{off, classSizes[r.class]})
			}
		}
		if cnt != (stripeCount{st.keys, st.bytes, st.comp, st.fences, st.fenceBytes, st.quarantined, st.evictBytes}) {
			report("stripe %d: counters keys %d bytes %d compressed %d fences %d (%d bytes) quarantined %d evictable %d bytes, chains hold %d %d %d %d (%d) %d %d",
				si, st.keys, st.bytes, st.comp, st.fences, st.fenceBytes, st.quarantined, st.evictBytes,
				cnt.keys, cnt.bytes, cnt.comp, cnt.fences, cnt.fenceBytes, cnt.quarantined, cnt.evictBytes)
		}
		if p := e.queueProblem(si, st); p != "" {
			report("stripe %d: SIEVE queue: %s", si, p)
		}
		for c := uint64(0); c < e.classes; c++ {
			if *e.freeHead(si, c) != 0 && atomic.LoadUint64(&st.freeMask[c/64])&(1<<(c%64)) == 0 {
				report("stripe %d free list %d: holds blocks, but its freeMask bit is clear (no other stripe would steal them)", si, c)
			}
			n := uint64(0)
			for off := *e.freeHead(si, c); off != 0; off = e.rec(off).next {
				if !e.blockInRange(off, c) || e.rec(off).kind != kindFree || uint64(e.rec(off).class) != c {
					report("stripe %d free list %d: block at %d is not a free block of that class", si, c, off)
					break
				}
				if n++; n > limit {
					report("stripe %d free list %d: a cycle", si, c)
					break
				}
				blocks = append(blocks, block{off, classSizes[c]})
			}
		}
	}
	slices.SortFunc(blocks, func(a, b block) int { return int(int64(a.off) - int64(b.off)) })
	covered := uint64(0)
	for i, bl := range blocks {
		if i > 0 && blocks[i-1].off+blocks[i-1].size > bl.off {
			report("blocks at %d (%d bytes) and %d overlap or are listed twice", blocks[i-1].off, blocks[i-1].size, bl.off)
		}
		covered += bl.size
	}
	if covered != bump-e.arenaOff && len(problems) == 0 {
		report("%d of %d allocated arena bytes are neither in a chain nor on a free list (leaked)", int64(bump-e.arenaOff)-int64(covered), bump-e.arenaOff)
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("shm verify: %w", errors.Join(problems...))
}

// lockAll takes every stripe lock. It first tries holding none while it
// waits: when a stripe is busy it lets all go and starts again, so it
// never delays anyone who holds a stripe and waits (with tryLock) for one
// it has. Under a load that keeps some stripe always busy it then takes
// them in order, waiting: deadlock-free, since no one else waits for a
// stripe while holding one (repair's tryLock loop gives up after 1 s).
// A stripe held past the lock timeout by a live process fails it, holding
// none.
func (e *Engine) lockAll() error {
	if err := e.faulted(); err != nil {
		return err
	}
	armFaults()
	var died []uint64
	for attempt := 0; ; attempt++ {
		died = died[:0]
		si := uint64(0)
		for ; si < e.stripes; si++ {
			st := e.stripe(si)
			var ok, dead bool
			if attempt < 100 {
				ok, dead = st.mu.tryLock()
			} else {
				var held uint64
				dead, held = st.mu.lock(e.lockTimeout)
				if held != 0 {
					for i := uint64(0); i < si; i++ {
						e.stripe(i).mu.unlock()
					}
					return e.lockTimeoutError(si, held)
				}
				ok = true
			}
			if !ok {
				break
			}
			if dead {
				died = append(died, si)
			}
		}
		if si == e.stripes {
			for _, d := range died {
				e.repair(d, allStripes)
			}
			return nil
		}
		for i := uint64(0); i < si; i++ {
			e.stripe(i).mu.unlock()
		}
		time.Sleep(100 * time.Microsecond)
	}
}
