package shm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Lease sets (kv.Leases). A key's holders live in one user record flagged
// flagLease, so a plain get/del/ttl/exists sees it as any key. Its value
// (under the checksum, never compressed) is the part of each entry that
// never changes:
//
//	'L' | version | entries: mode (1) | fence (int64) | token length (1) | token
//
// and each entry's expiry (int64 monotonic ns, 0 = released) is a word in
// the block's tail, past the value, outside the checksum (as a record's
// deadline is): a renewal or a release is one aligned word store in place,
// needs no block and so never fails on a full segment. A new holder, a
// change of mode or an intent becoming a lease writes the set anew without
// its dead entries and publishes it in place of the old (install, as Incr
// does), so a process killed at any instruction leaves the old set or the
// new one. The record's deadline is the latest expiry among its live
// entries; the last one leaving deletes the key. A set is bounded by
// kv.MaxLeaseHolders (and as many intents), not by max_value_size.

var _ kv.Leases = (*Engine)(nil)

const (
	leaseMagic   = 'L'
	leaseVersion = 1
	leaseHead    = 2         // magic, version
	leaseFixed   = 1 + 8 + 1 // mode, fence, token length
	modeIntent   = uint8(kv.LeaseIntent)
)

var errCorruptSet = fmt.Errorf("%w: a lease set or rate log runs past its block", ErrCorrupt)

// tail is the offset of the words past a record's value (8-aligned; blocks
// are 16-aligned).
func (e *Engine) tail(off uint64, r *record) uint64 {
	return off + alignUp(recHeader+uint64(r.keyLen)+uint64(r.storedLen), 8)
}

// tailNeed is the block size of a record whose value of n bytes is followed
// by words tail words.
func tailNeed(key string, n, words int) uint64 {
	return alignUp(recHeader+uint64(len(key))+uint64(n), 8) + 8*uint64(words)
}

// familyValue is the value of the record at off (0: none) when it is a
// live record of the family flag; nil when there is none or it expired
// (stale: a record to reclaim). A live record of any other kind is
// kv.ErrWrongType.
func (e *Engine) familyValue(st *stripe, off uint64, c *clock, flag uint8, key string) (v []byte, stale bool, err error) {
	if off == 0 {
		return nil, false, nil
	}
	r := e.rec(off)
	if !c.live(r.deadline) {
		return nil, true, nil
	}
	if err := e.intact(st, off, r, key); err != nil {
		return nil, false, err
	}
	if r.flags&flag == 0 {
		return nil, false, kv.ErrWrongType
	}
	if !e.tailFits(off, r) {
		return nil, false, errCorruptSet
	}
	return e.recValue(off, r), false, nil
}

// tailFits reports whether the record's tail words lie inside its block.
func (e *Engine) tailFits(off uint64, r *record) bool {
	words := uint64(0)
	v := e.recValue(off, r)
	switch {
	case r.flags&flagLease != 0:
		n, ok := leaseEntries(v)
		if !ok {
			return false
		}
		words = uint64(n)
	case r.flags&flagRate != 0:
		if len(v) != rateHead {
			return false
		}
		words = 1 + uint64(binary.LittleEndian.Uint32(v[4:]))
	}
	return e.tail(off, r)+8*words <= off+classSizes[r.class]
}

// leaseEntries counts a set's entries, checking their layout.
func leaseEntries(v []byte) (int, bool) {
	if len(v) < leaseHead || v[0] != leaseMagic || v[1] != leaseVersion {
		return 0, false
	}
	n := 0
	for p := leaseHead; p < len(v); n++ {
		if p+leaseFixed > len(v) || v[p+9] == 0 {
			return 0, false
		}
		p += leaseFixed + int(v[p+9])
		if p > len(v) {
			return 0, false
		}
	}
	return n, true
}

// leaseScan is what one pass over a set tells an operation about token.
type leaseScan struct {
	v       []byte // the set's value, aliasing the segment; nil: empty
	exps    uint64 // offset of the expiry words
	keep    int    // value bytes of the live entries of other tokens
	kept    int    // and their number
	others  int64  // live leases of other tokens
	excl    bool   // another token holds the key exclusively
	intents int64  // live intents of other tokens
	latest  int64  // latest expiry among live entries of other tokens
	first   int64  // earliest expiry among all live entries
	self    leaseEntry
	selfAt  uint64 // offset of token's expiry word; 0: token has no live entry
	dropped bool   // an entry expired (someone left without a release)
	now     int64
}

type leaseEntry struct {
	mode  uint8
	fence int64
	exp   int64
}

// scan walks the set at off (whose value is v) for token at time now.
func (e *Engine) scanLease(off uint64, v, token []byte, now int64, sc *leaseScan) {
	r := e.rec(off)
	sc.v, sc.exps, sc.now = v, e.tail(off, r), now
	w := sc.exps
	for p := leaseHead; p < len(v); w += 8 {
		mode, tl := v[p], int(v[p+9])
		n := leaseFixed + tl
		exp := *(*int64)(e.at(w))
		switch {
		case exp <= now:
			sc.dropped = sc.dropped || exp != 0
		case bytes.Equal(v[p+leaseFixed:p+n], token):
			sc.self = leaseEntry{mode, int64(binary.LittleEndian.Uint64(v[p+1:])), exp}
			sc.selfAt = w
		default:
			sc.keep += n
			sc.kept++
			sc.latest = max(sc.latest, exp)
			if mode == modeIntent {
				sc.intents++
			} else {
				sc.others++
				sc.excl = sc.excl || mode == uint8(kv.LeaseExclusive)
			}
		}
		if exp > now && (sc.first == 0 || exp < sc.first) {
			sc.first = exp
		}
		p += n
	}
}

// holds reports whether token has a live lease (not an intent).
func (sc *leaseScan) holds() bool { return sc.selfAt != 0 && sc.self.mode != modeIntent }

// view is the set as token sees it, for kv.DecideLease.
func (sc *leaseScan) view() kv.LeaseView {
	v := kv.LeaseView{Others: sc.others, OthersIntents: sc.intents, OtherExclusive: sc.excl}
	if sc.selfAt != 0 {
		if sc.self.mode == modeIntent {
			v.Intends = true
		} else {
			v.Held = kv.LeaseMode(sc.self.mode)
		}
	}
	return v
}

// leaseLocked finds key's set under its stripe lock (taken here) and scans
// it for token; the caller unlocks.
type leaseOp struct {
	si   uint64
	st   *stripe
	b    uint64
	h    uint32
	link *uint64
	off  uint64
	sc   leaseScan
}

func (e *Engine) lockLease(key string, token []byte, c *clock, op *leaseOp) error {
	b, h := e.locate(key)
	op.b, op.h, op.si = b, h, b&e.stripeMask
	st, err := e.lockStripe(op.si)
	if err != nil {
		return err
	}
	op.st = st
	op.link, op.off = e.find(b, h, key, kindUser)
	op.sc = leaseScan{}
	v, stale, err := e.familyValue(op.st, op.off, c, flagLease, key)
	if err != nil {
		e.unlock(op.st, false)
		if err == errCorruptSet {
			return fmt.Errorf("lease set of %q: %w", key, err)
		}
		return err
	}
	if stale {
		// An expired record: reclaimed here, as every op does.
		e.remove(op.si, op.st, op.link, op.off)
		op.st.expired++
		op.sc.dropped = true
		op.link, op.off = e.find(b, h, key, kindUser)
	}
	if v != nil {
		e.scanLease(op.off, v, token, c.read(), &op.sc)
	}
	return nil
}

// LeaseAcquire implements kv.Leases.
func (e *Engine) LeaseAcquire(key string, token []byte, mode kv.LeaseMode, limit int64, ttl, intent time.Duration) (int64, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, false, err
	}
	if err := kv.CheckLease(token, mode, limit, ttl, intent); err != nil {
		return 0, false, err
	}
	var c clock
	var op leaseOp
	for attempt := 0; ; attempt++ {
		if err := e.lockLease(key, token, &c, &op); err != nil {
			return 0, false, err
		}
		now, sc := c.read(), &op.sc
		holds := sc.holds()
		step, err := kv.DecideLease(sc.view(), mode, limit, intent)
		if err != nil {
			// Not "someone else holds it": the set is as large as a key's gets.
			e.unlock(op.st, sc.dropped)
			return 0, false, fmt.Errorf("%q: %w", key, err)
		}
		next := leaseEntry{mode: uint8(mode), exp: addSat(now, int64(ttl))}
		fresh := false
		switch step {
		case kv.LeaseRenew:
			// In place, keeping the fence.
			e.moveExpiry(op.st, op.off, sc, next.exp)
			e.unlock(op.st, sc.dropped)
			return sc.self.fence, true, nil
		case kv.LeaseChange:
			next.fence = sc.self.fence
		case kv.LeaseGrant:
			fresh = true // replacing token's intent, if any
		case kv.LeaseIntend:
			next = leaseEntry{mode: modeIntent, exp: addSat(now, int64(min(intent, ttl)))}
			if sc.selfAt != 0 {
				e.moveExpiry(op.st, op.off, sc, next.exp)
				e.unlock(op.st, sc.dropped)
				return 0, false, nil
			}
		default:
			e.unlock(op.st, sc.dropped)
			return 0, false, nil
		}
		// A demotion lets readers in: wake them.
		changed := sc.dropped || (holds && sc.self.mode == uint8(kv.LeaseExclusive) && next.mode != sc.self.mode)
		if e.rewriteLease(key, &op, token, &next, fresh) {
			e.unlock(op.st, changed)
			if next.mode == modeIntent {
				return 0, false, nil
			}
			return next.fence, true, nil
		}
		if err := e.noRoom(op.si, op.st, changed, attempt, tailNeed(key, leaseHead+sc.keep+leaseFixed+len(token), sc.kept+1)); err != nil {
			return 0, false, err
		}
	}
}

// rewriteLease writes op's set anew: the live entries of other tokens, then
// token's entry next, in a new block published in place of the old record.
// fresh: next is a new lease, whose fence is taken from the segment's
// counter (the one SetNXFenced uses) once the block is had. False: no
// block is free.
func (e *Engine) rewriteLease(key string, op *leaseOp, token []byte, next *leaseEntry, fresh bool) bool {
	sc := &op.sc
	n := leaseHead + sc.keep + leaseFixed + len(token)
	words := sc.kept + 1
	blk, class := e.alloc(op.si, op.st, tailNeed(key, n, words))
	if blk == 0 {
		return false
	}
	if fresh {
		next.fence = int64(atomic.AddUint64(e.word(hFence), 1))
	}
	dst := e.openRecord(blk, class, kindUser, flagLease, op.h, key, n, n, max(sc.latest, next.exp))
	dst[0], dst[1] = leaseMagic, leaseVersion
	exps := e.tail(blk, e.rec(blk))
	p, w := leaseHead, exps
	if sc.v != nil {
		src := sc.exps
		for q := leaseHead; q < len(sc.v); src += 8 {
			m := leaseFixed + int(sc.v[q+9])
			if exp := *(*int64)(e.at(src)); exp > sc.now && src != sc.selfAt {
				p += copy(dst[p:], sc.v[q:q+m])
				*(*int64)(e.at(w)) = exp
				w += 8
			}
			q += m
		}
	}
	dst[p] = next.mode
	binary.LittleEndian.PutUint64(dst[p+1:], uint64(next.fence))
	dst[p+9] = byte(len(token))
	copy(dst[p+leaseFixed:], token)
	*(*int64)(e.at(w)) = next.exp
	e.sealRecord(blk)
	e.install(op.si, op.st, op.b, op.link, op.off, blk)
	return true
}

// moveExpiry sets token's entry (found by sc) to expire at exp (0: release)
// and the record's deadline to the latest live expiry, in place. The
// deadline never falls below an entry's expiry, even for a process killed
// between the two stores: when it grows it is raised first, when it
// shrinks it is lowered last (a deadline late for a moment is harmless:
// every entry has its own).
func (e *Engine) moveExpiry(st *stripe, off uint64, sc *leaseScan, exp int64) {
	r := e.rec(off)
	dl := max(sc.latest, exp)
	slot := (*int64)(e.at(sc.selfAt))
	if dl > atomic.LoadInt64(&r.deadline) {
		atomic.StoreInt64(&r.deadline, dl)
		crashPoint(crashInPlace)
		*slot = exp
	} else {
		*slot = exp
		crashPoint(crashInPlace)
		atomic.StoreInt64(&r.deadline, dl)
	}
	st.noteDeadline(dl)
}

// LeaseRelease implements kv.Leases. In place (no block needed): the entry
// is zeroed, or the record removed with the last live entry; either wakes
// WaitRelease sleepers.
func (e *Engine) LeaseRelease(key string, token []byte) (bool, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return false, err
	}
	var c clock
	var op leaseOp
	if err := e.lockLease(key, token, &c, &op); err != nil {
		return false, err
	}
	sc := &op.sc
	if sc.selfAt == 0 {
		e.unlock(op.st, sc.dropped)
		return false, nil
	}
	if sc.kept == 0 {
		e.remove(op.si, op.st, op.link, op.off)
	} else {
		e.moveExpiry(op.st, op.off, sc, 0)
	}
	e.unlock(op.st, true)
	return sc.self.mode != modeIntent, nil
}

// LeaseRenew implements kv.Leases: in place, as a re-acquire is.
func (e *Engine) LeaseRenew(key string, token []byte, ttl time.Duration) (bool, error) {
	if err := kv.CheckLeaseRenew(key, token, ttl); err != nil {
		return false, err
	}
	var c clock
	var op leaseOp
	if err := e.lockLease(key, token, &c, &op); err != nil {
		return false, err
	}
	sc := &op.sc
	if !sc.holds() {
		e.unlock(op.st, sc.dropped)
		return false, nil
	}
	e.moveExpiry(op.st, op.off, sc, addSat(c.read(), int64(ttl)))
	e.unlock(op.st, sc.dropped)
	return true, nil
}

// LeaseCount implements kv.Leases.
func (e *Engine) LeaseCount(key string) (int64, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	var c clock
	var op leaseOp
	if err := e.lockLease(key, nil, &c, &op); err != nil {
		return 0, err
	}
	n := op.sc.others
	e.unlock(op.st, op.sc.dropped)
	return n, nil
}

// LeaseTTL implements kv.Leases: a read of token's expiry word.
func (e *Engine) LeaseTTL(key string, token []byte) (time.Duration, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return 0, err
	}
	var c clock
	var op leaseOp
	if err := e.lockLease(key, token, &c, &op); err != nil {
		return 0, err
	}
	left := kv.TTLMissing
	if op.sc.holds() {
		left = time.Duration(op.sc.self.exp - op.sc.now)
	}
	e.unlock(op.st, op.sc.dropped)
	return left, nil
}

// leaseWake is when WaitRelease on a lease set must look again without a
// wake-up: the earliest expiry among its live entries (an expiring holder
// or intent leaves without a release); 0 when none is live.
func (e *Engine) leaseWake(off uint64, now int64) int64 {
	r := e.rec(off)
	if r.flags&flagLease == 0 || !e.tailFits(off, r) {
		return -1
	}
	var sc leaseScan
	e.scanLease(off, e.recValue(off, r), nil, now, &sc)
	return sc.first
}

// familyProblem checks a lease set or rate log for Verify: its tail inside
// its block and a rate ring's state in range; "" = good. That no entry
// expires after its record is the lease ops' doing (moveExpiry), even
// across a crash, and the crash tests check it (leaseDeadlineProblem); it
// is no invariant of the segment: a plain Expire may shorten a lease key
// as any key.
func (e *Engine) familyProblem(off uint64, r *record) string {
	if r.flags&(flagLease|flagRate) == 0 {
		return ""
	}
	if !e.tailFits(off, r) {
		return "lease set or rate log larger than its block"
	}
	if r.flags&flagRate != 0 {
		capacity := uint64(binary.LittleEndian.Uint32(e.recValue(off, r)[4:]))
		w := *(*uint64)(e.at(e.tail(off, r)))
		if capacity == 0 || w&(1<<32-1) >= capacity || w>>32 > capacity {
			return fmt.Sprintf("rate ring state %#x out of its capacity %d", w, capacity)
		}
	}
	return ""
}

// leaseDeadlineProblem reports it when an entry of the lease set at off
// expires after the record's deadline, which no lease op leaves, even when
// killed midway.
func (e *Engine) leaseDeadlineProblem(off uint64, r *record) string {
	var sc leaseScan
	e.scanLease(off, e.recValue(off, r), nil, 0, &sc)
	if r.deadline != 0 && sc.latest > r.deadline {
		return fmt.Sprintf("an entry expires at %d, after its set's deadline %d", sc.latest, r.deadline)
	}
	return ""
}
