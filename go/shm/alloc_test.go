package shm

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A full store refuses with kv.ErrFull and never evicts a live record;
// expired ones are reclaimed to make room first.
func TestFullStoreKeepsLiveLocksAndReclaimsExpired(t *testing.T) {
	e := newTestEngine(t, MinSize, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	live := 0
	for ; ; live++ {
		ok, err := e.SetNX(fmt.Sprintf("live:%05d", live), token, time.Hour)
		if errors.Is(err, kv.ErrFull) {
			break
		}
		if err != nil || !ok {
			t.Fatalf("SetNX %d: %v %v", live, ok, err)
		}
	}
	if live < 500 {
		t.Fatalf("only %d locks fit in %d bytes", live, MinSize)
	}
	st, _ := e.Stats()
	if st.Rejected != 1 || st.Keys != int64(live) {
		t.Fatalf("stats %+v after %d locks", st, live)
	}
	// Every other lock released and replaced by another one, which then
	// expires (its ttl cut to 1 ns: no sleeping, however slow the run).
	// Keys all have one length: one size class, so no remainder of the
	// arena fits one more.
	for i := 0; i < live; i += 2 {
		if ok, _ := e.DelIfEq(fmt.Sprintf("live:%05d", i), token); !ok {
			t.Fatal("release failed")
		}
		if ok, err := e.SetNX(fmt.Sprintf("shrt:%05d", i), token, time.Hour); !ok || err != nil {
			t.Fatalf("short lock %d: %v %v", i, ok, err)
		}
	}
	if _, err := e.SetNX("more:00000", token, 0); !errors.Is(err, kv.ErrFull) {
		t.Fatalf("full store accepted a write: %v", err)
	}
	for i := 0; i < live; i += 2 {
		if ok, _ := e.ExpireIfEq(fmt.Sprintf("shrt:%05d", i), token, time.Nanosecond); !ok {
			t.Fatal("expire failed")
		}
	}
	time.Sleep(time.Millisecond)
	// Now the short ones have expired: new locks fit, in their place.
	for i := 0; i < live; i += 2 {
		if ok, err := e.SetNX(fmt.Sprintf("newk:%05d", i), token, 0); !ok || err != nil {
			t.Fatalf("after expiry, lock %d: %v %v", i, ok, err)
		}
	}
	for i := 1; i < live; i += 2 {
		if d, _ := e.TTLIfEq(fmt.Sprintf("live:%05d", i), token); d <= 0 {
			t.Fatalf("live lock %d lost: %v", i, d)
		}
	}
	st, _ = e.Stats()
	if st.Expired < int64(live/2) {
		t.Fatalf("expired %d, want %d", st.Expired, live/2)
	}
	mustVerify(t, e)
	// Incr and Fence report full the same way.
	for i := 0; ; i++ {
		if _, err := e.Incr(fmt.Sprint("ctr", i), 1, 0); err != nil {
			if !errors.Is(err, kv.ErrFull) {
				t.Fatal(err)
			}
			break
		}
	}
	if _, err := e.Fence("a fence resource", 1); !errors.Is(err, kv.ErrFull) {
		t.Fatalf("Fence on a full store: %v", err)
	}
}

// keysOfStripe returns n keys that hash to stripe si.
func keysOfStripe(e *Engine, si uint64, n int, prefix string) []string {
	var keys []string
	for i := 0; len(keys) < n; i++ {
		k := fmt.Sprint(prefix, i)
		if b, _ := e.locate(k); b&e.stripeMask == si {
			keys = append(keys, k)
		}
	}
	return keys
}

// With the bump pointer used up, a stripe takes free blocks from other
// stripes' lists, and blocks of larger classes.
func TestAllocStealsFromOtherStripes(t *testing.T) {
	e := newTestEngine(t, MinSize, Config{})
	// Fill the arena from stripes other than 0.
	n := 0
	for ; ; n++ {
		k := fmt.Sprint("fill", n)
		if b, _ := e.locate(k); b&e.stripeMask == 0 {
			continue
		}
		if err := e.Set(k, []byte("v"), 0); err != nil {
			break
		}
	}
	mine := keysOfStripe(e, 0, 20, "mine")
	if err := e.Set(mine[0], []byte("v"), 0); !errors.Is(err, kv.ErrFull) {
		t.Fatalf("stripe 0 found room in a full arena: %v", err)
	}
	// Free blocks in other stripes only.
	for i := 0; i < 40; i++ {
		e.Del(fmt.Sprint("fill", i))
	}
	for _, k := range mine {
		if err := e.Set(k, []byte("v"), 0); err != nil {
			t.Fatalf("no block stolen for %s: %v", k, err)
		}
	}
	mustVerify(t, e)
	// A larger class serves a small record when its own is empty.
	e.Flush()
	e2 := newTestEngine(t, MinSize, Config{CompressMin: -1})
	big := make([]byte, 2000)
	i := 0
	for ; e2.Set(fmt.Sprint("big", i), big, 0) == nil; i++ {
	}
	e2.Del("big0")
	if err := e2.Set("small", []byte("v"), 0); err != nil {
		t.Fatalf("small record not given a free large block: %v", err)
	}
	mustVerify(t, e2)
}
