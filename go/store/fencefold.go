package store

import (
	"cmp"
	"slices"
)

// Fence records are never expired: a record forgotten would let its
// resource accept a stale fence again. So that distinct resources cannot
// fill the store, the records hold at most 1/fenceShare of the memory
// limit; past that, those with the lowest fences fold into the floor,
// which then refuses below the highest fence folded on every resource
// without a record. The trade-off: after a fold, a fence older than the
// floor is refused where its own resource would still have taken it, so a
// holder that waited long enough may be refused; a stale fence is never
// accepted. The lowest fences go first, as their holders are the oldest.
const fenceShare = 8

// fenceRecordMem is what a fence record is accounted for.
func fenceRecordMem(resource string) int64 { return int64(len(resource) + fenceOverhead) }

// fenceBudget is the bytes fence records may hold before they fold.
func (s *Store) fenceBudget() int64 { return s.cfg.MemoryLimit / fenceShare }

// belowFloor reports whether fence is refused on every resource (0 is no
// floor).
func (s *Store) belowFloor(fence int64) bool {
	floor := s.floor.Load()
	return floor != 0 && fence < floor
}

// foldFences makes room for a new record of mem bytes: it folds the
// records with the lowest fences into the floor until the records hold
// half their share. One fold runs at a time; Fence checks go on meanwhile.
func (s *Store) foldFences(mem int64) {
	s.foldMu.Lock()
	defer s.foldMu.Unlock()
	budget := s.fenceBudget()
	if s.fenceMem.Load()+mem <= budget {
		return // another fold made the room
	}
	type record struct{ fence, mem int64 }
	records := make([]record, 0, s.fences.Size())
	s.fences.Range(func(resource string, fence int64) bool {
		records = append(records, record{fence, fenceRecordMem(resource)})
		return true
	})
	if len(records) == 0 {
		return // one name larger than the share: nothing to fold
	}
	slices.SortFunc(records, func(a, b record) int { return cmp.Compare(a.fence, b.fence) })
	excess := s.fenceMem.Load() + mem - budget/2
	var floor int64
	for _, r := range records {
		floor = r.fence
		if excess -= r.mem; excess <= 0 {
			break
		}
	}
	// At least 1, as 0 means no floor: fences the store issues are
	// positive, so only fences a caller made up can be the worse for it.
	raise(&s.floor, max(floor, 1))
	// The floor rises before the records go: a check that finds a record
	// gone finds the floor that replaces it (see Fence).
	floor = s.floor.Load()
	s.dropFences(func(fence int64) bool { return fence <= floor })
}

// dropFences deletes the records whose fence drop says the floor covers,
// giving their bytes back.
func (s *Store) dropFences(drop func(fence int64) bool) {
	s.fences.DeleteMatching(func(resource string, fence int64) (bool, bool) {
		if !drop(fence) {
			return false, false
		}
		s.unaccountFence(resource)
		return true, false
	})
}

func (s *Store) unaccountFence(resource string) {
	mem := fenceRecordMem(resource)
	s.used.Add(-mem)
	s.fenceMem.Add(-mem)
}
