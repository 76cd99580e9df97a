package store

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/ephpm/ephpm-kv/kv"
)

// Evictable entries (kv.Cache) and SIEVE (Zhang et al., NSDI '24).
//
// An evictable item is allocated as a cacheItem: the item, then its place
// in one queue of every evictable entry in insertion order. Held items
// (everything else) are plain items and pay nothing: no queue, no mark,
// not a byte more.
//
// A hit (Get, View, Value) marks the entry visited with one atomic store,
// skipped when it is marked already: no lock, no reordering. When a write
// would pass the memory limit, room is made (roomFor): expired entries
// first (a full reclaim, at most every reclaimEvery while there is cache
// to evict, and always before a write is refused), then evictable ones:
// a hand walks the queue from the oldest to the newest, clearing visited
// marks, and takes the first unmarked entry (or an expired one), wrapping
// around. Only evictable entries are ever in the queue, so eviction can
// never take a held one; a held write evicts as an evictable one does, so
// held data can use the whole store, and only held data filling it gives
// kv.ErrFull.
//
// Locks: the queue's mutex is taken under a bucket lock (an entry joins
// and leaves the queue when it enters and leaves the map), never the
// other way round: the hand chooses a victim and leaves the queue's lock
// before it takes the victim's bucket lock to delete it (if it is still
// the key's item then).

// cacheItem is an evictable item. The item comes first, so a *item of an
// evictable entry is its cacheItem's address (see cache).
type cacheItem struct {
	item
	key          string      // the entry's key (sharing the item's allocation)
	visited      atomic.Bool // hit since the hand last passed
	newer, older *cacheItem  // neighbours in the queue; under sieve.mu
	queued       bool        // in the queue; under sieve.mu
}

// cacheOverhead is what a cacheItem holds beyond an item.
const cacheOverhead = int(unsafe.Sizeof(cacheItem{}) - unsafe.Sizeof(item{}))

// cache is the cacheItem an evictable item is part of.
func (it *item) cache() *cacheItem { return (*cacheItem)(unsafe.Pointer(it)) }

// touch marks a hit on an evictable entry.
func (it *item) touch() {
	if it.evictable {
		if c := it.cache(); !c.visited.Load() {
			c.visited.Store(true)
		}
	}
}

// sieve is the queue of evictable entries and its hand.
type sieve struct {
	mu             sync.Mutex
	newest, oldest *cacheItem
	hand           *cacheItem // the next entry the hand looks at; nil: the oldest
}

func (q *sieve) push(c *cacheItem) {
	q.mu.Lock()
	c.older, c.newer, c.queued = q.newest, nil, true
	if q.newest != nil {
		q.newest.newer = c
	} else {
		q.oldest = c
	}
	q.newest = c
	q.mu.Unlock()
}

func (q *sieve) remove(c *cacheItem) {
	q.mu.Lock()
	q.unlink(c)
	q.mu.Unlock()
}

// unlink takes c out of the queue, if it is in it. Under q.mu.
func (q *sieve) unlink(c *cacheItem) {
	if !c.queued {
		return
	}
	if q.hand == c {
		q.hand = c.newer
	}
	if c.newer != nil {
		c.newer.older = c.older
	} else {
		q.newest = c.older
	}
	if c.older != nil {
		c.older.newer = c.newer
	} else {
		q.oldest = c.newer
	}
	c.newer, c.older, c.queued = nil, nil, false
}

// victim moves the hand to the entry to evict and takes it out of the
// queue: the first one not visited since the hand last passed, or expired
// at now. nil when the queue is empty.
func (q *sieve) victim(now int64) *cacheItem {
	q.mu.Lock()
	defer q.mu.Unlock()
	c := q.hand
	for {
		if c == nil {
			if c = q.oldest; c == nil {
				return nil
			}
		}
		if !c.visited.Load() || c.expiredAt(now) {
			break
		}
		c.visited.Store(false)
		c = c.newer
	}
	next := c.newer
	q.unlink(c)
	q.hand = next
	return c
}

// SetEvictable implements kv.Cache.
func (s *Store) SetEvictable(key string, value []byte, ttl time.Duration) error {
	_, err := s.SetWith(key, value, SetOptions{TTL: ttl, Evictable: true})
	return err
}

// SetNXEvictable implements kv.Cache.
func (s *Store) SetNXEvictable(key string, value []byte, ttl time.Duration) (bool, error) {
	res, err := s.SetWith(key, value, SetOptions{Cond: IfAbsent, TTL: ttl, Evictable: true})
	return res.Stored, err
}

var _ kv.Cache = (*Store)(nil)

// cached accounts an evictable entry that entered the map, under its
// bucket lock.
func (s *Store) cached(it *item) {
	c := it.cache()
	if s.ghosts.take(c.key) {
		c.visited.Store(true) // evicted a moment ago and wanted again (ghost.go)
	}
	s.evictable.Add(it.mem(c.key))
	s.cacheQ.push(c)
}

// uncached un-accounts an evictable entry that left the map (deleted,
// replaced, expired or evicted), under its bucket lock.
func (s *Store) uncached(it *item) {
	c := it.cache()
	s.evictable.Add(-it.mem(c.key))
	s.cacheQ.remove(c)
}

// evictOne evicts the entry the hand chooses; false when there is no
// evictable entry left. An entry replaced or deleted since it was chosen
// is left to what replaced it (which accounted for it).
func (s *Store) evictOne() bool {
	c := s.cacheQ.victim(nanotime())
	if c == nil {
		return false
	}
	s.m.Compute(c.key, func(cur *item, loaded bool) (*item, xsync.ComputeOp) {
		if !loaded || cur != &c.item {
			return cur, xsync.CancelOp
		}
		if cur.expired() {
			s.remove(c.key, cur, false)
		} else {
			s.forget(c.key, cur)
			s.evicted.Inc()
			s.ghosts.add(c.key)
		}
		return cur, xsync.DeleteOp
	})
	return true
}

// reclaimEvery is how often, at most, a write into a full store scans it
// for expired entries while it has cache to evict instead: a full cache
// would otherwise scan the whole map on every write. The background sweep
// reclaims expired entries meanwhile, and the hand evicts the expired
// cache it meets. A write is never refused without a scan.
const reclaimEvery = 100 * time.Millisecond

// room is one write's search for room once the memory limit refused it:
// each call of more makes more, and false means nothing is left to try.
type room struct {
	s         *Store
	need      int64 // bytes the write needs (at least)
	reclaimed bool  // the expired entries were reclaimed for it
}

func (s *Store) roomFor(need int64) *room { return &room{s: s, need: need} }

// more reclaims expired entries (now, when they are due or there is no
// cache to evict), else evicts cache until need bytes fit (at least one
// entry), else reclaims expired entries if that was not done yet.
func (r *room) more() bool {
	s := r.s
	if !r.reclaimed && (s.evictable.Load() == 0 || nanotime()-s.lastReclaim.Load() >= int64(reclaimEvery)) {
		s.reclaimExpired()
		r.reclaimed = true
		return true
	}
	if s.evictOne() {
		for s.used.Load()+r.need > s.cfg.MemoryLimit && s.evictOne() {
		}
		return true
	}
	if !r.reclaimed {
		s.reclaimExpired()
		r.reclaimed = true
		return true
	}
	return false
}
