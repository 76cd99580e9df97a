package store

import (
	"bytes"
	"math"
	"sync/atomic"

	"github.com/klauspost/compress/s2"
)

// itemOverhead approximates the bytes the map spends per entry beyond key
// and value (map entry, item header, bucket share), so the limit tracks the
// real footprint of many small keys.
const itemOverhead = 96

// item is one stored value. A plain item's data and everything but deadline
// are immutable after insertion; deadline changes only under the entry's
// bucket lock. A lease set's or rate log's data and plainLen change in place
// under that lock too (see inplace.go), so lock-free readers read those
// items under it.
type item struct {
	data       []byte // stored bytes: S2-compressed when compressed is set
	plainLen   int    // length of the value as the user sees it
	compressed bool
	kind       itemKind      // fixed at insertion; fits the padding
	evictable  bool          // cache: allocated as a cacheItem (sieve.go); fixed at insertion; fits the padding
	fenced     bool          // SetNXFenced's: allocated as a fencedItem (fenced.go); fixed at insertion; fits the padding
	export     atomic.Uint32 // the export it was written during, 0 = none (see stamp); fits the padding
	deadline   atomic.Int64  // monotonic ns; 0 = never expires
}

// itemKind tells a plain value from the records the lease and rate-limit
// operations keep, which a plain set can never forge.
type itemKind uint8

const (
	kindPlain itemKind = iota
	kindLease          // a lease set (lease.go)
	kindRate           // a rate-limit log (ratelimit.go)
)

// inPlace reports whether the item's bytes change under its bucket lock.
func (it *item) inPlace() bool { return it.kind != kindPlain }

// stored is the value's bytes as stored: all of a plain item's data; the
// tail of an in-place item's, whose front may hold bytes already dropped.
func (it *item) stored() []byte {
	if it.kind == kindPlain {
		return it.data
	}
	return it.data[len(it.data)-it.plainLen:]
}

func (it *item) expiredAt(now int64) bool {
	d := it.deadline.Load()
	return d != 0 && d <= now
}

// expired reads the clock only for entries that carry a deadline.
func (it *item) expired() bool {
	d := it.deadline.Load()
	return d != 0 && d <= nanotime()
}

// mem is what the entry is accounted for: an in-place item holds all of
// its buffer's capacity; an evictable one its place in the SIEVE queue.
func (it *item) mem(key string) int64 {
	switch {
	case it.kind != kindPlain:
		return int64(len(key) + cap(it.data) + itemOverhead)
	case it.evictable:
		return int64(len(key) + len(it.data) + itemOverhead + cacheOverhead)
	case it.fenced:
		return int64(len(key) + len(it.data) + itemOverhead + fencedOverhead)
	}
	return int64(len(key) + len(it.data) + itemOverhead)
}

// equal compares token with the value as stored by the user, decompressing
// when needed: turning compression on must not make every release fail.
func (it *item) equal(token []byte) bool {
	if it.plainLen != len(token) {
		return false
	}
	if !it.compressed {
		return bytes.Equal(it.stored(), token)
	}
	plain, err := s2.Decode(nil, it.data)
	return err == nil && bytes.Equal(plain, token)
}

// plain returns a copy of the value as the user stored it.
func (it *item) plain() []byte {
	out := make([]byte, it.plainLen)
	if err := it.copyTo(out); err != nil {
		return nil
	}
	return out
}

// copyTo writes the user-visible value into dst, which holds plainLen bytes.
func (it *item) copyTo(dst []byte) error {
	if !it.compressed {
		copy(dst, it.stored())
		return nil
	}
	_, err := s2.Decode(dst, it.data)
	return err
}

// deadlineFor turns a ttl into an absolute monotonic deadline (0 = none).
func deadlineFor(ttlNs int64) int64 {
	if ttlNs <= 0 {
		return 0
	}
	return addSat(nanotime(), ttlNs)
}

// addSat is now + ttl, saturating at MaxInt64 (a deadline never reached):
// an addition that wrapped would be a deadline already passed. kv.CheckTTL
// keeps ttl within kv.MaxTTL, so this is the last line, not the first.
func addSat(now, ttl int64) int64 {
	if ttl > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + ttl
}
