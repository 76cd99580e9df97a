package kv

import (
	"errors"
	"fmt"
	"time"
)

// A session's two steps, as the session handler takes them: the read
// (LockAndGet) and the write (SetIfLocked). Each is a composition of
// Engine primitives, below; an engine that does one in a single round
// trip, or more atomically, implements its interface.

// LockGetter is implemented by engines that take a lock and read a key in
// one step (a server: SET NX and GET pipelined).
type LockGetter interface {
	LockAndGet(lock string, token []byte, lockTTL time.Duration, key string, dst []byte) (acquired bool, n int, found bool, err error)
}

// LockedSetter is implemented by engines that write a lock holder's key
// in fewer steps, or more atomically, than SetIfLocked's composition.
type LockedSetter interface {
	SetIfLocked(key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration, release bool) (bool, error)
}

// LockAndGet is a session's read: SetNX(lock, token, lockTTL) and, only
// when that acquired the lock, Get(key, dst). Not acquired: nothing was
// read (n 0, found false). The two need not be one atomic step: the data
// is read once the lock is ours, as two calls would read it.
func LockAndGet(e Engine, lock string, token []byte, lockTTL time.Duration, key string, dst []byte) (acquired bool, n int, found bool, err error) {
	if g, ok := e.(LockGetter); ok {
		return g.LockAndGet(lock, token, lockTTL, key, dst)
	}
	if err := CheckKey(key); err != nil {
		return false, 0, false, err
	}
	if acquired, err = e.SetNX(lock, token, lockTTL); err != nil || !acquired {
		return false, 0, false, err
	}
	n, found, err = e.Get(key, dst)
	return true, n, found, err
}

// SetIfLocked is a session's write: while lock is live and its value
// equals token, it renews lock to lockTTL and then does Set(key, value,
// ttl); otherwise it writes nothing and reports false. Guaranteed: the
// check and the renewal are one atomic step, and the write follows it (for
// a lockTTL longer than the write takes, no other SetNX can take lock in
// between); a value too large is refused before the lock is renewed. Not
// guaranteed: that a plain Set or Del of lock by someone else cannot slip
// between renewal and write; lock holders never do that. With release,
// the lock is then given back with DelIfEq(lock, token): after the write,
// never before (a request taking the lock must read the data written).
func SetIfLocked(e Engine, key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration, release bool) (bool, error) {
	if s, ok := e.(LockedSetter); ok {
		return s.SetIfLocked(key, value, ttl, lock, token, lockTTL, release)
	}
	if err := errors.Join(CheckKey(key), CheckTTL(ttl)); err != nil {
		return false, err
	}
	st, err := e.Stats()
	if err != nil {
		return false, err
	}
	if max := st.MaxValueSize; max > 0 && int64(len(value)) > max {
		return false, fmt.Errorf("%w: %d bytes, max_value_size is %d", ErrValueTooLarge, len(value), max)
	}
	if renewed, err := e.ExpireIfEq(lock, token, lockTTL); err != nil || !renewed {
		return false, err
	}
	if err := e.Set(key, value, ttl); err != nil {
		return false, err
	}
	if release {
		if _, err := e.DelIfEq(lock, token); err != nil {
			return true, err
		}
	}
	return true, nil
}
