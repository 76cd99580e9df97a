package kv

import (
	"fmt"
	"time"
)

// Enumeration: what the status page, the CLI and the server's SCAN list.

// KeyKind is what a key holds.
type KeyKind uint8

const (
	KindValue     KeyKind = 1 // a held value: a lock's token, a counter, a session, a plain set
	KindEvictable KeyKind = 2 // a cache entry (kv.Cache)
	KindLeases    KeyKind = 3 // a lease set: a read/write lock or a semaphore
	KindRateLog   KeyKind = 4 // the rate limiter's log
)

var kindNames = [...]string{"?", "value", "evictable", "leases", "ratelog"}

func (k KeyKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// KeyInfo is one live key as a scan sees it.
type KeyInfo struct {
	Key  string
	Kind KeyKind
	// TTL is the time left, or TTLPersistent.
	TTL time.Duration
	// Size is the value's length (before compression), or for a lease set
	// or rate log the bytes the engine keeps for it.
	Size int64
	// Fence is the fence SetNXFenced issued with this value (a Lock's),
	// kept while renewals extend it and dropped by a write that replaces
	// it; for a lease set, the highest of its live holders' fences; 0
	// when none was issued. On etcd, where the fence is the key's create
	// revision, every key has one.
	Fence int64
}

// MaxScanCount bounds the keys one Scan call visits.
const MaxScanCount = 10000

// Scanner is implemented by engines that can enumerate their keys.
type Scanner interface {
	// Scan visits up to count (1 to MaxScanCount) keys from cursor ("" to
	// start) and calls fn for each live one that matches match (a Redis
	// glob; "" or "*" for all), and returns the cursor to go on from, ""
	// once the walk is done. As Redis's SCAN: a key present for the whole
	// walk is reported at least once, one may be reported twice, and
	// fewer than count keys (none, even) may come back while the walk
	// goes on. The walk never holds the store for more than one step: a
	// writer waits for one bucket at most.
	Scan(cursor string, match string, count int, fn func(KeyInfo)) (next string, err error)
}

// ErrBadCursor refuses a cursor the engine did not return.
var ErrBadCursor = fmt.Errorf("%w: not a cursor this engine returned", ErrBadArgument)

// CheckScan validates Scan's arguments.
func CheckScan(match string, count int) error {
	if count < 1 || count > MaxScanCount {
		return fmt.Errorf("%w: count must be 1 to %d, got %d", ErrBadArgument, MaxScanCount, count)
	}
	if len(match) > MaxKeySize {
		return fmt.Errorf("%w: a pattern of %d bytes, at most %d", ErrKeyTooLarge, len(match), MaxKeySize)
	}
	return nil
}

// Match reports whether key matches the Redis glob pattern: * any run, ?
// any byte, [abc] [^a-z] a set, \ quotes the next byte. "" matches all.
// One backtrack point (the last star), so O(len(pattern) * len(key)).
func Match(pattern, key string) bool {
	if pattern == "" {
		return true
	}
	p, s := 0, 0
	starP, starS := -1, 0
	for s < len(key) {
		if p < len(pattern) {
			if pattern[p] == '*' {
				starP, starS = p, s
				p++
				continue
			}
			if n, ok := matchOne(pattern[p:], key[s]); ok {
				p, s = p+n, s+1
				continue
			}
		}
		if starP < 0 {
			return false
		}
		// The last star takes one more byte.
		starS++
		p, s = starP+1, starS
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchOne matches c against the pattern element that opens p (not a
// star): its length and whether c matches.
func matchOne(p string, c byte) (int, bool) {
	switch p[0] {
	case '?':
		return 1, true
	case '[':
		return matchSet(p, c)
	case '\\':
		if len(p) > 1 {
			return 2, p[1] == c
		}
	}
	return 1, p[0] == c
}

// matchSet matches c against the set that opens p ("[...]"); end is the
// pattern's length past the set.
func matchSet(p string, c byte) (end int, ok bool) {
	i, not := 1, false
	if i < len(p) && p[i] == '^' {
		not, i = true, i+1
	}
	match := false
	for ; i < len(p) && p[i] != ']'; i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p):
			i++
			match = match || p[i] == c
		case i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']':
			lo, hi := p[i], p[i+2]
			if lo > hi {
				lo, hi = hi, lo
			}
			match = match || (c >= lo && c <= hi)
			i += 2
		default:
			match = match || p[i] == c
		}
	}
	if i < len(p) {
		i++ // the ]
	}
	return i, match != not
}
