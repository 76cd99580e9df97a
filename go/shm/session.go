package shm

import (
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A session's write (kv.SetIfLocked) with the in-process store's
// semantics; its read is kv.LockAndGet's composition.

// SetIfLocked implements kv.LockedSetter. The lock is checked and renewed under
// its stripe lock; the value is written under its own stripe's lock after
// (never both held: one stripe lock at a time).
func (e *Engine) SetIfLocked(key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration, release bool) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return false, err
	}
	// Everything that can refuse the value is checked before the lock is
	// renewed: an error leaves the lock as it was.
	p, err := e.prepare(value)
	if err != nil {
		return false, err
	}
	defer p.release()
	renewed, err := e.expire(lock, token, true, lockTTL)
	if err != nil || !renewed {
		return false, err
	}
	if _, err := e.putPrepared(key, &p, ttl, putSet, nil); err != nil {
		return false, err
	}
	if release {
		if _, err := e.DelIfEq(lock, token); err != nil {
			return true, err
		}
	}
	return true, nil
}
