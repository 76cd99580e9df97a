package shm

import (
	"fmt"
	"testing"
	"time"
)

// A flush forgets the fence records but no fence: none issued or recorded
// before it passes after it, and those issued after it do.
func TestFlushKeepsFencesStale(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	f1, _, _ := e.SetNXFenced("lock", []byte("A"), time.Minute)
	e.Del("lock")
	f2, _, _ := e.SetNXFenced("lock", []byte("B"), time.Minute)
	if ok, _ := e.Fence("db", f2); !ok {
		t.Fatal("fresh fence refused")
	}
	if ok, _ := e.Fence("db", f1); ok {
		t.Fatal("stale fence accepted")
	}
	// A fence recorded by hand, far above the counter.
	high := f2 + 1e9
	if ok, _ := e.Fence("hand", high); !ok {
		t.Fatal("fresh fence refused")
	}
	e.Flush()
	for _, c := range []struct {
		resource string
		fence    int64
	}{{"db", f1}, {"db", f2}, {"other", f1}, {"other", f2}, {"hand", high}} {
		if ok, _ := e.Fence(c.resource, c.fence); ok {
			t.Fatalf("after Flush, Fence(%s, %d) from before it was accepted", c.resource, c.fence)
		}
	}
	f3, ok, _ := e.SetNXFenced("lock", []byte("C"), time.Minute)
	if !ok || f3 <= high {
		t.Fatalf("fence after Flush %d, not above %d recorded before it", f3, high)
	}
	for _, r := range []string{"db", "other", "hand"} {
		if ok, _ := e.Fence(r, f3); !ok {
			t.Fatalf("after Flush, a fence issued after it was refused for %s", r)
		}
	}
}

// Fence records are bounded (an eighth of the arena): old ones fold into
// the segment's floor, never making a stale fence acceptable. They once
// filled the segment, every write then refused.
func TestFenceRecordsAreBounded(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	base, _, _ := e.SetNXFenced("lock", nil, 0)
	const n = 40000 // 2.5 MB of fence records
	for i := range n {
		if ok, err := e.Fence(fmt.Sprint("res", i), base+int64(i)); !ok || err != nil {
			t.Fatalf("Fence %d: %v %v", i, ok, err)
		}
	}
	st, _ := e.Stats()
	if limit := st.BytesLimit/8 + int64(e.stripes)*64; st.BytesUsed > limit {
		t.Fatalf("%d fence resources hold %d bytes, more than an eighth of %d", n, st.BytesUsed, st.BytesLimit)
	}
	for i := 0; i < n; i += 97 {
		if ok, _ := e.Fence(fmt.Sprint("res", i), base+int64(i)-1); ok {
			t.Fatalf("res%d: a fence below its last (%d) accepted", i, base+int64(i))
		}
	}
	if ok, _ := e.Fence(fmt.Sprint("res", n-1), base+n-1); !ok {
		t.Fatal("the newest resource's last fence refused")
	}
	if err := e.Set("after", make([]byte, 1200), 0); err != nil {
		t.Fatal(err)
	}
}

// setWallClock sets the clock the fence counter is seeded from.
func setWallClock(t *testing.T, now time.Time) {
	saved := wallNanos
	t.Cleanup(func() { wallNanos = saved })
	wallNanos = func() int64 { return now.UnixNano() }
}

// A segment made again after one that issued fences faster than one a
// microsecond (3000 in a millisecond, as two busy processes do) starts
// above them: the counter is seeded in nanoseconds.
func TestFencesOutpaceTheSeedClock(t *testing.T) {
	start := time.Now()
	setWallClock(t, start)
	old := newTestEngine(t, 1<<20, Config{})
	var last int64
	for range 3000 {
		last, _, _ = old.SetNXFenced("x", nil, 0)
		old.Del("x")
	}
	setWallClock(t, start.Add(time.Millisecond))
	fresh := newTestEngine(t, 1<<20, Config{})
	if f, _, _ := fresh.SetNXFenced("x", nil, 0); f <= last {
		t.Fatalf("the segment made again issued %d, %d below the old one's last", f, last-f)
	}
}

// foldFences with keep 0 (what an allocation that found no block may call)
// frees every fence record of the stripe, and none of their stale fences
// passes after.
func TestFoldFencesFreesTheStripe(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	base, _, _ := e.SetNXFenced("lock", nil, 0)
	resources := keysOfStripe(e, 3, 50, "res")
	for i, r := range resources {
		e.Fence(r, base+int64(i))
	}
	other := keyOnStripe(e, 4, "other")
	e.Fence(other, base)
	st, _ := e.lockStripe(3)
	held := st.fenceBytes
	freed := e.foldFences(3, st, 0)
	left := st.fences
	e.unlock(st, false)
	if freed != held || left != 0 {
		t.Fatalf("folded %d of %d bytes, %d records left", freed, held, left)
	}
	for i, r := range resources {
		if ok, _ := e.Fence(r, base+int64(i)-1); ok {
			t.Fatalf("%s: a fence below its last accepted after the fold", r)
		}
	}
	// Another stripe's record is untouched, and judged by itself.
	if ok, _ := e.Fence(other, base); !ok {
		t.Fatal("another stripe's record was folded")
	}
	f, _, _ := e.SetNXFenced("lock2", nil, 0)
	if ok, _ := e.Fence("new", f); !ok {
		t.Fatal("a fence issued after the fold refused")
	}
}
