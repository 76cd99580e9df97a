package shm

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
)

// The exact sliding-window limiter (kv.RateLimiter). A key's log is one user
// record flagged flagRate whose value (under the checksum, never
// compressed) is
//
//	'R' | version | 2 bytes zero | capacity (uint32, the limit it was made for)
//
// followed, in the block's tail outside the checksum, by a state word
// (first slot | count << 32) and capacity slots: a ring of the admitted
// calls' times (monotonic ns), oldest first. An admitted call writes its
// slot (past count: unseen), raises the record's deadline, then stores the
// state word: one word publishes it, so a process killed at any
// instruction leaves the call recorded or not, never half. Only a call with
// another limit than the log's capacity writes a new record (install).

var _ kv.RateLimiter = (*Engine)(nil)

const (
	rateMagic   = 'R'
	rateVersion = 1
	rateHead    = 8
)

// rateLog is a log's ring, read under the stripe lock.
type rateLog struct {
	e           *Engine
	state       uint64 // offset of the state word
	cap, head   uint64
	count       uint64
	initialized bool // a live log was found
}

func (l *rateLog) slot(i uint64) *int64 {
	return (*int64)(l.e.at(l.state + 8 + 8*((l.head+i)%l.cap)))
}

// RateLimit implements kv.RateLimiter.
func (e *Engine) RateLimit(key string, limit int64, window time.Duration) (bool, int64, time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, 0, 0, err
	}
	if err := kv.CheckRateLimit(limit, window); err != nil {
		return false, 0, 0, err
	}
	b, h := e.locate(key)
	si := b & e.stripeMask
	var c clock
	for attempt := 0; ; attempt++ {
		st, err := e.lockStripe(si)
		if err != nil {
			return false, 0, 0, err
		}
		link, off := e.find(b, h, key, kindUser)
		v, stale, err := e.familyValue(st, off, &c, flagRate, key)
		if err != nil {
			e.unlock(st, false)
			if err == errCorruptSet {
				err = fmt.Errorf("rate log of %q: %w", key, err)
			}
			return false, 0, 0, err
		}
		now := c.read()
		if stale {
			e.remove(si, st, link, off)
			st.expired++
			link, off = e.find(b, h, key, kindUser)
		}
		l := rateLog{e: e}
		if v != nil {
			r := e.rec(off)
			l.state, l.cap = e.tail(off, r), uint64(binary.LittleEndian.Uint32(v[4:]))
			w := *(*uint64)(e.at(l.state))
			l.head, l.count = w&(1<<32-1), w>>32
			if l.cap == 0 || l.head >= l.cap || l.count > l.cap {
				e.unlock(st, stale)
				return false, 0, 0, fmt.Errorf("rate log of %q: %w", key, errCorruptSet)
			}
			l.initialized = true
		}
		// Calls that left the window are forgotten.
		floor, moved := now-int64(window), false
		for l.count > 0 && *l.slot(0) <= floor {
			l.head, l.count, moved = (l.head+1)%l.cap, l.count-1, true
		}
		if int64(l.count) >= limit {
			if moved {
				*(*uint64)(e.at(l.state)) = l.head | l.count<<32
			}
			// Retry when enough of the oldest calls have left for one more.
			retry := *l.slot(l.count - uint64(limit)) + int64(window) - now
			e.unlock(st, stale)
			return false, 0, time.Duration(retry), nil
		}
		ts := now
		if l.count > 0 {
			ts = max(ts, *l.slot(l.count - 1)) // times in the ring never go back
		}
		remaining := limit - int64(l.count) - 1
		if l.initialized && l.cap == uint64(limit) {
			*l.slot(l.count) = ts
			dl := addSat(ts, int64(window))
			atomic.StoreInt64(&e.rec(off).deadline, dl)
			st.noteDeadline(dl)
			crashPoint(crashInPlace)
			*(*uint64)(e.at(l.state)) = l.head | (l.count+1)<<32
			e.unlock(st, stale)
			return true, remaining, 0, nil
		}
		if e.rewriteRate(si, st, b, h, key, link, off, &l, uint64(limit), ts, window) {
			e.unlock(st, stale || off != 0)
			return true, remaining, 0, nil
		}
		if err := e.noRoom(si, st, stale, attempt, tailNeed(key, rateHead, 1+int(limit))); err != nil {
			return false, 0, 0, err
		}
	}
}

// rewriteRate writes key's log anew with capacity limit: the calls l holds,
// then one at ts. False: no block is free.
func (e *Engine) rewriteRate(si uint64, st *stripe, b uint64, h uint32, key string, link *uint64, off uint64, l *rateLog, limit uint64, ts int64, window time.Duration) bool {
	blk, class := e.alloc(si, st, tailNeed(key, rateHead, 1+int(limit)))
	if blk == 0 {
		return false
	}
	dst := e.openRecord(blk, class, kindUser, flagRate, h, key, rateHead, rateHead, addSat(ts, int64(window)))
	dst[0], dst[1], dst[2], dst[3] = rateMagic, rateVersion, 0, 0
	binary.LittleEndian.PutUint32(dst[4:], uint32(limit))
	state := e.tail(blk, e.rec(blk))
	slots := unsafeInt64s(e, state+8, limit)
	for i := uint64(0); i < l.count; i++ {
		slots[i] = *l.slot(i)
	}
	slots[l.count] = ts
	*(*uint64)(e.at(state)) = (l.count + 1) << 32
	e.sealRecord(blk)
	e.install(si, st, b, link, off, blk)
	return true
}

// unsafeInt64s is n words of the segment from off.
func unsafeInt64s(e *Engine, off, n uint64) []int64 {
	return unsafe.Slice((*int64)(e.at(off)), n)
}
