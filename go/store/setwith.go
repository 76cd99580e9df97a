package store

import (
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/puzpuzpuz/xsync/v4"
)

// Cond is the precondition of SetWith.
type Cond int

const (
	Always    Cond = iota // SET
	IfAbsent              // SET NX: no live entry
	IfPresent             // SET XX: a live entry
	IfEqual               // SET IFEQ: the live value equals SetOptions.Equal
)

// SetOptions are the knobs of Redis's SET beyond key and value.
type SetOptions struct {
	Cond    Cond
	Equal   []byte        // for IfEqual
	TTL     time.Duration // 0 = no expiry, unless KeepTTL
	KeepTTL bool          // keep the live entry's expiry
	GetOld  bool          // return the previous live value
	// Evictable stores cache (kv.Cache): the store may drop it to make
	// room for any write. Else the entry is held, never evicted.
	Evictable bool
}

// SetResult reports what SetWith did.
type SetResult struct {
	Stored bool
	Old    []byte // previous live value, when GetOld and one existed
	HadOld bool
}

// SetWith is SET with all of Redis's options, decided in one Compute.
func (s *Store) SetWith(key string, value []byte, opt SetOptions) (SetResult, error) {
	if err := kv.CheckKey(key); err != nil {
		return SetResult{}, err
	}
	if err := kv.CheckTTL(opt.TTL); err != nil {
		return SetResult{}, err
	}
	return s.write(key, value, &opt, nil)
}

// allows reports whether opt's condition holds for the entry at hand.
func (opt *SetOptions) allows(old *item, live bool) bool {
	switch opt.Cond {
	case IfAbsent:
		return !live
	case IfPresent:
		return live
	case IfEqual:
		return live && old.equal(opt.Equal)
	}
	return true
}

// View calls fn with the live value at key without copying it when it is
// stored plain; fn must not keep or modify it. false when absent.
func (s *Store) View(key string, fn func(value []byte)) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	it, ok := s.m.Load(key)
	if !ok || it.expired() {
		s.misses.Inc()
		if ok {
			s.reapIfExpired(key) // as Get does: a read gives the memory back
		}
		return false, nil
	}
	s.hits.Inc()
	it.touch()
	if it.compressed || it.inPlace() {
		fn(s.plainOf(key, it))
	} else {
		fn(it.data) // immutable once stored
	}
	return true, nil
}

// Value returns a copy of the live value at key.
func (s *Store) Value(key string) ([]byte, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return nil, false, err
	}
	it, ok := s.m.Load(key)
	if !ok || it.expired() {
		s.misses.Inc()
		if ok {
			s.reapIfExpired(key)
		}
		return nil, false, nil
	}
	s.hits.Inc()
	it.touch()
	return s.plainOf(key, it), true, nil
}

// Persist removes the expiry of a live key; false when it had none.
func (s *Store) Persist(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	var done bool
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		if loaded && !old.expired() && old.deadline.Load() != 0 {
			old.deadline.Store(0)
			done = true
		}
		return old, xsync.CancelOp
	})
	return done, nil
}
