package shm

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Evictable records (kv.Cache) are cache: a write that finds no room drops
// them, chosen by SIEVE (Zhang et al., NSDI '24). Each stripe keeps its
// evictable records in a queue, oldest to newest, linked through two tail
// words of each record; a hit marks a record visited (one flag, set once);
// the stripe's hand walks from the oldest to the newest, clearing marks and
// evicting the first record it finds unmarked, and starts over at the
// oldest when it passes the newest. Held records are in no queue and are
// never evicted.
//
// The queue is not journaled: repair rebuilds it from the stripe's chains
// (in chain order, every mark kept), so a death in the middle of a link
// update costs the order, never a record.

const (
	flagEvictable = 0x08
	flagVisited   = 0x10
)

// queueWords is the tail an evictable record carries: the next newer and
// the next older record of its stripe's queue (0: none).
const queueWords = 2

type queueLinks struct{ newer, older uint64 }

func (e *Engine) qlinks(off uint64) *queueLinks {
	return (*queueLinks)(e.at(e.tail(off, e.rec(off))))
}

// queuePush appends the record at off to stripe st's queue, as its newest.
func (e *Engine) queuePush(st *stripe, off uint64) {
	q := e.qlinks(off)
	q.newer, q.older = 0, st.qNewest
	if st.qNewest != 0 {
		e.qlinks(st.qNewest).newer = off
	} else {
		st.qOldest = off
	}
	st.qNewest = off
}

// queueUnlink takes the record at off out of stripe st's queue.
func (e *Engine) queueUnlink(st *stripe, off uint64) {
	q := e.qlinks(off)
	if st.qHand == off {
		st.qHand = q.newer
	}
	if q.older != 0 {
		e.qlinks(q.older).newer = q.newer
	} else {
		st.qOldest = q.newer
	}
	if q.newer != 0 {
		e.qlinks(q.newer).older = q.older
	} else {
		st.qNewest = q.older
	}
}

// queueReplace puts the record at to, a copy of the one at from (its
// links with it), in from's place in stripe st's queue.
func (e *Engine) queueReplace(st *stripe, from, to uint64) {
	q := e.qlinks(to)
	if q.older != 0 {
		e.qlinks(q.older).newer = to
	} else {
		st.qOldest = to
	}
	if q.newer != 0 {
		e.qlinks(q.newer).older = to
	} else {
		st.qNewest = to
	}
	if st.qHand == from {
		st.qHand = to
	}
}

// markVisited is a hit's whole cost to SIEVE: the flag, set once (the
// checksum covers the flags, so it is sealed again; the caller has
// checked it first).
func (e *Engine) markVisited(off uint64, r *record) {
	if r.flags&(flagEvictable|flagVisited) == flagEvictable {
		r.flags |= flagVisited
		e.sealRecord(off)
	}
}

// evictStripe runs stripe si's hand (its lock held) until it has freed
// want bytes or the queue is empty, and returns the bytes freed.
func (e *Engine) evictStripe(si uint64, st *stripe, want uint64) (freed uint64) {
	for freed < want && st.qOldest != 0 {
		off := st.qHand
		if off == 0 {
			off = st.qOldest
		}
		r := e.rec(off)
		if r.flags&flagVisited != 0 && r.flags&flagQuarantined == 0 && r.sum == e.checksum(off, r) {
			r.flags &^= flagVisited
			e.sealRecord(off)
			st.qHand = e.qlinks(off).newer
			continue
		}
		// Unvisited (or corrupt: cache may always go).
		freed += classSizes[r.class]
		h := r.hash
		if !e.evictAt(si, st, off) {
			st.qOldest, st.qNewest, st.qHand = 0, 0, 0 // not in a chain: a broken queue, rebuilt by the next repair
			return freed
		}
		e.ghostAdd(h)
	}
	return freed
}

// evictAt drops the evictable record at off from its chain (it must be
// reachable there) and counts it.
func (e *Engine) evictAt(si uint64, st *stripe, off uint64) bool {
	link := e.linkTo(off)
	if link == nil {
		return false
	}
	e.remove(si, st, link, off)
	st.evicted++
	return true
}

// allocEvicting is a write's fast way to room in a full cache (its stripe
// holds evictable records): under the stripe's lock, its expired records
// go, then its evictable ones by SIEVE, until a block for need bytes comes
// free (a cache of one size frees a block of that size at the first
// eviction), or four times need went without one (the slow path, roomFor,
// then works across stripes and classes). A stripe without cache takes the
// slow path at once: reclaiming only its own expired records first would
// split a block it freed where another stripe's would have fitted.
func (e *Engine) allocEvicting(si uint64, st *stripe, need uint64) (off, class uint64, removed bool) {
	if st.minDL != 0 {
		if now := nanotime(); st.minDL <= now && e.reclaimStripe(si, st, now) > 0 {
			removed = true
			if off, class = e.alloc(si, st, need); off != 0 {
				return off, class, true
			}
		}
	}
	for freed := uint64(0); freed < 4*need && st.qOldest != 0; {
		freed += e.evictStripe(si, st, 1)
		removed = true
		if off, class = e.alloc(si, st, need); off != 0 {
			return off, class, true
		}
	}
	return 0, 0, removed
}

// evict makes room for need bytes by SIEVE, the writer's stripe si first,
// then the others one at a time (the caller holds none). It reports
// whether it freed anything.
func (e *Engine) evict(si, need uint64) bool {
	if e.evictableBytes() == 0 {
		return false
	}
	want := 2 * need
	freed := uint64(0)
	for i := uint64(0); i < e.stripes && freed < want; i++ {
		sj := (si + i) & e.stripeMask
		if atomic.LoadInt64(&e.stripe(sj).evictBytes) == 0 {
			continue
		}
		st, err := e.lockStripe(sj)
		if err != nil {
			return freed > 0
		}
		n := e.evictStripe(sj, st, want-freed)
		e.unlock(st, n > 0)
		freed += n
	}
	return freed > 0
}

// evictableBytes is what the stripes' counters say evictable records hold
// (read without their locks: a hint).
func (e *Engine) evictableBytes() (n int64) {
	for si := uint64(0); si < e.stripes; si++ {
		n += atomic.LoadInt64(&e.stripe(si).evictBytes)
	}
	return n
}

// SetEvictable implements kv.Cache.
func (e *Engine) SetEvictable(key string, value []byte, ttl time.Duration) error {
	_, err := e.putCache(key, value, ttl, putEvictable)
	return err
}

// SetNXEvictable implements kv.Cache.
func (e *Engine) SetNXEvictable(key string, value []byte, ttl time.Duration) (bool, error) {
	return e.putCache(key, value, ttl, putEvictable|putNX)
}

func (e *Engine) putCache(key string, value []byte, ttl time.Duration, mode putMode) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return false, err
	}
	p, err := e.prepare(value)
	if err != nil {
		return false, err
	}
	ok, err := e.putPrepared(key, &p, ttl, mode, nil)
	p.release()
	return ok, err
}

var _ kv.Cache = (*Engine)(nil)

// rebuildQueue links stripe si's evictable records anew (repair: a death
// may have left a link update half done), in chain order.
func (e *Engine) rebuildQueue(si uint64, st *stripe) {
	st.qOldest, st.qNewest, st.qHand = 0, 0, 0
	for b := si; b < e.buckets; b += e.stripes {
		hops := e.maxChain // a chain that loops (Verify reports it) ends the walk
		for off := *e.bucket(b); off != 0 && hops > 0; off, hops = e.rec(off).next, hops-1 {
			if e.recordProblem(off, b) != "" {
				break // repair cut the chain here
			}
			if r := e.rec(off); r.kind == kindUser && r.flags&flagEvictable != 0 && e.queueFits(off, r) {
				e.queuePush(st, off)
			}
		}
	}
}

// queueFits reports whether the record's queue words lie inside its block.
func (e *Engine) queueFits(off uint64, r *record) bool {
	return e.tail(off, r)+8*queueWords <= off+classSizes[r.class]
}

// queueProblem checks stripe si's queue for Verify: every evictable record
// of its chains in it once, linked both ways, the hand on one of them.
func (e *Engine) queueProblem(si uint64, st *stripe) string {
	want := map[uint64]bool{}
	for b := si; b < e.buckets; b += e.stripes {
		hops := e.maxChain // a chain that loops (Verify reports it) ends the walk
		for off := *e.bucket(b); off != 0 && hops > 0; off, hops = e.rec(off).next, hops-1 {
			if e.recordProblem(off, b) != "" {
				break
			}
			if r := e.rec(off); r.kind == kindUser && r.flags&flagEvictable != 0 {
				if !e.queueFits(off, r) {
					return fmt.Sprintf("evictable record at %d has no room for its queue words", off)
				}
				want[off] = true
			}
		}
	}
	older, handSeen := uint64(0), st.qHand == 0
	for off := st.qOldest; off != 0; off = e.qlinks(off).newer {
		if off < e.arenaOff || off >= e.arenaEnd || !want[off] {
			return fmt.Sprintf("record at %d is queued but is no evictable record of the stripe's chains (or is queued twice)", off)
		}
		delete(want, off)
		if e.qlinks(off).older != older {
			return fmt.Sprintf("record at %d links back to %d, not %d", off, e.qlinks(off).older, older)
		}
		handSeen = handSeen || off == st.qHand
		older = off
	}
	switch {
	case older != st.qNewest:
		return fmt.Sprintf("newest is %d, the walk ends at %d", st.qNewest, older)
	case len(want) > 0:
		return fmt.Sprintf("%d evictable records are not queued", len(want))
	case !handSeen:
		return fmt.Sprintf("the hand %d is on no queued record", st.qHand)
	}
	return ""
}
