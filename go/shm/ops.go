package shm

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
)

// The kv.Engine operations. Each is decided under its key's stripe lock,
// with the semantics of the in-process store (package store): expired
// records are absent for every operation and are reclaimed when met.

var (
	_ kv.Engine        = (*Engine)(nil)
	_ kv.ReleaseWaiter = (*Engine)(nil)
)

// Get implements kv.Engine.
func (e *Engine) Get(key string, dst []byte) (int, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, false, err
	}
	b, h := e.locate(key)
	si := b & e.stripeMask
	st, err := e.lockStripe(si)
	if err != nil {
		return 0, false, err
	}
	link, off := e.find(b, h, key, kindUser)
	if off == 0 {
		st.misses++
		e.unlock(st, false)
		return 0, false, nil
	}
	r := e.rec(off)
	var c clock
	if !c.live(r.deadline) {
		e.remove(si, st, link, off)
		st.expired++
		st.misses++
		e.unlock(st, true)
		return 0, false, nil
	}
	if err := e.intact(st, off, r, key); err != nil {
		e.unlock(st, false)
		return 0, false, err
	}
	n := int(r.plainLen)
	if n > len(dst) {
		e.unlock(st, false)
		return n, true, nil
	}
	if err := e.copyValue(off, r, dst[:n]); err != nil {
		e.unlock(st, false)
		return 0, false, fmt.Errorf("%w: the stored value of %q does not decode: %v", ErrCorrupt, key, err)
	}
	e.markVisited(off, r)
	st.hits++
	e.unlock(st, false)
	return n, true, nil
}

// Set implements kv.Engine.
func (e *Engine) Set(key string, value []byte, ttl time.Duration) error {
	_, err := e.put(key, value, ttl, putSet, nil)
	return err
}

// SetNX implements kv.Engine.
func (e *Engine) SetNX(key string, value []byte, ttl time.Duration) (bool, error) {
	return e.put(key, value, ttl, putNX, nil)
}

// SetNXFenced implements kv.Engine: the fence is taken from the segment's
// counter under the insert's stripe lock.
func (e *Engine) SetNXFenced(key string, value []byte, ttl time.Duration) (int64, bool, error) {
	var fence int64
	ok, err := e.put(key, value, ttl, putNX, &fence)
	return fence, ok, err
}

// SetIfEq implements kv.Engine: compare and write under one stripe lock.
func (e *Engine) SetIfEq(key string, value, old []byte, ttl time.Duration) (bool, error) {
	if err := errors.Join(kv.CheckKey(key), kv.CheckTTL(ttl)); err != nil {
		return false, err
	}
	p, err := e.prepare(value)
	if err != nil {
		return false, err
	}
	p.old = old // compared under the lock, not passed down every write's path
	ok, err := e.putPrepared(key, &p, ttl, putIfEq, nil)
	p.release()
	return ok, err
}

// holdsEqual is SetIfEq's check, out of putPrepared's hot path: a live
// record at off whose value equals old.
//
//go:noinline
func (e *Engine) holdsEqual(st *stripe, off uint64, live bool, key string, old []byte) (bool, error) {
	if !live {
		return false, nil
	}
	return e.matches(st, off, e.rec(off), key, old)
}

// How putPrepared writes: putSet (0) a held record over any; putNX only
// where none is live (setnx); putEvictable an evictable record (sieve.go).
type putMode uint8

const (
	putSet       putMode = 0
	putNX        putMode = 1
	putEvictable putMode = 2
	putIfEq      putMode = 4 // only over a live record whose value equals old (SetIfEq)
)

func (e *Engine) put(key string, value []byte, ttl time.Duration, mode putMode, fence *int64) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return false, err
	}
	if n := int64(len(value)); n <= e.maxValue && (n < e.compressMin || e.compressMin <= 0) {
		// Stored as it is (a lock token): no call to prepare, no pool.
		p := prepared{stored: value, plainLen: len(value)}
		return e.putPrepared(key, &p, ttl, mode, fence)
	}
	p, err := e.prepare(value)
	if err != nil {
		return false, err
	}
	ok, err := e.putPrepared(key, &p, ttl, mode, fence)
	p.release()
	return ok, err
}

// putPrepared writes p at key as mode says. A write that finds no free
// block makes room (roomFor) and tries again before reporting the store
// full.
func (e *Engine) putPrepared(key string, p *prepared, ttl time.Duration, mode putMode, fence *int64) (bool, error) {
	b, h := e.locate(key)
	si := b & e.stripeMask
	need := recHeader + uint64(len(key)) + uint64(len(p.stored))
	switch {
	case mode&putEvictable != 0:
		need = tailNeed(key, len(p.stored), queueWords)
	case fence != nil:
		need = tailNeed(key, len(p.stored), fenceWords)
	}
	var c clock
	deadline := c.deadline(int64(ttl))
	for attempt := 0; ; attempt++ {
		st, err := e.lockStripe(si)
		if err != nil {
			return false, err
		}
		link, off := e.find(b, h, key, kindUser)
		live := false
		if off != 0 {
			live = c.live(e.rec(off).deadline)
			if mode&putNX != 0 && live {
				e.unlock(st, false)
				return false, nil
			}
		}
		if mode&putIfEq != 0 {
			if ok, err := e.holdsEqual(st, off, live, key, p.old); !ok {
				e.unlock(st, false)
				return false, err
			}
		}
		blk, class := e.alloc(si, st, need)
		removed := false
		if blk == 0 && st.qOldest != 0 {
			if blk, class, removed = e.allocEvicting(si, st, need); removed {
				// It may have taken the record we replace (expired, or
				// cache): look again.
				link, off = e.find(b, h, key, kindUser)
				live = off != 0 && c.live(e.rec(off).deadline)
			}
		}
		if blk == 0 {
			if err := e.noRoom(si, st, removed, attempt, need); err != nil {
				return false, err
			}
			continue
		}
		if fence != nil {
			*fence = int64(atomic.AddUint64(e.word(hFence), 1))
		}
		flags := uint8(0)
		if p.compressed {
			flags = flagCompressed
		}
		if mode&putEvictable != 0 {
			flags |= flagEvictable
			if (off == 0 || !live) && e.ghostTake(h) {
				flags |= flagVisited // evicted a moment ago and wanted again (ghost.go)
			}
		}
		if fence != nil {
			flags |= flagFenced
		}
		e.writeRecord(blk, class, kindUser, flags, h, key, p.stored, p.plainLen, deadline)
		if fence != nil {
			e.setRecFence(blk, *fence)
		}
		if off != 0 && !live {
			st.expired++
		}
		e.install(si, st, b, link, off, blk)
		e.unlock(st, off != 0 || removed)
		return true, nil
	}
}

// Del implements kv.Engine. An expired record is reclaimed but counts as
// absent.
func (e *Engine) Del(key string) (bool, error) {
	return e.deleteIf(key, deleteAlways, nil, 0)
}

// DelIfEq implements kv.Engine: compare and delete under one stripe lock.
func (e *Engine) DelIfEq(key string, token []byte) (bool, error) {
	return e.deleteIf(key, deleteIfEqual, token, 0)
}

// DelIfEqCoarse is DelIfEq for a caller that has read CLOCK_MONOTONIC_COARSE
// (in ns) during the call, as the C side of a PHP call does for a few ns: a
// lock whose deadline is more than a second ahead of that reading is live
// without a precise clock read (see clock). coarse <= 0: no reading.
func (e *Engine) DelIfEqCoarse(key string, token []byte, coarse int64) (bool, error) {
	return e.deleteIf(key, deleteIfEqual, token, coarse)
}

type deleteCond uint8

const (
	deleteAlways deleteCond = iota
	deleteIfEqual
)

func (e *Engine) deleteIf(key string, cond deleteCond, token []byte, coarse int64) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	b, h := e.locate(key)
	si := b & e.stripeMask
	st, err := e.lockStripe(si)
	if err != nil {
		return false, err
	}
	link, off := e.find(b, h, key, kindUser)
	if off == 0 {
		e.unlock(st, false)
		return false, nil
	}
	r := e.rec(off)
	c := clock{coarse: coarse}
	if !c.live(r.deadline) {
		e.remove(si, st, link, off)
		st.expired++
		e.unlock(st, true)
		return false, nil
	}
	if cond == deleteIfEqual {
		if ok, err := e.matches(st, off, r, key, token); !ok {
			e.unlock(st, false)
			return false, err
		}
	}
	e.remove(si, st, link, off)
	e.unlock(st, true)
	return true, nil
}

// Exists implements kv.Engine.
func (e *Engine) Exists(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	b, h := e.locate(key)
	st, err := e.lockStripe(b & e.stripeMask)
	if err != nil {
		return false, err
	}
	_, off := e.find(b, h, key, kindUser)
	var c clock
	ok := off != 0 && c.live(e.rec(off).deadline)
	e.unlock(st, false)
	return ok, nil
}

// Expire implements kv.Engine.
func (e *Engine) Expire(key string, ttl time.Duration) (bool, error) {
	return e.expire(key, nil, false, ttl)
}

// ExpireIfEq implements kv.Engine: owner-only lease renewal.
func (e *Engine) ExpireIfEq(key string, token []byte, ttl time.Duration) (bool, error) {
	return e.expire(key, token, true, ttl)
}

// expire changes a live record's deadline in place: one atomic store, the
// deadline being outside the checksum.
func (e *Engine) expire(key string, token []byte, compare bool, ttl time.Duration) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return false, err
	}
	b, h := e.locate(key)
	si := b & e.stripeMask
	st, err := e.lockStripe(si)
	if err != nil {
		return false, err
	}
	link, off := e.find(b, h, key, kindUser)
	if off == 0 {
		e.unlock(st, false)
		return false, nil
	}
	r := e.rec(off)
	var c clock
	if !c.live(r.deadline) {
		e.remove(si, st, link, off)
		st.expired++
		e.unlock(st, true)
		return false, nil
	}
	if compare {
		if ok, err := e.matches(st, off, r, key, token); !ok {
			e.unlock(st, false)
			return false, err
		}
	}
	d := c.deadline(int64(ttl))
	atomic.StoreInt64(&r.deadline, d)
	st.noteDeadline(d)
	e.unlock(st, true)
	return true, nil
}

// TTL implements kv.Engine.
func (e *Engine) TTL(key string) (time.Duration, error) {
	return e.ttl(key, nil, false)
}

// TTLIfEq implements kv.Engine.
func (e *Engine) TTLIfEq(key string, token []byte) (time.Duration, error) {
	return e.ttl(key, token, true)
}

func (e *Engine) ttl(key string, token []byte, compare bool) (time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	b, h := e.locate(key)
	st, err := e.lockStripe(b & e.stripeMask)
	if err != nil {
		return 0, err
	}
	defer e.unlock(st, false)
	_, off := e.find(b, h, key, kindUser)
	if off == 0 {
		return kv.TTLMissing, nil
	}
	r := e.rec(off)
	if compare {
		if ok, err := e.matches(st, off, r, key, token); !ok {
			return kv.TTLMissing, err
		}
	}
	if r.deadline == 0 {
		return kv.TTLPersistent, nil
	}
	if left := r.deadline - nanotime(); left > 0 {
		return time.Duration(left), nil
	}
	return kv.TTLMissing, nil
}

// Incr implements kv.Engine. The new value is a new record (the value is
// under the checksum), published in place of the old one.
func (e *Engine) Incr(key string, by int64, ttl time.Duration) (int64, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return 0, err
	}
	b, h := e.locate(key)
	si := b & e.stripeMask
	var c clock
	var text [24]byte
	for attempt := 0; ; attempt++ {
		st, err := e.lockStripe(si)
		if err != nil {
			return 0, err
		}
		link, off := e.find(b, h, key, kindUser)
		n, deadline := by, int64(0)
		live := false
		if off != 0 {
			r := e.rec(off)
			if live = c.live(r.deadline); live {
				var cur int64
				err := e.intact(st, off, r, key)
				if err == nil {
					cur, err = e.counter(off, r)
				}
				if err != nil {
					e.unlock(st, false)
					return 0, err
				}
				if (by > 0 && cur > math.MaxInt64-by) || (by < 0 && cur < math.MinInt64-by) {
					e.unlock(st, false)
					return 0, fmt.Errorf("%w: %d + %d", kv.ErrOverflow, cur, by)
				}
				n, deadline = cur+by, r.deadline
			}
		}
		if !live {
			deadline = c.deadline(int64(ttl))
		}
		digits := strconv.AppendInt(text[:0], n, 10)
		need := recHeader + uint64(len(key)) + uint64(len(digits))
		blk, class := e.alloc(si, st, need)
		if blk == 0 {
			if err := e.noRoom(si, st, false, attempt, need); err != nil {
				return 0, err
			}
			continue
		}
		e.writeRecord(blk, class, kindUser, 0, h, key, digits, len(digits), deadline)
		if off != 0 && !live {
			st.expired++
		}
		e.install(si, st, b, link, off, blk)
		e.unlock(st, off != 0)
		return n, nil
	}
}

// counter parses a record's value in the canonical decimal form Redis
// accepts: no sign other than '-', no leading zeros, no spaces.
func (e *Engine) counter(off uint64, r *record) (int64, error) {
	if r.flags&flagCompressed != 0 {
		return 0, kv.ErrNotInteger // counters are never large enough to compress
	}
	v := e.recValue(off, r)
	text := unsafe.String(unsafe.SliceData(v), len(v))
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, kv.ErrNotInteger
	}
	var canon [24]byte
	if string(strconv.AppendInt(canon[:0], n, 10)) != text {
		return 0, kv.ErrNotInteger
	}
	return n, nil
}

// Flush implements kv.Engine. Fence records go too, not their fences: the
// floor (fence.go) first rises past every fence issued, then past each
// record's fence before the record goes, so no fence issued or recorded
// before the flush passes after it.
func (e *Engine) Flush() error {
	e.raiseFloor(fenceAfter(int64(atomic.LoadUint64(e.word(hFence)))))
	for si := uint64(0); si < e.stripes; si++ {
		st, err := e.lockStripe(si)
		if err != nil {
			return err
		}
		for b := si; b < e.buckets; b += e.stripes {
			e.cutLoop(b)
			head := e.bucket(b)
			for off := *head; off != 0; off = *head {
				if off < e.arenaOff || off >= e.arenaEnd-recHeader ||
					(e.rec(off).kind != kindUser && e.rec(off).kind != kindFence) || !e.blockInRange(off, uint64(e.rec(off).class)) {
					atomic.StoreUint64(head, 0) // corrupt: drop the chain
					break
				}
				if r := e.rec(off); r.kind == kindFence {
					e.raiseFloor(fenceAfter(r.deadline))
				}
				e.remove(si, st, head, off)
			}
		}
		e.unlock(st, true)
	}
	// Everything is free: the arena goes back above the bump pointer, to be
	// carved as in a fresh segment, whatever classes the flushed records had.
	if err := e.lockAll(); err != nil {
		return err
	}
	e.coalesceLocked()
	e.lowerBump()
	e.unlockAll()
	return nil
}

// Fence implements kv.Engine. The highest fence of a resource lives in a
// fence record's deadline word, changed by one atomic store; a resource
// without one is judged by the floor. A new record may fold old ones
// (fence.go).
func (e *Engine) Fence(resource string, fence int64) (bool, error) {
	if err := kv.CheckKey(resource); err != nil {
		return false, err
	}
	b, h := e.locate(resource)
	si := b & e.stripeMask
	for attempt := 0; ; attempt++ {
		st, err := e.lockStripe(si)
		if err != nil {
			return false, err
		}
		link, off := e.find(b, h, resource, kindFence)
		if off != 0 {
			r := e.rec(off)
			ok := fence >= r.deadline
			if ok {
				atomic.StoreInt64(&r.deadline, fence)
			}
			e.unlock(st, false)
			return ok, nil
		}
		if fence < e.fenceFloor() {
			e.unlock(st, false)
			return false, nil
		}
		need := recHeader + uint64(len(resource))
		blk, class := e.alloc(si, st, need)
		if blk == 0 {
			if err := e.noRoom(si, st, false, attempt, need); err != nil {
				return false, err
			}
			continue
		}
		e.writeRecord(blk, class, kindFence, 0, h, resource, nil, 0, fence)
		e.install(si, st, b, link, 0, blk)
		if share := e.fenceShare(); st.fenceBytes > share {
			e.foldFences(si, st, share*3/4)
		}
		e.unlock(st, false)
		return true, nil
	}
}
