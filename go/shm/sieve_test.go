package shm

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ephpm/ephpm-kv/kv"
)

func mustStats(t *testing.T, e *Engine) kv.Stats {
	t.Helper()
	s, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Cache never takes what is held: evictable writes into a segment full of
// held records are refused, and every held record stays.
func TestEvictableWriteNeverEvictsHeld(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{CompressMin: -1})
	value := randomBytes(1000)
	n := fillWith(t, func(i int) error { return e.Set(fmt.Sprint("held", i), value, 0) })
	for i := range 100 {
		if err := e.SetEvictable(fmt.Sprint("cache", i), value, 0); !errors.Is(err, kv.ErrFull) {
			t.Fatalf("evictable write %d into held data: %v, want ErrFull", i, err)
		}
	}
	for i := range n {
		if v, ok := get(t, e, fmt.Sprint("held", i)); !ok || v != string(value) {
			t.Fatalf("held %d lost", i)
		}
	}
	if s := mustStats(t, e); s.Evicted != 0 {
		t.Fatalf("%d evicted", s.Evicted)
	}
	mustVerify(t, e)
}

// A cache three times the segment keeps being written, and a held write
// then takes the memory the cache holds: held data can use the whole
// segment.
func TestHeldWriteEvictsCache(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{CompressMin: -1})
	value := randomBytes(1000)
	for i := range 3000 {
		if err := e.SetEvictable(fmt.Sprint("cache", i), value, 0); err != nil {
			t.Fatalf("evictable write %d: %v", i, err)
		}
	}
	s := mustStats(t, e)
	if s.Evicted == 0 || s.BytesEvictable == 0 || s.BytesEvictable > s.BytesUsed {
		t.Fatalf("after the cache: evicted %d, evictable %d of %d bytes", s.Evicted, s.BytesEvictable, s.BytesUsed)
	}
	mustVerify(t, e)
	m := fillWith(t, func(i int) error { return e.Set(fmt.Sprint("held", i), value, 0) })
	fitsAtLeast(t, e, "held 1 KB values over the cache", m, recHeader+8+1000, 0.85)
	for i := range m {
		if _, ok := get(t, e, fmt.Sprint("held", i)); !ok {
			t.Fatalf("held %d lost", i)
		}
	}
	mustVerify(t, e)
}

// Below the segment's size nothing is evicted.
func TestCacheEvictsOnlyForRoom(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{CompressMin: -1})
	value := randomBytes(1000)
	for i := range 300 {
		if err := e.SetEvictable(fmt.Sprint("cache", i), value, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		if _, ok := get(t, e, fmt.Sprint("cache", i)); !ok {
			t.Fatalf("cache %d gone with room to spare", i)
		}
	}
	if s := mustStats(t, e); s.Evicted != 0 || s.BytesEvictable != s.BytesUsed {
		t.Fatalf("evicted %d; evictable %d of %d bytes", s.Evicted, s.BytesEvictable, s.BytesUsed)
	}
}

// SIEVE: an entry read between the writes of a scan of one-time entries
// (ten times the segment) stays; under FIFO or a random victim it goes.
func TestHotEntrySurvivesAScan(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{CompressMin: -1})
	value := randomBytes(1000)
	hot := []string{"hot:a", "hot:b", "hot:c"}
	for _, k := range hot {
		if err := e.SetEvictable(k, value, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10000 {
		if err := e.SetEvictable(fmt.Sprint("scan", i), value, 0); err != nil {
			t.Fatal(err)
		}
		if i%50 == 0 {
			for _, k := range hot {
				if _, ok := get(t, e, k); !ok {
					t.Fatalf("%s evicted after %d cold writes", k, i)
				}
			}
		}
	}
	if s := mustStats(t, e); s.Evicted < 8000 {
		t.Fatalf("only %d evicted", s.Evicted)
	}
	mustVerify(t, e)
}

// The last write decides the kind: an evictable key overwritten by Set is
// held (it survives a flood of cache), and the reverse.
func TestLastWriteDecidesTheKind(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{CompressMin: -1})
	value := randomBytes(1000)
	e.SetEvictable("was-cache", value, 0)
	e.Set("was-cache", value, 0)
	e.Set("was-held", value, 0)
	e.SetEvictable("was-held", value, 0)
	for i := range 5000 {
		if err := e.SetEvictable(fmt.Sprint("flood", i), value, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := get(t, e, "was-cache"); !ok {
		t.Fatal("a key made held by Set was evicted")
	}
	if _, ok := get(t, e, "was-held"); ok {
		t.Fatal("a key made evictable outlived 5 segments of cache unread")
	}
	mustVerify(t, e)
}

// A size class stuck on cache does not refuse a held write of another
// size: small cache entries fill the segment, and 6 KB held values then
// fill most of it (evicted, merged, compacted).
func TestCacheOfOneSizeMakesRoomForAnother(t *testing.T) {
	e := newTestEngine(t, 8<<20, Config{CompressMin: -1})
	for i := range 200000 {
		if err := e.SetEvictable(fmt.Sprint("c", i), []byte("small"), 0); err != nil {
			t.Fatal(err)
		}
	}
	if s := mustStats(t, e); s.Evicted == 0 {
		t.Fatal("the small cache did not fill the segment")
	}
	value := randomBytes(6000)
	m := fillWith(t, func(i int) error { return e.Set(fmt.Sprint("big", i), value, 0) })
	fitsAtLeast(t, e, "held 6 KB values over small cache", m, recHeader+8+6000, 0.8)
	mustVerify(t, e)
}

// Verify checks each stripe's queue, and repair rebuilds one a death left
// half linked.
func TestQueueVerifiedAndRebuilt(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{CompressMin: -1})
	b0, _ := e.locate("c0")
	si := b0 & e.stripeMask
	var keys []string
	for i := 0; len(keys) < 3; i++ {
		if b, _ := e.locate(fmt.Sprint("c", i)); b&e.stripeMask == si {
			keys = append(keys, fmt.Sprint("c", i))
			e.SetEvictable(keys[len(keys)-1], []byte("cached"), 0)
		}
	}
	mustVerify(t, e)
	st := e.stripe(si)
	e.qlinks(st.qOldest).newer = 0 // the middle record drops out of the walk
	err := e.Verify()
	if err == nil || !strings.Contains(err.Error(), "SIEVE queue") {
		t.Fatalf("Verify: %v; want the queue reported", err)
	}
	st.mu.word = deadOwner(t)
	mustVerify(t, e) // the takeover repaired it
	for _, k := range keys {
		if _, ok := get(t, e, k); !ok {
			t.Fatalf("%s lost", k)
		}
	}
}
