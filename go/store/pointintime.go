package store

import (
	"sync"
	"sync/atomic"
	"time"
)

// Export must be point-in-time: a snapshot holds the store as it was at one
// instant. xsync's Range is not: it walks the buckets one after another, so a
// key written while it runs lands in the file if its bucket comes later and
// is missing if its bucket came earlier, and once the map grows the writes go
// to a new table Range never sees. Under write load that gave "holes":
// a client's acknowledged key missing from the snapshot while its later
// keys were in it.
//
// So every item carries the epoch it was written in. Starting an export
// closes epoch S (every write stamped S or earlier happened before it, as
// the stamp is read under the bucket lock that Range also takes); items of
// later epochs are skipped, and a write that replaces an item while the
// export runs keeps the version the export must see in prev, like a
// fork()ed Redis keeps the old pages. When the export ends the kept
// versions are dropped. Until then they are not counted against the memory
// limit: a snapshot of a store under heavy overwrites can briefly hold up
// to twice its data.

// snapshotEpoch is (epoch << 1) | exporting.
type snapshotEpoch struct {
	state atomic.Uint64
	mu    sync.Mutex // one export at a time
}

// stamp records the epoch of it, which replaces old (when loaded), under
// the key's bucket lock.
func (s *Store) stamp(it, old *item, loaded bool) {
	st := s.snap.state.Load()
	it.epoch = st >> 1
	if st&1 != 0 && loaded {
		if v := old.asOf(st>>1 - 1); v != nil {
			v.prev.Store(nil) // an older export's leftover: not needed by this one
			it.prev.Store(v)
		}
	}
}

// asOf is the version of this entry that an export of epoch e sees, or nil
// when the key was written (created) after e.
func (it *item) asOf(e uint64) *item {
	if it.epoch <= e {
		return it
	}
	return it.prev.Load()
}

// Export calls fn for every entry live at the moment it is called, with its
// value (fn must not keep or modify it) and remaining ttl (0 = no expiry),
// for snapshots. Writes made while
// it runs are not in it; keys deleted or expired meanwhile may be, and a
// TTL changed meanwhile may be the new one.
func (s *Store) Export(fn func(key string, value []byte, ttl time.Duration) error) error {
	s.snap.mu.Lock()
	defer s.snap.mu.Unlock()
	e := s.snap.state.Load() >> 1
	s.snap.state.Store((e+1)<<1 | 1)
	defer s.dropVersions(e + 1)
	var err error
	s.m.Range(func(key string, cur *item) bool {
		it := cur.asOf(e)
		if it == nil {
			return true
		}
		d := it.deadline.Load()
		var ttl time.Duration
		if d != 0 {
			if ttl = time.Duration(d - nanotime()); ttl <= 0 {
				return true
			}
		}
		value := it.data // immutable once stored
		if it.compressed {
			value = it.plain()
		}
		err = fn(key, value, ttl)
		return err == nil
	})
	return err
}

// dropVersions ends an export: writes stop keeping old versions, and the
// ones kept are released.
func (s *Store) dropVersions(next uint64) {
	s.snap.state.Store(next << 1)
	s.m.RangeRelaxed(func(_ string, it *item) bool {
		if it.prev.Load() != nil {
			it.prev.Store(nil)
		}
		return true
	})
}
