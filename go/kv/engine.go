// Package kv defines the contract between the cgo layer and a store engine,
// and the conformance suite every engine passes (kvtest).
//
// The engines: the in-process map (store), the shared memory segment
// (shm), and over the network an ephpm-kv server, a Redis or Valkey, a
// Redis Cluster (remote) and etcd (etcdkv). Engine holds the primitives;
// compositions of them are functions here (LockAndGet, SetIfLocked,
// SetEvictable, GetMulti), each with an optional interface an engine
// implements when it does the composition in one step.
package kv

import (
	"errors"
	"time"
)

// Limits shared by every engine and enforced again by the PHP extension.
const (
	MaxKeySize = 64 << 10
)

// Special results of Engine.TTL.
const (
	TTLPersistent time.Duration = -1 // the key exists and never expires
	TTLMissing    time.Duration = -2 // the key is absent or expired
)

// Errors an engine returns. Callers test them with errors.Is; engines may wrap
// them with detail for the message the user sees.
var (
	ErrEmptyKey      = errors.New("key must not be empty")
	ErrKeyTooLarge   = errors.New("key is too large")
	ErrValueTooLarge = errors.New("value is too large")
	ErrBadTTL        = errors.New("ttl must be a finite duration from 0 to 100 years")
	ErrFull          = errors.New("store full")
	ErrNotInteger    = errors.New("value is not an integer or out of range")
	ErrOverflow      = errors.New("increment would overflow")
	ErrClosed        = errors.New("store closed")
	// ErrUnavailable means the engine could not be reached or did not answer in
	// time. The operation may or may not have happened.
	ErrUnavailable = errors.New("store unavailable")
)

// Engine is a key-value store with atomic check-and-act operations.
//
// Keys and values passed in may alias memory owned by the caller that is only
// valid for the duration of the call: an engine copies what it keeps.
// A ttl of 0 means no expiry. Expired entries are absent for every operation.
type Engine interface {
	// Get copies the value into dst when it fits and returns its full
	// length. When n > len(dst) nothing was copied: call again with a
	// buffer of at least n bytes (the value may have changed meanwhile).
	Get(key string, dst []byte) (n int, found bool, err error)
	Set(key string, value []byte, ttl time.Duration) error
	// SetNX stores value only when key is absent or expired.
	SetNX(key string, value []byte, ttl time.Duration) (bool, error)
	Del(key string) (bool, error)
	// DelIfEq deletes key only while it is live and its value equals token.
	DelIfEq(key string, token []byte) (bool, error)
	Exists(key string) (bool, error)
	// Expire sets a new ttl on a live key (0 removes the expiry).
	Expire(key string, ttl time.Duration) (bool, error)
	// ExpireIfEq is Expire only while the value equals token.
	ExpireIfEq(key string, token []byte, ttl time.Duration) (bool, error)
	// TTL returns the time left, TTLPersistent or TTLMissing.
	TTL(key string) (time.Duration, error)
	// Incr adds by to the integer at key, creating it at 0 with ttl when
	// absent; an existing key keeps its expiry.
	Incr(key string, by int64, ttl time.Duration) (int64, error)
	// Flush deletes every key. A fence Fence refused before it, Fence
	// refuses after it (but where fence records are keys, as on a Redis).
	Flush() error
	Stats() (Stats, error)

	// SetNXFenced is SetNX that also issues a fencing token from one
	// engine-wide counter, under the same lock as the insert: a later
	// acquisition of any name always gets a larger fence.
	SetNXFenced(key string, value []byte, ttl time.Duration) (fence int64, acquired bool, err error)
	// Fence records fence for resource and reports true when it is at least
	// the highest fence seen for resource, false when it is stale.
	Fence(resource string, fence int64) (bool, error)
	// TTLIfEq is TTL for a live key whose value equals token, else
	// TTLMissing: "is this lock still mine, and for how long".
	TTLIfEq(key string, token []byte) (time.Duration, error)

	// SetIfEq stores value at key with ttl only while key is live and its
	// value equals old (compared decompressed), and reports whether it
	// stored: a compare-and-swap, the primitive the coordination
	// compositions (leader.go, barrier.go, queue.go) are built on. A held
	// entry, as Set's.
	SetIfEq(key string, value, old []byte, ttl time.Duration) (bool, error)

	// Scan enumerates the keys (scan.go), for the status page, the CLI
	// and the server's SCAN.
	Scanner

	// A session's read and write are compositions of these (session.go).

	// Read/write locks, semaphores and the exact rate limiter (lease.go).
	Leases
	RateLimiter
}

// ReleaseWaiter is implemented by engines that can put a waiter to sleep
// until a key may have been released (the shared segment's futex words), so
// a lock or session waiter wakes at the release instead of polling.
type ReleaseWaiter interface {
	// WaitRelease returns when key was deleted, expired or changed, or
	// after max; spurious early returns are allowed.
	WaitRelease(key string, max time.Duration) (woken bool, err error)
}

// Stats is a point-in-time view of an engine's counters.
type Stats struct {
	Keys           int64 // entries held, including expired ones not reclaimed yet
	BytesUsed      int64 // accounted memory: keys + stored values + per-entry overhead
	BytesLimit     int64
	Hits           int64
	Misses         int64
	Expired        int64 // entries reclaimed after their ttl ran out
	Rejected       int64 // writes refused because the store was full
	Compressed     int64 // entries currently stored compressed
	MaxValueSize   int64 // largest value accepted
	CompressMin    int64 // values at or above this size are tried compressed; 0 = off
	Fences         int64 // fence records held (Fence), in BytesUsed but not in Keys; a Redis's are keys
	Quarantined    int64 // entries found corrupt (a stray write into a shared segment), kept unreadable until they go
	Evicted        int64 // evictable entries dropped to make room (cache.go)
	BytesEvictable int64 // of BytesUsed, what evictable entries hold
}
