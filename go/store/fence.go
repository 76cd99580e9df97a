package store

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/puzpuzpuz/xsync/v4"

	"github.com/ephpm/ephpm-kv/kv"
)

// fenceOverhead approximates the bytes a fence record costs beyond its name.
const fenceOverhead = 64

// SetNXFenced implements kv.Engine. The fence is taken from the counter
// inside the insert's Compute, so acquisitions of one name are ordered the
// same way as their fences.
func (s *Store) SetNXFenced(key string, value []byte, ttl time.Duration) (int64, bool, error) {
	if err := s.fenceHeadroom(); err != nil {
		return 0, false, err
	}
	var fence int64
	ok, err := s.store(key, value, ttl, true, &fence)
	return fence, ok, err
}

// testHookFenceChecked, if set, runs between Fence's checks without the
// record's lock and its decision under it.
var testHookFenceChecked func()

// Fence implements kv.Engine. A new record past the records' share of
// the memory limit first folds the lowest ones into the floor (fencefold.go).
func (s *Store) Fence(resource string, fence int64) (bool, error) {
	if err := kv.CheckKey(resource); err != nil {
		return false, err
	}
	// A stale fence is refused without allocating.
	if s.belowFloor(fence) {
		return false, nil
	}
	highest, recorded := s.fences.Load(resource)
	if recorded && fence < highest {
		return false, nil
	}
	mem := fenceRecordMem(resource)
	if !recorded && s.fenceMem.Load()+mem > s.fenceBudget() {
		s.foldFences(mem)
	}
	owned := strings.Clone(resource)
	if testHookFenceChecked != nil {
		testHookFenceChecked()
	}
	var accepted bool
	fits := s.retryWhenFull(mem, func() (full bool) {
		s.fences.Compute(owned, func(highest int64, loaded bool) (int64, xsync.ComputeOp) {
			// The floor again, under the record's lock: a fold raises it
			// before it deletes the records it covers.
			if (loaded && fence < highest) || s.belowFloor(fence) {
				return highest, xsync.CancelOp
			}
			if !loaded {
				if !s.reserve(mem) {
					full = true
					return highest, xsync.CancelOp
				}
				s.fenceMem.Add(mem)
			}
			accepted = true
			return fence, xsync.UpdateOp
		})
		return full
	})
	if !fits {
		s.rejected.Inc()
		return false, s.fullErrorBytes(mem)
	}
	return accepted, nil
}

// TTLIfEq implements kv.Engine.
func (s *Store) TTLIfEq(key string, token []byte) (time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	it, ok := s.m.Load(key)
	if !ok || !s.equalOf(key, it, token) {
		return kv.TTLMissing, nil
	}
	d := it.deadline.Load()
	if d == 0 {
		return kv.TTLPersistent, nil
	}
	if left := d - nanotime(); left > 0 {
		return time.Duration(left), nil
	}
	return kv.TTLMissing, nil
}

// FenceState is what a snapshot keeps of fencing: the counter (the last
// fence issued), so fences never go backwards across a restart, the
// highest fence per resource, and the floor every resource's check is
// held to (RaiseFenceFloor).
type FenceState struct {
	Counter int64
	Highest map[string]int64
	Floor   int64
}

// Fences returns the fencing state. The floor is read after the records:
// a record a fold deleted meanwhile is then covered by the floor read.
func (s *Store) Fences() FenceState {
	st := FenceState{Counter: s.fm.counter.Load(), Highest: map[string]int64{}}
	s.fences.Range(func(resource string, fence int64) bool {
		st.Highest[resource] = fence
		return true
	})
	st.Floor = s.floor.Load()
	return st
}

// RestoreFences raises the counter to at least st.Counter and the floor to
// at least st.Floor, and records the resources' fences.
func (s *Store) RestoreFences(st FenceState) error {
	raise(&s.fm.counter, st.Counter)
	s.RaiseFenceFloor(st.Floor)
	for resource, fence := range st.Highest {
		if _, err := s.Fence(resource, fence); err != nil {
			return err
		}
	}
	return nil
}

// RaiseFenceFloor makes every resource's fence check refuse fences below
// floor, as if each had recorded floor. A restart that may have lost
// recorded fences (a crash since the last snapshot) raises it to the first
// fence it will issue: every fence issued before is refused, since a higher
// one may have been recorded and lost. Records below it are dropped: the
// floor says more than they do. 0 is none (a fresh store's: any int64 is a
// valid fence there); fences the store issues are positive.
func (s *Store) RaiseFenceFloor(floor int64) {
	if raise(&s.floor, floor) {
		s.dropFences(func(fence int64) bool { return fence < floor })
	}
}

// raise sets v to at least to; false when it was there already.
func raise(v *atomic.Int64, to int64) bool {
	for {
		cur := v.Load()
		if cur >= to {
			return false
		}
		if v.CompareAndSwap(cur, to) {
			return true
		}
	}
}
