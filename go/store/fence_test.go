package store

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

func TestSetNXFencedIssuesIncreasingFences(t *testing.T) {
	s := newTestStore(t, Config{})
	var last int64
	for i, name := range []string{"a", "b", "a", "c", "a"} {
		fence, ok, err := s.SetNXFenced(name, []byte("tok"), time.Minute)
		if err != nil || !ok {
			t.Fatalf("acquisition %d of %q: ok=%v err=%v", i, name, ok, err)
		}
		if fence <= last {
			t.Fatalf("fence %d after %d", fence, last)
		}
		last = fence
		must(s.Del(name))
	}
	s.SetNXFenced("held", []byte("x"), time.Minute)
	if fence, ok, _ := s.SetNXFenced("held", []byte("y"), time.Minute); ok || fence != 0 {
		t.Fatalf("acquired a held lock: fence=%d ok=%v", fence, ok)
	}
	noErr(t, s.Flush())
	if fence, _, _ := s.SetNXFenced("a", []byte("tok"), time.Minute); fence <= last {
		t.Fatalf("flush reset the fence counter: %d after %d", fence, last)
	}
}

func TestFence(t *testing.T) {
	cases := []struct {
		name  string
		seen  []int64
		fence int64
		want  bool
	}{
		{"first fence", nil, 5, true},
		{"higher", []int64{5}, 6, true},
		{"equal is at least the highest", []int64{5}, 5, true},
		{"stale", []int64{5, 9}, 7, false},
		{"stale after a refused one", []int64{9, 3}, 8, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t, Config{})
			for _, f := range tc.seen {
				must(s.Fence("db:row:1", f))
			}
			if got := must(s.Fence("db:row:1", tc.fence)); got != tc.want {
				t.Fatalf("fence(%d) after %v = %v, want %v", tc.fence, tc.seen, got, tc.want)
			}
			if got := must(s.Fence("db:row:2", 1)); !got {
				t.Fatal("resources share fence records")
			}
		})
	}
}

// The pause-past-expiry scenario: a zombie holder's fence is refused by the
// resource once the next holder has used its own.
func TestFenceRefusesZombieHolder(t *testing.T) {
	s := newTestStore(t, Config{SweepInterval: time.Hour})
	fenceA, _, _ := s.SetNXFenced("lock", []byte("A"), 20*time.Millisecond)
	time.Sleep(30 * time.Millisecond) // A pauses past its lease
	fenceB, ok, _ := s.SetNXFenced("lock", []byte("B"), time.Minute)
	if !ok || fenceB <= fenceA {
		t.Fatalf("B: ok=%v fence %d after A's %d", ok, fenceB, fenceA)
	}
	if !must(s.Fence("report", fenceB)) {
		t.Fatal("B's write refused")
	}
	if must(s.Fence("report", fenceA)) {
		t.Fatal("zombie A's write accepted after B's")
	}
}

// Holders serialized by a fenced lock always pass the resource check, and
// concurrent fence checks keep the highest fence.
func TestFenceUnderConcurrency(t *testing.T) {
	s := newTestStore(t, Config{})
	const workers, each = 8, 200
	var refused atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			token := fmt.Appendf(nil, "w%d", w)
			for n := 0; n < each; {
				fence, ok, err := s.SetNXFenced("lock", token, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					continue
				}
				if !must(s.Fence("resource", fence)) {
					refused.Add(1)
				}
				must(s.DelIfEq("lock", token))
				n++
			}
		})
	}
	wg.Wait()
	if n := refused.Load(); n != 0 {
		t.Fatalf("%d fenced holders were refused by the resource", n)
	}

	var highest atomic.Int64
	for range workers {
		wg.Go(func() {
			for range each {
				f := rand.Int64N(1 << 20)
				if must(s.Fence("racy", f)) {
					for {
						h := highest.Load()
						if f <= h || highest.CompareAndSwap(h, f) {
							break
						}
					}
				}
			}
		})
	}
	wg.Wait()
	if got, _ := s.fences.Load("racy"); got != highest.Load() {
		t.Fatalf("recorded fence %d, highest accepted %d", got, highest.Load())
	}
}

func TestTTLIfEq(t *testing.T) {
	s := newTestStore(t, Config{SweepInterval: time.Hour})
	noErr(t, s.Set("lock", []byte("mine"), time.Minute))
	noErr(t, s.Set("forever", []byte("mine"), 0))
	noErr(t, s.Set("short", []byte("mine"), time.Millisecond))
	time.Sleep(5 * time.Millisecond)
	cases := []struct {
		key, token string
		check      func(time.Duration) bool
	}{
		{"lock", "mine", func(d time.Duration) bool { return d > 59*time.Second && d <= time.Minute }},
		{"lock", "theirs", func(d time.Duration) bool { return d == kv.TTLMissing }},
		{"forever", "mine", func(d time.Duration) bool { return d == kv.TTLPersistent }},
		{"short", "mine", func(d time.Duration) bool { return d == kv.TTLMissing }},
		{"missing", "mine", func(d time.Duration) bool { return d == kv.TTLMissing }},
	}
	for _, tc := range cases {
		if got := must(s.TTLIfEq(tc.key, []byte(tc.token))); !tc.check(got) {
			t.Errorf("ttl_if_eq(%s, %s) = %v", tc.key, tc.token, got)
		}
	}
}

// Fence records count in Stats.Fences and BytesUsed, not in Keys.
func TestFenceRecordsAreAccounted(t *testing.T) {
	s := newTestStore(t, Config{})
	must(s.Fence("resource", 1))
	must(s.Fence("resource", 2))
	must(s.Fence("other", 3))
	want := int64(len("resource") + len("other") + 2*fenceOverhead)
	if st := s.Counters(); st.BytesUsed != want || st.Fences != 2 || st.Keys != 0 {
		t.Fatalf("two fence records: %d bytes used (want %d), %d fences, %d keys", st.BytesUsed, want, st.Fences, st.Keys)
	}
	s.RaiseFenceFloor(3)
	if st := s.Counters(); st.BytesUsed != int64(len("other")+fenceOverhead) || st.Fences != 1 {
		t.Fatalf("after a record went below the floor: %d bytes used, %d fences", st.BytesUsed, st.Fences)
	}
}

// A flush deletes every lock, so every fence issued before it is refused
// after it, on every resource; fences issued after it pass. The records it
// covers go, with their bytes; one above every fence issued (a caller's
// own) stays.
func TestFlushRefusesEveryEarlierFence(t *testing.T) {
	s := newTestStore(t, Config{})
	noErr(t, s.Set("k", []byte("v"), 0))
	issued, _, err := s.SetNXFenced("lock", []byte("A"), time.Minute)
	noErr(t, err)
	must(s.Fence("db", issued))
	own := issued + 1000
	must(s.Fence("own", own))
	noErr(t, s.Flush())
	if st := s.Counters(); st.Keys != 0 || st.BytesUsed != int64(len("own")+fenceOverhead) {
		t.Fatalf("after Flush: %d keys, %d bytes used, want own's record only", st.Keys, st.BytesUsed)
	}
	after, _, err := s.SetNXFenced("lock", []byte("B"), time.Minute)
	noErr(t, err)
	for _, c := range []struct {
		resource string
		f        int64
		want     bool
	}{
		{"db", issued - 1, false},
		{"db", issued, false},
		{"never", issued, false},
		{"own", own - 1, false},
		{"own", after, false},
		{"db", after, true},
		{"never", after, true},
		{"own", own, true},
	} {
		if got := must(s.Fence(c.resource, c.f)); got != c.want {
			t.Errorf("after Flush: Fence(%s, %d) = %v, want %v", c.resource, c.f, got, c.want)
		}
	}
}

// The fence floor holds every resource's check to at least it, recorded
// or not; records below it are dropped (and their bytes given back).
func TestFenceFloor(t *testing.T) {
	s := newTestStore(t, Config{})
	fence := func(resource string, f int64) bool {
		t.Helper()
		ok, err := s.Fence(resource, f)
		noErr(t, err)
		return ok
	}
	if !fence("low", 10) || !fence("high", 100) {
		t.Fatal("a fresh store refused a first fence")
	}
	used := s.Counters().BytesUsed
	s.RaiseFenceFloor(50)
	if got := s.Counters().BytesUsed; got >= used {
		t.Fatalf("the record below the floor kept its bytes: %d, before %d", got, used)
	}
	if st := s.Fences(); st.Floor != 50 || len(st.Highest) != 1 || st.Highest["high"] != 100 {
		t.Fatalf("fence state after raising the floor: %+v", st)
	}
	for _, c := range []struct {
		resource string
		f        int64
		want     bool
	}{
		{"low", 10, false}, // its own record, below the floor
		{"never", 49, false},
		{"never", 50, true}, // at the floor
		{"high", 99, false}, // its record is above the floor
		{"high", 100, true},
	} {
		if got := fence(c.resource, c.f); got != c.want {
			t.Fatalf("Fence(%s, %d) = %v, want %v", c.resource, c.f, got, c.want)
		}
	}
	s.RaiseFenceFloor(20) // never lowered
	if fence("other", 30) {
		t.Fatal("the floor went down")
	}
	// Restored with the rest of the state (a snapshot carries it).
	r := newTestStore(t, Config{})
	noErr(t, r.RestoreFences(FenceState{Floor: 70, Highest: map[string]int64{"a": 60, "b": 80}}))
	if st := r.Fences(); st.Floor != 70 || len(st.Highest) != 1 || st.Highest["b"] != 80 {
		t.Fatalf("restored: %+v", st)
	}
}
