package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Lease sets and rate logs in a snapshot (the server's): their kind, which
// no plain SET can forge and which a snapshot must keep (restored as a
// plain value, a lease set would refuse every lease op until it expired),
// and the times inside them. Those are on nanotime's clock (CLOCK_MONOTONIC,
// which a reboot resets: a holder's expiry would then lie years ahead, or
// in the past), so they travel as Unix nanoseconds, as a key's expiry
// travels as a Unix time.

// Kind is what a stored value is.
type Kind uint8

const (
	KindPlain = Kind(kindPlain)
	KindLease = Kind(kindLease) // a lease set (lease.go)
	KindRate  = Kind(kindRate)  // a rate-limit log (ratelimit.go)
	// KindCache is a plain value stored evictable (kv.Cache): restored
	// held, a snapshot of a full cache would fill the store with entries
	// nothing may evict, refusing every write after the restart.
	KindCache Kind = 3
)

// MaxRecordSize is the largest lease set (every holder and intent with the
// longest token) or rate log (kv.MaxRateLimit calls) a store keeps, which
// may pass max_value_size.
const MaxRecordSize = leaseHeader + 2*kv.MaxLeaseHolders*(leaseEntryFixed+kv.MaxLeaseToken)

// errBadRecord reports a snapshot's lease set or rate log that is not one.
var errBadRecord = errors.New("malformed lease set or rate log")

// recordTimes calls fn with the offset of each time in a lease set's or
// rate log's value, after checking its layout.
func recordTimes(kind Kind, v []byte, fn func(at int)) error {
	switch kind {
	case KindLease:
		if len(v) < leaseHeader || v[0] != leaseMagic || v[1] != leaseVersion {
			return errBadRecord
		}
		for r := leaseHeader; r < len(v); {
			if len(v)-r < leaseEntryFixed {
				return errBadRecord
			}
			n := leaseEntryFixed + int(v[r+17])
			if mode := v[r]; mode < byte(kv.LeaseShared) || mode > modeIntent || v[r+17] == 0 || v[r+17] > kv.MaxLeaseToken || len(v)-r < n {
				return errBadRecord
			}
			fn(r + 1)
			r += n
		}
	case KindRate:
		if len(v) < rateHeader || v[0] != rateMagic || v[1] != rateVersion || (len(v)-rateHeader)%8 != 0 {
			return errBadRecord
		}
		for at := rateHeader; at < len(v); at += 8 {
			fn(at)
		}
	default:
		return errBadRecord
	}
	return nil
}

// shiftTimes adds delta to every time in v, in place.
func shiftTimes(kind Kind, v []byte, delta int64) error {
	return recordTimes(kind, v, func(at int) {
		binary.LittleEndian.PutUint64(v[at:], uint64(int64(binary.LittleEndian.Uint64(v[at:]))+delta))
	})
}

// clockOffset is what turns a time on nanotime's clock into Unix ns.
func clockOffset() int64 { return time.Now().UnixNano() - nanotime() }

// ExportKinds is Export with each value's kind; the times inside a lease
// set or rate log are Unix nanoseconds in the value fn gets (a copy).
func (s *Store) ExportKinds(fn func(key string, kind Kind, value []byte, ttl time.Duration) error) error {
	off := clockOffset()
	return s.export(func(key string, it *item, value []byte, ttl time.Duration) error {
		kind := Kind(it.kind)
		if it.evictable {
			return fn(key, KindCache, value, ttl)
		}
		if kind != KindPlain {
			if err := shiftTimes(kind, value, off); err != nil {
				return fmt.Errorf("exporting %q: %w", key, err)
			}
		}
		return fn(key, kind, value, ttl)
	})
}

// Restore stores a value ExportKinds gave, of its kind and with its
// times, to expire after ttl (0: never), as the key was when exported. A
// lease set loses the entries whose time ran out since (a holder's expiry
// passed while the server was down), and one left with none is not stored,
// nor is a rate log without calls: stored is false then. A lease set or
// rate log may pass max_value_size, as it may when written; one that is not
// well formed is refused.
func (s *Store) Restore(key string, kind Kind, value []byte, ttl time.Duration) (stored bool, err error) {
	if kind == KindPlain || kind == KindCache {
		_, err := s.SetWith(key, value, SetOptions{TTL: ttl, Evictable: kind == KindCache})
		return err == nil, err
	}
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return false, err
	}
	if len(value) > MaxRecordSize {
		return false, fmt.Errorf("%q: %w: %d bytes", key, errBadRecord, len(value))
	}
	now := nanotime()
	v := bytes.Clone(value)
	if err := shiftTimes(kind, v, now-time.Now().UnixNano()); err != nil {
		return false, fmt.Errorf("%q: %w", key, err)
	}
	if v, err = liveRecord(kind, v, now); err != nil {
		return false, fmt.Errorf("%q: %w", key, err)
	}
	if v == nil {
		return false, nil
	}
	owned, it := newInPlace(key, itemKind(kind), len(v), len(v))
	copy(it.data, v)
	if ttl > 0 {
		it.deadline.Store(addSat(now, int64(ttl)))
	}
	if _, err := s.writeItem(owned, it, &SetOptions{}, nil); err != nil {
		return false, err
	}
	return true, nil
}

// liveRecord is a restored lease set (times on nanotime's clock) without
// the entries expired at now, or nil when none is left; a rate log as it
// is, nil when it holds no call, refused when its calls are out of order
// (RateLimit's binary search needs them sorted).
func liveRecord(kind Kind, v []byte, now int64) ([]byte, error) {
	if kind == KindRate {
		for at := rateHeader + 8; at < len(v); at += 8 {
			if int64(binary.LittleEndian.Uint64(v[at:])) < int64(binary.LittleEndian.Uint64(v[at-8:])) {
				return nil, fmt.Errorf("%w: the calls are out of order", errBadRecord)
			}
		}
		if len(v) == rateHeader {
			return nil, nil
		}
		return v, nil
	}
	w := leaseHeader
	for r := leaseHeader; r < len(v); {
		n := leaseEntryFixed + int(v[r+17])
		if entryExpiry(v, r) > now {
			w += copy(v[w:], v[r:r+n])
		}
		r += n
	}
	if w == leaseHeader {
		return nil, nil
	}
	return v[:w], nil
}
