package kv

import (
	"errors"
	"fmt"
	"time"
)

// LeaseMode says how LeaseAcquire shares a key among its holders. Each
// holder is a token with its own expiry and its own fence, so one crashed
// holder blocks the others for at most its own ttl.
type LeaseMode uint8

const (
	// LeaseShared is a reader: granted while no other token holds the key
	// exclusively and no other token's live write intent is recorded.
	LeaseShared LeaseMode = 1
	// LeaseExclusive is a writer: granted while no other token holds the
	// key in any mode.
	LeaseExclusive LeaseMode = 2
	// LeasePermit is a semaphore permit: granted while fewer than limit
	// other tokens hold the key and none of them holds it exclusively (a
	// permit never shares a key with another token's writer).
	LeasePermit LeaseMode = 3
)

// Bounds of the lease and rate-limit operations, checked by every engine
// (and by the extension before the call).
const (
	MaxLeaseToken   = 64   // bytes in a holder's token
	MaxLeaseHolders = 1024 // live holders of one key, readers included
	MaxRateLimit    = 10000
)

var (
	// ErrBadArgument refuses an empty or oversized token, an unknown mode, a limit
	// outside 1..MaxLeaseHolders (or 1..MaxRateLimit), or a ttl or window
	// that is not positive: a lease's or a rate limit's argument. (Its
	// message keeps the wording servers and clients already exchange.)
	ErrBadArgument = errors.New("bad lease or rate-limit argument")
	// ErrWrongType means the key holds a value no lease or rate-limit operation
	// wrote (a plain set, or the other family's record), or, on a Redis, a
	// value of another Redis type than the operation's.
	ErrWrongType = errors.New("key holds a value that is not a lease set or rate-limit log")
)

// Leases is the family of operations behind read/write locks and
// semaphores: one key holds a set of holders. Every method is one atomic
// step in the engine; expired holders (and intents) are dropped first and
// never count. The key's own expiry is the latest expiry among its entries;
// when none is left the key is deleted.
type Leases interface {
	// LeaseAcquire grants token a lease on key for ttl (> 0) in mode, with
	// a fence from the same engine-wide counter SetNXFenced uses, and
	// reports granted. limit is the semaphore's size for LeasePermit
	// (1..MaxLeaseHolders) and ignored otherwise.
	//
	// A token that already holds key is renewed to ttl and keeps its
	// fence; a change of mode is a promotion (shared to exclusive: granted
	// only while it is the only holder) or a demotion (always granted).
	//
	// intent > 0 with LeaseExclusive, when refused: records token's intent
	// to write, expiring after intent (at most ttl). While another token's
	// intent is live, LeaseShared is refused to new readers (holders may
	// renew), so a stream of readers cannot starve a waiting writer. The
	// grant replaces the intent; LeaseRelease drops it.
	LeaseAcquire(key string, token []byte, mode LeaseMode, limit int64, ttl, intent time.Duration) (fence int64, granted bool, err error)
	// LeaseRelease removes token's entry (a lease or an intent); true when
	// token held a live lease.
	LeaseRelease(key string, token []byte) (bool, error)
	// LeaseRenew sets a live lease of token to expire after ttl (> 0);
	// false when token holds no live lease (an intent is not a lease).
	LeaseRenew(key string, token []byte, ttl time.Duration) (bool, error)
	// LeaseCount is the number of live holders of key (intents excluded).
	LeaseCount(key string) (int64, error)
	// LeaseTTL is the time left of token's live lease on key, else
	// TTLMissing (an intent is not a lease): TTLIfEq for a holder, "is
	// this lease still mine, and for how long". A read: it never extends
	// the lease. On etcd the time is whole seconds (its lease TimeToLive).
	LeaseTTL(key string, token []byte) (time.Duration, error)
}

// RateLimiter is an exact sliding-window limiter: never more than limit
// admitted calls in any window of that length.
type RateLimiter interface {
	// RateLimit admits one call under key when fewer than limit (1..
	// MaxRateLimit) calls were admitted in the window (> 0) ending now,
	// recording it, in one atomic step. remaining is how many more calls
	// the window admits after this one; retryAfter, when refused, is the
	// time until the oldest admitted call leaves the window (0 when
	// allowed). A refused call is not recorded. The key expires one window
	// after its latest admitted call.
	//
	// The bound is exact for a key called with one window (or windows that
	// never grow). A call with a longer window than earlier calls may find
	// fewer calls than were admitted in it, and engines differ in which:
	// each forgets calls outside the window it is called with, the store
	// (so the server) and the shared segment at any call (a refused one
	// included), etcd only when it admits one, Redis only when it admits
	// one and they are half its log; and
	// every engine drops the whole key one window (that call's) after its
	// latest admitted call. So allowed, remaining and retryAfter may then
	// differ between engines, and more than limit calls may be admitted in
	// the longer window.
	RateLimit(key string, limit int64, window time.Duration) (allowed bool, remaining int64, retryAfter time.Duration, err error)
}

// CheckLease validates LeaseAcquire's arguments.
func CheckLease(token []byte, mode LeaseMode, limit int64, ttl, intent time.Duration) error {
	if len(token) == 0 || len(token) > MaxLeaseToken {
		return fmt.Errorf("%w: token must be 1 to %d bytes, got %d", ErrBadArgument, MaxLeaseToken, len(token))
	}
	if mode < LeaseShared || mode > LeasePermit {
		return fmt.Errorf("%w: unknown mode %d", ErrBadArgument, mode)
	}
	if mode == LeasePermit && (limit < 1 || limit > MaxLeaseHolders) {
		return fmt.Errorf("%w: permits must be 1 to %d, got %d", ErrBadArgument, MaxLeaseHolders, limit)
	}
	if err := CheckLeaseTTL(ttl); err != nil {
		return err
	}
	if intent < 0 || intent > MaxTTL {
		return fmt.Errorf("%w: intent %d ns is outside 0..%d seconds", ErrBadTTL, int64(intent), MaxTTLSeconds)
	}
	return nil
}

// CheckLeaseTTL accepts a ttl in (0, MaxTTL]: a lease always expires.
func CheckLeaseTTL(ttl time.Duration) error {
	if ttl <= 0 || ttl > MaxTTL {
		return fmt.Errorf("%w: a lease needs a ttl above 0 and at most %d seconds, got %d ns", ErrBadTTL, MaxTTLSeconds, int64(ttl))
	}
	return nil
}

// CheckLeaseToken validates a token for LeaseRelease and LeaseRenew.
func CheckLeaseToken(token []byte) error {
	if len(token) == 0 || len(token) > MaxLeaseToken {
		return fmt.Errorf("%w: token must be 1 to %d bytes, got %d", ErrBadArgument, MaxLeaseToken, len(token))
	}
	return nil
}

// CheckRateLimit validates RateLimit's arguments.
func CheckRateLimit(limit int64, window time.Duration) error {
	if limit < 1 || limit > MaxRateLimit {
		return fmt.Errorf("%w: limit must be 1 to %d, got %d", ErrBadArgument, MaxRateLimit, limit)
	}
	if window <= 0 || window > MaxTTL {
		return fmt.Errorf("%w: a window must be above 0 and at most %d seconds, got %d ns", ErrBadTTL, MaxTTLSeconds, int64(window))
	}
	return nil
}

// CheckLeaseHolder validates the key and token of an op on one holder.
func CheckLeaseHolder(key string, token []byte) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	return CheckLeaseToken(token)
}

// CheckLeaseRenew validates LeaseRenew's arguments.
func CheckLeaseRenew(key string, token []byte, ttl time.Duration) error {
	if err := CheckLeaseHolder(key, token); err != nil {
		return err
	}
	return CheckLeaseTTL(ttl)
}

// ErrTooManyHolders refuses a new holder of a key that has
// MaxLeaseHolders live ones, or a writer's intent past as many: ErrFull,
// since only the store's bound, not someone's hold, refuses it.
var ErrTooManyHolders = fmt.Errorf("%w: a lease key holds at most %d holders (and %d writers' intents)", ErrFull, MaxLeaseHolders, MaxLeaseHolders)
