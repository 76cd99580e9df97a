package store

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/ephpm/ephpm-kv/kv"
)

// A rate log is kv.RateLimiter's record of one key's admitted calls: 'R',
// version 1, then their times (int64 ns on nanotime's clock, little-endian)
// oldest first, only those inside the latest call's window. Calls leave at
// the front (the value's start moves forward and the header is written
// again before it) and join at the back, in place (inplace.go); each call
// is one Compute, one clock read, a binary search and at most one append.

const (
	rateMagic   = 'R'
	rateVersion = 1
	rateHeader  = 2
)

type rateResult struct {
	allowed   bool
	remaining int64
	retry     time.Duration
	err       error
	full      bool
	needItem  bool
}

// RateLimit implements kv.RateLimiter.
func (s *Store) RateLimit(key string, limit int64, window time.Duration) (bool, int64, time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, 0, 0, err
	}
	if err := kv.CheckRateLimit(limit, window); err != nil {
		return false, 0, 0, err
	}
	owned := key
	var fresh *item
	var more *room // made once the limit refused the write
	newItem := func() {
		owned, fresh = newInPlace(key, kindRate, rateHeader, rateHeader+8*int(min(limit, 6)))
		fresh.data[0], fresh.data[1] = rateMagic, rateVersion
	}
	if _, ok := s.m.Load(key); !ok {
		newItem() // a new key: one Compute, not one to find it missing and one to insert
	}
	for {
		var res rateResult
		s.m.Compute(owned, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
			return s.rateStep(owned, old, loaded, fresh, limit, window, &res)
		})
		switch {
		case res.needItem:
			newItem()
		case res.full:
			if more == nil {
				more = s.roomFor(int64(len(key) + 2*(rateHeader+8) + itemOverhead))
			}
			if more.more() {
				continue
			}
			s.rejected.Inc()
			return false, 0, 0, s.fullErrorBytes(int64(len(key) + rateHeader + 8))
		default:
			return res.allowed, res.remaining, res.retry, res.err
		}
	}
}

func callAt(v []byte, i int) int64 { return int64(binary.LittleEndian.Uint64(v[rateHeader+8*i:])) }

// rateStep is RateLimit under key's bucket lock.
func (s *Store) rateStep(key string, old *item, loaded bool, fresh *item, limit int64, window time.Duration,
	res *rateResult) (*item, xsync.ComputeOp) {
	now := nanotime()
	it := old
	switch live := loaded && !old.expiredAt(now); {
	case live && old.kind != kindRate:
		res.err = fmt.Errorf("%w: %q", kv.ErrWrongType, key)
		return old, xsync.CancelOp
	case live:
	case loaded && old.kind == kindRate:
		s.expired.Inc() // every call left the window: the log starts anew in its buffer
		it.data, it.plainLen = it.data[:rateHeader], rateHeader
		it.data[0], it.data[1] = rateMagic, rateVersion
	case fresh == nil:
		res.needItem = true
		return old, xsync.CancelOp
	default:
		it = fresh
		it.data, it.plainLen = it.data[:rateHeader], rateHeader
	}
	// The calls still inside the window are those after now - window;
	// times only grow (each is read under this lock), so they are sorted.
	v := it.stored()
	n := (len(v) - rateHeader) / 8
	cut := now - int64(window)
	first, hi := 0, n
	for first < hi {
		if m := int(uint(first+hi) >> 1); callAt(v, m) <= cut {
			first = m + 1
		} else {
			hi = m
		}
	}
	if first > 0 {
		it.plainLen -= 8 * first
		start := len(it.data) - it.plainLen
		it.data[start], it.data[start+1] = rateMagic, rateVersion
		s.shrink(it)
		v = it.stored()
	}
	count := int64(n - first)
	if count >= limit {
		// The call that must leave for one more to fit: the oldest, unless
		// the limit was lowered since the log filled.
		res.retry = time.Duration(callAt(v, int(count-limit)) + int64(window) - now)
		return old, xsync.CancelOp
	}
	if !s.grow(it, 8) {
		res.full = true
		return old, xsync.CancelOp
	}
	binary.LittleEndian.PutUint64(appendBytes(it, 8), uint64(now))
	res.allowed, res.remaining = true, limit-count-1
	it.deadline.Store(addSat(now, int64(window)))
	if it != fresh {
		return old, xsync.CancelOp
	}
	delta := it.mem(key)
	if loaded {
		delta -= old.mem(key)
	}
	if !s.reserve(delta) {
		*res = rateResult{full: true}
		return old, xsync.CancelOp
	}
	if loaded {
		s.replaced(old, false)
	}
	s.admit(it)
	s.stamp(key, it, old, loaded)
	return it, xsync.UpdateOp
}
