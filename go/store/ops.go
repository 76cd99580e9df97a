package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/ephpm/ephpm-kv/kv"
)

// Keys handed to Compute are stored by the map when the op is UpdateOp, so
// every path that may insert or replace clones the key first; paths that only
// read, cancel or delete use the caller's key as is.

// Get implements kv.Engine.
func (s *Store) Get(key string, dst []byte) (int, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, false, err
	}
	it, ok := s.m.Load(key)
	if !ok || it.expired() {
		s.misses.Inc()
		if ok {
			s.reapIfExpired(key)
		}
		return 0, false, nil
	}
	if it.inPlace() {
		return s.getInPlace(key, it, dst)
	}
	if it.plainLen > len(dst) {
		return it.plainLen, true, nil
	}
	if err := it.copyTo(dst[:it.plainLen]); err != nil {
		return 0, false, fmt.Errorf("stored value of %q is corrupt: %w", key, err)
	}
	s.hits.Inc()
	it.touch()
	return it.plainLen, true, nil
}

// Set implements kv.Engine.
func (s *Store) Set(key string, value []byte, ttl time.Duration) error {
	_, err := s.store(key, value, ttl, false, nil)
	return err
}

// SetNX implements kv.Engine.
func (s *Store) SetNX(key string, value []byte, ttl time.Duration) (bool, error) {
	return s.store(key, value, ttl, true, nil)
}

// store writes value at key; with nx only while no live entry exists. When
// fence is not nil it receives a fence issued under the insert's lock.
func (s *Store) store(key string, value []byte, ttl time.Duration, nx bool, fence *int64) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return false, err
	}
	opt := SetOptions{TTL: ttl}
	if nx {
		opt.Cond = IfAbsent
		// Fast refusal without allocating: a live entry seen here is a
		// valid linearization point for "someone else holds it".
		if old, ok := s.m.Load(key); ok && !old.expired() {
			return false, nil
		}
	}
	res, err := s.write(key, value, &opt, fence)
	return res.Stored, err
}

// write stores value at key when opt's condition holds, in one Compute.
// Key and ttl are checked by the caller.
func (s *Store) write(key string, value []byte, opt *SetOptions, fence *int64) (SetResult, error) {
	var res SetResult
	owned, it, err := s.newItem(key, value, opt.TTL, opt.Evictable, fence != nil)
	if err != nil {
		return res, err
	}
	return s.writeItem(owned, it, opt, fence)
}

// writeItem is write for an item made by newItem.
func (s *Store) writeItem(owned string, it *item, opt *SetOptions, fence *int64) (SetResult, error) {
	var res SetResult
	var fenceErr error
	if !s.retryWhenFull(it.mem(owned), func() bool {
		res = SetResult{}
		full, err := s.put(owned, it, opt, fence, &res)
		fenceErr = err
		return full
	}) {
		return SetResult{}, s.fullError(owned, it)
	}
	if fenceErr != nil {
		return SetResult{}, fenceErr
	}
	return res, nil
}

// put inserts it at key in one Compute when opt's condition holds. full
// reports that the memory limit refused it; err that no fence could be
// issued (nothing was stored then).
func (s *Store) put(key string, it *item, opt *SetOptions, fence *int64, res *SetResult) (full bool, err error) {
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		live := loaded && !old.expired()
		if live && opt.GetOld {
			res.Old, res.HadOld = old.plain(), true
		}
		if !opt.allows(old, live) {
			return old, xsync.CancelOp
		}
		if fence != nil {
			// Taken before anything changes, so a failure leaves no trace.
			if *fence, err = s.issueFence(); err != nil {
				*fence = 0
				return old, xsync.CancelOp
			}
			it.setFence(*fence)
		}
		delta := it.mem(key)
		if loaded {
			delta -= old.mem(key)
		}
		if !s.reserve(delta) {
			full = true
			if fence != nil {
				*fence = 0
			}
			return old, xsync.CancelOp
		}
		if opt.KeepTTL && live {
			it.deadline.Store(old.deadline.Load())
		}
		if loaded {
			s.replaced(old, live)
		}
		s.admit(it)
		s.stamp(key, it, old, loaded)
		res.Stored = true
		return it, xsync.UpdateOp
	})
	return full, err
}

// replaced updates counters for an entry overwritten in place (its bytes
// were already netted out of the reservation).
func (s *Store) replaced(old *item, live bool) {
	if old.compressed {
		s.compressed.Add(-1)
	}
	if old.evictable {
		s.uncached(old)
	}
	if !live {
		s.expired.Inc()
	}
}

// retryWhenFull runs try, and again each time more room was made (expired
// entries reclaimed, cache evicted: see room) for a write of about need
// bytes while the limit refuses it. It reports whether the write finally
// fit.
func (s *Store) retryWhenFull(need int64, try func() (full bool)) bool {
	if !try() {
		return true
	}
	for r := s.roomFor(need); r.more(); {
		if !try() {
			return true
		}
	}
	return false
}

// Del implements kv.Engine. An expired entry is reclaimed but counts as absent.
func (s *Store) Del(key string) (bool, error) {
	return s.deleteIf(key, deleteAlways, nil)
}

// remove un-accounts an entry about to be deleted.
func (s *Store) remove(key string, old *item, live bool) {
	s.forget(key, old)
	if !live {
		s.expired.Inc()
	}
}

// DelIfEq implements kv.Engine: compare and delete under one bucket lock.
func (s *Store) DelIfEq(key string, token []byte) (bool, error) {
	return s.deleteIf(key, deleteIfEqual, token)
}

// DelIfNe deletes key only while it is live and its value differs from token.
func (s *Store) DelIfNe(key string, token []byte) (bool, error) {
	return s.deleteIf(key, deleteIfDifferent, token)
}

type deleteCond uint8

const (
	deleteAlways deleteCond = iota
	deleteIfEqual
	deleteIfDifferent
)

// deleteIf deletes a live key when cond holds for token, in one Compute.
// An expired entry is reclaimed on the way and counts as absent.
func (s *Store) deleteIf(key string, cond deleteCond, token []byte) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	var deleted bool
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		switch {
		case !loaded:
			return old, xsync.CancelOp
		case old.expired():
			s.remove(key, old, false)
			return old, xsync.DeleteOp
		case cond != deleteAlways && old.equal(token) != (cond == deleteIfEqual):
			return old, xsync.CancelOp
		}
		s.remove(key, old, true)
		deleted = true
		return old, xsync.DeleteOp
	})
	return deleted, nil
}

// Exists implements kv.Engine.
func (s *Store) Exists(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	it, ok := s.m.Load(key)
	return ok && !it.expired(), nil
}

// Expire implements kv.Engine.
func (s *Store) Expire(key string, ttl time.Duration) (bool, error) {
	return s.expire(key, nil, false, ttl)
}

// ExpireIfEq implements kv.Engine: owner-only lease renewal.
func (s *Store) ExpireIfEq(key string, token []byte, ttl time.Duration) (bool, error) {
	return s.expire(key, token, true, ttl)
}

func (s *Store) expire(key string, token []byte, compare bool, ttl time.Duration) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return false, err
	}
	var done bool
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		switch {
		case !loaded:
			return old, xsync.CancelOp
		case old.expired():
			s.remove(key, old, false)
			return old, xsync.DeleteOp
		case compare && !old.equal(token):
			return old, xsync.CancelOp
		}
		// The deadline is the one mutable field: changing it in place
		// under the bucket lock avoids re-inserting (and cloning) the key.
		old.deadline.Store(deadlineFor(int64(ttl)))
		done = true
		return old, xsync.CancelOp
	})
	return done, nil
}

// TTL implements kv.Engine.
func (s *Store) TTL(key string) (time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	it, ok := s.m.Load(key)
	if !ok {
		return kv.TTLMissing, nil
	}
	d := it.deadline.Load()
	if d == 0 {
		return kv.TTLPersistent, nil
	}
	left := d - nanotime()
	if left <= 0 {
		return kv.TTLMissing, nil
	}
	return time.Duration(left), nil
}

// Incr implements kv.Engine.
func (s *Store) Incr(key string, by int64, ttl time.Duration) (int64, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return 0, err
	}
	owned := strings.Clone(key)
	var (
		result int64
		opErr  error
		it     *item
	)
	fits := s.retryWhenFull(int64(len(owned)+24+itemOverhead), func() bool {
		var full bool
		s.m.Compute(owned, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
			live := loaded && !old.expired()
			n, deadline := by, deadlineFor(int64(ttl))
			if live {
				cur, err := parseCounter(old)
				if err != nil {
					opErr = err
					return old, xsync.CancelOp
				}
				if (by > 0 && cur > math.MaxInt64-by) || (by < 0 && cur < math.MinInt64-by) {
					opErr = fmt.Errorf("%w: %d + %d", kv.ErrOverflow, cur, by)
					return old, xsync.CancelOp
				}
				n, deadline = cur+by, old.deadline.Load()
			}
			it = &item{data: strconv.AppendInt(nil, n, 10)}
			it.plainLen = len(it.data)
			it.deadline.Store(deadline)
			delta := it.mem(owned)
			if loaded {
				delta -= old.mem(owned)
			}
			if !s.reserve(delta) {
				full = true
				return old, xsync.CancelOp
			}
			if loaded {
				s.replaced(old, live)
			}
			s.stamp(owned, it, old, loaded)
			result = n
			return it, xsync.UpdateOp
		})
		return full
	})
	if opErr != nil {
		return 0, opErr
	}
	if !fits {
		return 0, s.fullError(owned, it)
	}
	return result, nil
}

// parseCounter accepts only the canonical decimal form Redis accepts: no
// sign other than '-', no leading zeros, no spaces.
func parseCounter(it *item) (int64, error) {
	plain := it.stored()
	if it.compressed {
		return 0, kv.ErrNotInteger // counters are never large enough to compress
	}
	text := unsafe.String(unsafe.SliceData(plain), len(plain))
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

// Flush implements kv.Engine. It deletes every lock, so no fence issued
// before it proves a hold any more: the floor rises above all of them, and
// the records it covers go, so no stale fence is accepted after it. The
// counter goes on above the floor. Records above it (fences the store did
// not issue) stay.
func (s *Store) Flush() error {
	s.m.DeleteMatching(func(key string, it *item) (bool, bool) {
		s.forget(key, it)
		return true, false
	})
	s.RaiseFenceFloor(s.fm.counter.Load() + 1)
	return nil
}
