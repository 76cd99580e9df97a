package kv

import "time"

// Two kinds of entry. A held entry (everything the Engine methods write)
// is never evicted: locks, leases, sessions, fences, counters, a plain
// Set. An evictable entry is cache: an engine that is full may drop it to
// make room for any write. The last write of a key decides its kind.

// Cache is implemented by engines that can hold evictable entries.
//
// Room is made, when a write needs it, from expired entries first and then
// from evictable ones, chosen by SIEVE (Zhang et al., NSDI '24: a hit only
// marks an entry visited; a hand walks the entries oldest first, clearing
// marks and evicting the first unmarked). A held write may evict
// evictable entries; an evictable write never evicts a held one. Only
// held data filling the store refuses a write with ErrFull, and nothing
// held is lost then.
type Cache interface {
	// SetEvictable is Set, storing an evictable entry.
	SetEvictable(key string, value []byte, ttl time.Duration) error
	// SetNXEvictable is SetNX, storing an evictable entry: an add to a
	// cache (a WordPress add(), APCu's apcu_add) that a full store may
	// evict. A lock must not use it.
	SetNXEvictable(key string, value []byte, ttl time.Duration) (bool, error)
}

// SetEvictable stores value under key as an evictable entry on an engine
// that has them, and as a held one (Set) on one that does not (etcd, a
// Redis: neither may evict what a lock needs).
func SetEvictable(e Engine, key string, value []byte, ttl time.Duration) error {
	if c, ok := e.(Cache); ok {
		return c.SetEvictable(key, value, ttl)
	}
	return e.Set(key, value, ttl)
}

// SetNXEvictable is SetNX storing an evictable entry on an engine that has
// them, and a held one (SetNX) on one that does not.
func SetNXEvictable(e Engine, key string, value []byte, ttl time.Duration) (bool, error) {
	if c, ok := e.(Cache); ok {
		return c.SetNXEvictable(key, value, ttl)
	}
	return e.SetNX(key, value, ttl)
}
