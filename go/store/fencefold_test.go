package store

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// Any number of resources leaves room for data: past their share of the
// memory limit the records with the lowest fences fold into the floor.
// No resource accepts a fence below one it accepted, folded or not, and
// the latest records, the ones current holders write with, stay.
func TestFenceRecordsFoldIntoTheFloor(t *testing.T) {
	const limit, n = 1 << 20, 50_000 // the records' bytes: 3.5 times the limit
	s := newTestStore(t, Config{MemoryLimit: limit, CompressMin: -1})
	name := func(i int) string { return fmt.Sprint("resource:", i) }
	for i := range n {
		if ok, err := s.Fence(name(i), int64(i+1)); err != nil || !ok {
			t.Fatalf("Fence(%s, %d) = %v, %v", name(i), i+1, ok, err)
		}
	}
	held := int64(s.fences.Size())
	if most := int64(limit / fenceShare / fenceOverhead); held == 0 || held > most {
		t.Fatalf("%d fence records held, want 1 to %d", held, most)
	}
	if used := s.Counters().BytesUsed; used > limit/fenceShare+int64(len(name(n))+fenceOverhead) {
		t.Fatalf("fence records use %d bytes of %d", used, limit)
	}
	for i := range n {
		if must(s.Fence(name(i), int64(i))) {
			t.Fatalf("Fence(%s, %d) accepted after %d", name(i), i, i+1)
		}
	}
	for i := n - 100; i < n; i++ {
		if !must(s.Fence(name(i), int64(i+1))) {
			t.Fatalf("the latest fence of %s refused", name(i))
		}
	}
	big := make([]byte, limit/2)
	noErr(t, s.Set("data", big, 0))
}

// Folding runs while other goroutines check fences on the same resources:
// no check accepts a fence below one accepted on its resource before it
// started, whichever of record and floor holds that one at the time.
func TestFenceFoldingUnderConcurrency(t *testing.T) {
	s := newTestStore(t, Config{MemoryLimit: 64 << 10}) // a share of about 100 records
	const workers, resources, calls = 4, 300, 100_000
	var issued atomic.Int64
	issued.Store(1 << 15)            // fences from 1 up
	var done [resources]atomic.Int64 // the highest fence accepted by a check that returned
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range calls {
				r := rng.IntN(resources)
				f := issued.Add(1) + rng.Int64N(1<<16) - 1<<15 // some of them stale
				before := done[r].Load()
				ok, err := s.Fence(fmt.Sprint("r", r), f)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					continue
				}
				if f < before {
					t.Errorf("r%d accepted %d after %d", r, f, before)
					return
				}
				for cur := done[r].Load(); f > cur && !done[r].CompareAndSwap(cur, f); cur = done[r].Load() {
				}
			}
		})
	}
	wg.Wait()
	if st := s.Counters(); st.BytesUsed > st.BytesLimit {
		t.Fatalf("%d bytes used of %d", st.BytesUsed, st.BytesLimit)
	}
}

// A record can go (folded, or below a raised floor) between Fence's first
// look and its decision under the record's lock: the fence it held must
// still refuse, here the 20 accepted meanwhile.
func TestFenceRecordGoneDuringTheCheck(t *testing.T) {
	s := newTestStore(t, Config{})
	must(s.Fence("r", 10))
	defer func() { testHookFenceChecked = nil }()
	testHookFenceChecked = func() {
		testHookFenceChecked = nil // the Fence below runs as usual
		if !must(s.Fence("r", 20)) {
			t.Error("20 refused after 10")
		}
		s.RaiseFenceFloor(21)
	}
	if must(s.Fence("r", 15)) {
		t.Fatal("15 accepted after 20")
	}
}
