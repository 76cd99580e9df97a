package store

import (
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A session's write (kv.SetIfLocked): the value is checked before the
// lock is renewed. Its read is kv.LockAndGet's composition.

// SetIfLocked implements kv.LockedSetter. The lock is checked and renewed in one
// Compute (under its bucket lock); the value is then written in another,
// since holding one bucket lock while taking a second could deadlock. So a
// lock renewed for lockTTL cannot expire, and no SetNX can take it, before
// the write lands (unless lockTTL is shorter than the write takes).
func (s *Store) SetIfLocked(key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration, release bool) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if err := kv.CheckTTL(ttl); err != nil {
		return false, err
	}
	// Everything that can refuse the value is checked before the lock is
	// renewed: an error leaves the lock as it was.
	owned, it, err := s.newItem(key, value, ttl, false, false)
	if err != nil {
		return false, err
	}
	renewed, err := s.expire(lock, token, true, lockTTL)
	if err != nil || !renewed {
		return false, err
	}
	// The value's deadline counts from now, not from before the renewal.
	it.deadline.Store(deadlineFor(int64(ttl)))
	if _, err := s.writeItem(owned, it, &SetOptions{TTL: ttl}, nil); err != nil {
		return false, err
	}
	if release {
		if _, err := s.DelIfEq(lock, token); err != nil {
			return true, err
		}
	}
	return true, nil
}
