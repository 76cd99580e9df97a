package store

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/puzpuzpuz/xsync/v4"
)

// Export must be point-in-time: a snapshot holds the store as it was at one
// instant. xsync's Range is not: it walks the buckets one after another, so a
// key written while it runs lands in the file if its bucket comes later and
// is missing if its bucket came earlier, and once the map grows the writes go
// to a new table Range never sees. Under write load that gave "holes":
// a client's acknowledged key missing from the snapshot while its later
// keys were in it.
//
// So an export has a number, and a write made while it runs marks its item
// with that number; the mark is set under the bucket lock Range also takes,
// so every item Range sees unmarked was written before the export began.
// Marked items are skipped; when a write replaces an unmarked item, the item
// it replaces (the version the export must see) is kept aside, like a
// fork()ed Redis keeps the old pages. When the export ends the marks are
// cleared and the kept versions dropped. Until then they are not counted
// against the memory limit: a snapshot of a store under heavy overwrites can
// briefly hold up to twice its data. Outside exports a write pays one atomic
// load.

type snapshotState struct {
	running atomic.Uint32                            // the running export's number; 0 = none
	kept    atomic.Pointer[xsync.Map[string, *item]] // versions replaced during it
	mu      sync.Mutex                               // one export at a time
	last    uint32                                   // the last export's number
}

// stamp marks it, which replaces old (when loaded) at key, with the running
// export, and keeps the version that export must see. It runs under the
// key's bucket lock, before it is published.
func (s *Store) stamp(key string, it, old *item, loaded bool) {
	n := s.snap.running.Load()
	if n == 0 {
		return
	}
	it.export.Store(n)
	if loaded && old.export.Load() != n {
		if kept := s.snap.kept.Load(); kept != nil {
			kept.LoadOrStore(key, old)
		}
	}
}

// Export calls fn for every entry live at the moment it is called, with its
// value (fn must not keep or modify it) and remaining ttl (0 = no expiry),
// for snapshots. Writes made while it runs are not in it; keys deleted or
// expired meanwhile may be, and a TTL changed meanwhile may be the new one.
func (s *Store) Export(fn func(key string, value []byte, ttl time.Duration) error) error {
	return s.export(func(key string, _ *item, value []byte, ttl time.Duration) error { return fn(key, value, ttl) })
}

// export is Export with each value's item (ExportKinds reads its kind).
func (s *Store) export(fn func(key string, it *item, value []byte, ttl time.Duration) error) error {
	st := &s.snap
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.last++; st.last == 0 {
		st.last = 1
	}
	n := st.last
	kept := xsync.NewMap[string, *item]()
	st.kept.Store(kept)
	st.running.Store(n)
	defer s.endExport()
	var err error
	s.m.Range(func(key string, it *item) bool {
		if it.export.Load() == n {
			var ok bool
			if it, ok = kept.Load(key); !ok {
				return true // written (created) after the export began
			}
		}
		var value []byte
		d := it.deadline.Load()
		if it.inPlace() {
			// Its bytes and deadline change together, under its lock: a
			// rate call between reading one and the other would give a
			// log the deadline of the call before.
			s.underLock(key, func() { value, d = it.plain(), it.deadline.Load() })
		}
		var ttl time.Duration
		if d != 0 {
			if ttl = time.Duration(d - nanotime()); ttl <= 0 {
				return true
			}
		}
		switch {
		case it.inPlace():
		case it.compressed:
			value = it.plain()
		default:
			value = it.data // immutable once stored
		}
		err = fn(key, it, value, ttl)
		return err == nil
	})
	return err
}

// endExport stops marking and keeping, drops the kept versions and clears
// the marks, so that none outlives its export (export numbers wrap).
func (s *Store) endExport() {
	s.snap.running.Store(0)
	s.snap.kept.Store(nil)
	s.m.RangeRelaxed(func(_ string, it *item) bool {
		if it.export.Load() != 0 {
			it.export.Store(0)
		}
		return true
	})
}
