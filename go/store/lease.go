package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/ephpm/ephpm-kv/kv"
)

// A lease set is kv.Leases' record of one key's holders: 'L', version 1,
// then per entry mode (1) | expiry (int64 ns on nanotime's clock) | fence
// (int64) | token length (1) | token, little-endian. An entry of mode
// kv.LeaseIntent is a writer's intent (fence 0). One entry per token. Each op
// is one Compute: it drops the expired entries, decides, and changes the
// set in place (inplace.go); the item's deadline is its latest entry's.

const (
	leaseMagic      = 'L'
	leaseVersion    = 1
	leaseHeader     = 2
	leaseEntryFixed = 18 // mode, expiry, fence, token length
	modeIntent      = byte(kv.LeaseIntent)
)

var (
	_ kv.Leases      = (*Store)(nil)
	_ kv.RateLimiter = (*Store)(nil)
)

func leaseEntrySize(token []byte) int { return leaseEntryFixed + len(token) }

func entryExpiry(d []byte, at int) int64 { return int64(binary.LittleEndian.Uint64(d[at+1:])) }
func entryFence(d []byte, at int) int64  { return int64(binary.LittleEndian.Uint64(d[at+9:])) }

func putEntry(d []byte, mode byte, expiry, fence int64, token []byte) {
	d[0] = mode
	binary.LittleEndian.PutUint64(d[1:], uint64(expiry))
	binary.LittleEndian.PutUint64(d[9:], uint64(fence))
	d[17] = byte(len(token))
	copy(d[leaseEntryFixed:], token)
}

// leaseScan is a lease set as one token sees it, its expired entries gone.
type leaseScan struct {
	own         int // offset of token's entry; -1: none
	view        kv.LeaseView
	latestOther int64 // latest expiry of the other tokens' entries
}

// holders is the number of live holders, token included.
func (sc *leaseScan) holders() int64 {
	if sc.view.Held != 0 {
		return sc.view.Others + 1
	}
	return sc.view.Others
}

// scanLease drops it's expired entries, moving the live ones forward, and
// sums them up as token sees them. Dropping expired entries leaves a live
// set's deadline as it was: its latest entry is live.
func scanLease(it *item, now int64, token []byte) leaseScan {
	d := it.data
	sc := leaseScan{own: -1}
	w := leaseHeader
	for r := leaseHeader; r < len(d); {
		n := leaseEntryFixed + int(d[r+17])
		exp := entryExpiry(d, r)
		if exp > now {
			if w != r {
				copy(d[w:], d[r:r+n])
			}
			mode := d[w]
			switch {
			case bytes.Equal(d[w+leaseEntryFixed:w+n], token):
				sc.own = w
				if mode == modeIntent {
					sc.view.Intends = true
				} else {
					sc.view.Held = kv.LeaseMode(mode)
				}
			case mode == modeIntent:
				sc.view.OthersIntents++
				sc.latestOther = max(sc.latestOther, exp)
			default:
				sc.view.Others++
				sc.view.OtherExclusive = sc.view.OtherExclusive || mode == byte(kv.LeaseExclusive)
				sc.latestOther = max(sc.latestOther, exp)
			}
			w += n
		}
		r += n
	}
	it.data, it.plainLen = d[:w], w
	return sc
}

// leaseResult is what one Compute of a lease op decided.
type leaseResult struct {
	fence    int64
	granted  bool
	err      error
	full     bool // the memory limit refused a larger buffer
	needItem bool // the key holds no live set: call again with a fresh item
}

// LeaseAcquire implements kv.Leases.
func (s *Store) LeaseAcquire(key string, token []byte, mode kv.LeaseMode, limit int64, ttl, intent time.Duration) (int64, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, false, err
	}
	if err := kv.CheckLease(token, mode, limit, ttl, intent); err != nil {
		return 0, false, err
	}
	if err := s.fenceHeadroom(); err != nil {
		return 0, false, err
	}
	owned := key
	var fresh *item
	var more *room // made once the limit refused the write
	newItem := func() {
		owned, fresh = newInPlace(key, kindLease, leaseHeader, max(64, leaseHeader+leaseEntrySize(token)))
		fresh.data[0], fresh.data[1] = leaseMagic, leaseVersion
	}
	if _, ok := s.m.Load(key); !ok {
		newItem() // a new key: one Compute, not one to find it missing and one to insert
	}
	for {
		var res leaseResult
		s.m.Compute(owned, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
			return s.acquireStep(owned, old, loaded, fresh, token, mode, limit, ttl, intent, &res)
		})
		switch {
		case res.needItem:
			newItem()
		case res.full:
			if more == nil {
				more = s.roomFor(int64(len(key) + 2*leaseEntrySize(token) + itemOverhead))
			}
			if !more.more() {
				s.rejected.Inc()
				return 0, false, s.fullErrorBytes(int64(len(key) + leaseEntrySize(token)))
			}
		default:
			return res.fence, res.granted, res.err
		}
	}
}

// acquireStep is LeaseAcquire under key's bucket lock.
func (s *Store) acquireStep(key string, old *item, loaded bool, fresh *item, token []byte, mode kv.LeaseMode,
	limit int64, ttl, intent time.Duration, res *leaseResult) (*item, xsync.ComputeOp) {
	now := nanotime()
	it := old
	switch live := loaded && !old.expiredAt(now); {
	case live && old.kind != kindLease:
		res.err = fmt.Errorf("%w: %q", kv.ErrWrongType, key)
		return old, xsync.CancelOp
	case live:
	case loaded && old.kind == kindLease:
		s.expired.Inc() // every holder expired: the set starts anew in its buffer
		old.data, old.plainLen = old.data[:leaseHeader], leaseHeader
	case fresh == nil:
		res.needItem = true
		return old, xsync.CancelOp
	default:
		it = fresh
		it.data, it.plainLen = it.data[:leaseHeader], leaseHeader
	}
	sc := scanLease(it, now, token)
	d := it.data
	expiry := addSat(now, int64(ttl))
	var ownExpiry int64 // token's entry's expiry after the op; 0: none
	wrote := false      // an intent was recorded or refreshed
	if sc.own >= 0 {
		ownExpiry = entryExpiry(d, sc.own)
	}
	step, err := kv.DecideLease(sc.view, mode, limit, intent)
	if err != nil {
		res.err = fmt.Errorf("%q: %w", key, err)
		return old, xsync.CancelOp
	}
	switch step {
	case kv.LeaseRenew, kv.LeaseChange:
		putEntry(d[sc.own:], byte(mode), expiry, entryFence(d, sc.own), token)
		res.fence, res.granted, ownExpiry = entryFence(d, sc.own), true, expiry
	case kv.LeaseGrant:
		at, before := sc.own, len(it.data) // at: the token's intent, replaced by its lease
		if at < 0 {
			if !s.grow(it, leaseEntrySize(token)) {
				res.full = true
				return old, xsync.CancelOp
			}
			at = len(it.data)
			appendBytes(it, leaseEntrySize(token))
		}
		f, err := s.issueFence()
		if err != nil {
			// Nothing was written: an appended entry is dropped again.
			it.data, it.plainLen = it.data[:before], before
			res.err = err
			return old, xsync.CancelOp
		}
		putEntry(it.data[at:], byte(mode), expiry, f, token)
		res.fence, res.granted, ownExpiry = f, true, expiry
	case kv.LeaseIntend:
		// Refused: the writer's intent keeps new readers out.
		iexp := addSat(now, int64(min(intent, ttl)))
		if sc.own >= 0 {
			binary.LittleEndian.PutUint64(d[sc.own+1:], uint64(iexp))
		} else {
			if !s.grow(it, leaseEntrySize(token)) {
				res.full = true
				return old, xsync.CancelOp
			}
			putEntry(appendBytes(it, leaseEntrySize(token)), modeIntent, iexp, 0, token)
		}
		ownExpiry, wrote = iexp, true
	}
	if res.granted || wrote {
		// Only a write sets the key's expiry: a refusal leaves it as it
		// was, a plain Expire's included.
		it.deadline.Store(max(sc.latestOther, ownExpiry))
	}
	if it != fresh {
		return old, xsync.CancelOp
	}
	delta := it.mem(key)
	if loaded {
		delta -= old.mem(key)
	}
	if !s.reserve(delta) {
		res.fence, res.granted, res.full = 0, false, true
		return old, xsync.CancelOp
	}
	if loaded {
		s.replaced(old, false)
	}
	s.admit(it)
	s.stamp(key, it, old, loaded)
	return it, xsync.UpdateOp
}

// LeaseRelease implements kv.Leases.
func (s *Store) LeaseRelease(key string, token []byte) (bool, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return false, err
	}
	var released bool
	var err error
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		it, sc, _, op := s.leaseStep(key, old, loaded, token, &err)
		if it == nil {
			return old, op
		}
		if sc.own >= 0 {
			d := it.data
			n := leaseEntryFixed + int(d[sc.own+17])
			released = d[sc.own] != modeIntent
			copy(d[sc.own:], d[sc.own+n:])
			it.data, it.plainLen = d[:len(d)-n], len(d)-n
		}
		return s.leaseDone(key, it, sc.own >= 0, sc.latestOther)
	})
	return released, err
}

// LeaseRenew implements kv.Leases.
func (s *Store) LeaseRenew(key string, token []byte, ttl time.Duration) (bool, error) {
	if err := kv.CheckLeaseRenew(key, token, ttl); err != nil {
		return false, err
	}
	var renewed bool
	var err error
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		it, sc, now, op := s.leaseStep(key, old, loaded, token, &err)
		if it == nil {
			return old, op
		}
		latest := sc.latestOther
		if sc.own >= 0 {
			exp := entryExpiry(it.data, sc.own)
			if it.data[sc.own] != modeIntent {
				exp = addSat(now, int64(ttl))
				binary.LittleEndian.PutUint64(it.data[sc.own+1:], uint64(exp))
				renewed = true
			}
			latest = max(latest, exp)
		}
		return s.leaseDone(key, it, renewed, latest)
	})
	return renewed, err
}

// LeaseCount implements kv.Leases.
func (s *Store) LeaseCount(key string) (int64, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	var n int64
	var err error
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		it, sc, _, op := s.leaseStep(key, old, loaded, nil, &err)
		if it == nil {
			return old, op
		}
		n = sc.holders()
		return s.leaseDone(key, it, false, 0)
	})
	return n, err
}

// leaseStep opens a lease op on an existing set under key's bucket lock,
// reading the clock once: nil (and the op to return) when there is no live
// set; the set scanned for token otherwise.
func (s *Store) leaseStep(key string, old *item, loaded bool, token []byte, err *error) (*item, leaseScan, int64, xsync.ComputeOp) {
	if !loaded {
		return nil, leaseScan{}, 0, xsync.CancelOp
	}
	now := nanotime()
	if old.expiredAt(now) {
		s.remove(key, old, false)
		return nil, leaseScan{}, 0, xsync.DeleteOp
	}
	if old.kind != kindLease {
		*err = fmt.Errorf("%w: %q", kv.ErrWrongType, key)
		return nil, leaseScan{}, 0, xsync.CancelOp
	}
	return old, scanLease(old, now, token), now, xsync.CancelOp
}

// leaseDone ends a lease op that may have removed or renewed entries: the
// key goes with its last entry, else, when the op wrote, takes latest as
// its deadline (an op that wrote nothing leaves it, as on every engine,
// even when a plain Expire made it other than the latest entry's).
func (s *Store) leaseDone(key string, it *item, wrote bool, latest int64) (*item, xsync.ComputeOp) {
	if len(it.data) == leaseHeader {
		s.remove(key, it, true)
		return it, xsync.DeleteOp
	}
	if wrote {
		it.deadline.Store(latest)
	}
	s.shrink(it)
	return it, xsync.CancelOp
}

// LeaseTTL implements kv.Leases: a read, the set's expired entries dropped
// as any lease op drops them.
func (s *Store) LeaseTTL(key string, token []byte) (time.Duration, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return 0, err
	}
	left := kv.TTLMissing
	var err error
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		it, sc, now, op := s.leaseStep(key, old, loaded, token, &err)
		if it == nil {
			return old, op
		}
		if sc.own >= 0 && it.data[sc.own] != modeIntent {
			left = time.Duration(entryExpiry(it.data, sc.own) - now)
		}
		return s.leaseDone(key, it, false, 0)
	})
	return left, err
}
