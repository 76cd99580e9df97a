// Package store is the in-process ephpm-kv engine: a concurrent map whose
// check-and-act operations (setnx, del_if_eq, expire_if_eq, incr) are each
// decided under one bucket lock, with TTLs on a monotonic clock, memory
// accounting against a limit and S2 compression of large values.
package store

import (
	"fmt"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/klauspost/compress/s2"
	"github.com/puzpuzpuz/xsync/v4"

	"github.com/ephpm/ephpm-kv/kv"
)

// Config sets a store's limits. Zero fields take the defaults.
type Config struct {
	MemoryLimit  int64 // accounted bytes the store may hold (default 64 MiB)
	MaxValueSize int64 // largest value accepted, before compression (default 1 MiB)
	// CompressMin is the value size from which compression is tried
	// (default 1 KiB); negative turns compression off.
	CompressMin   int64
	SweepInterval time.Duration // pause between sweep batches (default 100 ms)
	SweepBatch    int           // entries examined per batch (default 4096)
}

// Defaults for Config's zero fields.
const (
	DefaultMemoryLimit   = 64 << 20
	DefaultMaxValueSize  = 1 << 20
	DefaultCompressMin   = 1 << 10
	DefaultSweepInterval = 100 * time.Millisecond
	DefaultSweepBatch    = 4096
)

func (c Config) withDefaults() Config {
	if c.MemoryLimit <= 0 {
		c.MemoryLimit = DefaultMemoryLimit
	}
	if c.MaxValueSize <= 0 {
		c.MaxValueSize = DefaultMaxValueSize
	}
	if c.CompressMin == 0 {
		c.CompressMin = DefaultCompressMin
	}
	if c.SweepInterval <= 0 {
		c.SweepInterval = DefaultSweepInterval
	}
	if c.SweepBatch <= 0 {
		c.SweepBatch = DefaultSweepBatch
	}
	return c
}

// Store implements kv.Engine in process memory. It is safe for concurrent use.
type Store struct {
	cfg  Config
	m    *xsync.Map[string, *item]
	used atomic.Int64

	hits, misses, expired, rejected *xsync.Counter
	compressed                      atomic.Int64

	cacheQ      sieve        // the evictable entries, for eviction (sieve.go)
	ghosts      ghosts       // keys evicted lately (ghost.go)
	evictable   atomic.Int64 // bytes of used that evictable entries hold
	evicted     *xsync.Counter
	lastReclaim atomic.Int64 // nanotime of the last full reclaim of expired entries

	scanSeed maphash.Seed              // the order of Scan's walk (scan.go)
	fm       fenceMarks                // issues fences; never reset, not even by Flush
	fences   *xsync.Map[string, int64] // highest fence seen per resource
	fenceMem atomic.Int64              // bytes of used that the fence records hold
	floor    atomic.Int64              // every resource's fence check refuses below this (RaiseFenceFloor, foldFences); 0 = none
	snap     snapshotState             // point-in-time exports

	reclaimMu sync.Mutex // one full reclaim at a time when the store is full
	foldMu    sync.Mutex // one fold of fence records at a time
	stop      chan struct{}
	swept     chan struct{}
	closeOnce sync.Once
}

var _ kv.Engine = (*Store)(nil)

// New returns a running store; Close stops its background sweep.
func New(cfg Config) *Store {
	s := &Store{
		cfg:      cfg.withDefaults(),
		m:        xsync.NewMap[string, *item](),
		scanSeed: maphash.MakeSeed(),
		fences:   xsync.NewMap[string, int64](),
		hits:     xsync.NewCounter(),
		misses:   xsync.NewCounter(),
		expired:  xsync.NewCounter(),
		rejected: xsync.NewCounter(),
		evicted:  xsync.NewCounter(),
		stop:     make(chan struct{}),
		swept:    make(chan struct{}),
	}
	s.fm.init()
	s.ghosts.init(s.cfg.MemoryLimit)
	go s.sweepLoop()
	return s
}

// Close stops the background sweep. The data stays readable.
func (s *Store) Close() {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.swept
		s.closeFences()
	})
}

// Config returns the effective configuration.
func (s *Store) Config() Config { return s.cfg }

// newItem copies key and value into one allocation the store owns (the
// value compressed when that saves at least 20%) and returns the owned key
// that shares it; an evictable item is part of a cacheItem, a fenced one
// of a fencedItem. It runs
// before any lock is taken.
func (s *Store) newItem(key string, value []byte, ttl time.Duration, evictable, fenced bool) (string, *item, error) {
	if int64(len(value)) > s.cfg.MaxValueSize {
		return "", nil, fmt.Errorf("%w: %d bytes, max_value_size is %d", kv.ErrValueTooLarge, len(value), s.cfg.MaxValueSize)
	}
	var c *cacheItem
	it := &item{}
	switch {
	case evictable:
		c = &cacheItem{}
		it = &c.item
		it.evictable = true
	case fenced:
		it = &(&fencedItem{}).item
		it.fenced = true
	}
	it.plainLen = len(value)
	stored := value
	var buf *[]byte
	if s.cfg.CompressMin > 0 && int64(len(value)) >= s.cfg.CompressMin {
		buf = encodeBufs.Get().(*[]byte)
		if need := s2.MaxEncodedLen(len(value)); cap(*buf) < need {
			*buf = make([]byte, need)
		}
		if enc := s2.Encode((*buf)[:cap(*buf)], value); len(enc) <= len(value)-len(value)/5 {
			stored = enc
			it.compressed = true
		}
	}
	owned := make([]byte, len(key)+len(stored))
	copy(owned, key)
	copy(owned[len(key):], stored)
	if buf != nil {
		encodeBufs.Put(buf)
	}
	it.data = owned[len(key):]
	it.deadline.Store(deadlineFor(int64(ttl)))
	ownedKey := unsafe.String(unsafe.SliceData(owned), len(key))
	if c != nil {
		c.key = ownedKey
	}
	return ownedKey, it, nil
}

var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// reserve accounts delta more bytes, refusing when that passes the limit.
func (s *Store) reserve(delta int64) bool {
	if delta <= 0 {
		s.used.Add(delta)
		return true
	}
	if s.used.Add(delta) > s.cfg.MemoryLimit {
		s.used.Add(-delta)
		return false
	}
	return true
}

// forget un-accounts an entry that left the map.
func (s *Store) forget(key string, it *item) {
	s.used.Add(-it.mem(key))
	if it.compressed {
		s.compressed.Add(-1)
	}
	if it.evictable {
		s.uncached(it)
	}
}

// admit accounts counters for an entry that entered the map.
func (s *Store) admit(it *item) {
	if it.compressed {
		s.compressed.Add(1)
	}
	if it.evictable {
		s.cached(it)
	}
}

func (s *Store) fullError(key string, it *item) error {
	s.rejected.Inc()
	return s.fullErrorBytes(it.mem(key))
}

func (s *Store) fullErrorBytes(n int64) error {
	return fmt.Errorf("%w: writing %d bytes would pass memory_limit of %d bytes (%d used)",
		kv.ErrFull, n, s.cfg.MemoryLimit, s.used.Load())
}

// Stats implements kv.Engine.
func (s *Store) Stats() (kv.Stats, error) {
	return s.Counters(), nil
}

// Counters returns the store's statistics.
func (s *Store) Counters() kv.Stats {
	compressMin := s.cfg.CompressMin
	if compressMin < 0 {
		compressMin = 0
	}
	return kv.Stats{
		Keys:         int64(s.m.Size()),
		BytesUsed:    s.used.Load(),
		BytesLimit:   s.cfg.MemoryLimit,
		Hits:         s.hits.Value(),
		Misses:       s.misses.Value(),
		Expired:      s.expired.Value(),
		Rejected:     s.rejected.Value(),
		Compressed:   s.compressed.Load(),
		MaxValueSize: s.cfg.MaxValueSize,
		CompressMin:  compressMin,
		Fences:       int64(s.fences.Size()),

		Evicted:        s.evicted.Value(),
		BytesEvictable: s.evictable.Load(),
	}
}
