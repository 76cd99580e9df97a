package shm

import (
	"errors"
	"fmt"
	"sync/atomic"
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

// keyOnStripe is a key of the given prefix that hashes to stripe si.
func keyOnStripe(e *Engine, si uint64, prefix string) string {
	for i := 0; ; i++ {
		k := fmt.Sprint(prefix, i)
		if b, _ := e.locate(k); b&e.stripeMask == si {
			return k
		}
	}
}

// A thief that died after pushing the stolen block on its own list, before
// clearing the source's jOut: the thief's stripe may be taken over, and
// the block moved on to a third stripe, long before anyone locks the
// source. The source's repair must not then push the block on its own
// list too (it would be on two lists: two records written into one block).
func TestStealDeathAfterPushNoDoubleOwner(t *testing.T) {
	// The thief dies before or after clearing the block's transit flag.
	for _, flagged := range []bool{false, true} {
		t.Run(fmt.Sprint("flag-left=", flagged), func(t *testing.T) { stealDeathAfterPush(t, flagged) })
	}
}

func stealDeathAfterPush(t *testing.T, flagged bool) {
	dead := deadOwner(t)
	e := newTestEngine(t, 1<<20, Config{})
	thief, src, third := uint64(1), uint64(2), uint64(3)
	kSrc := keyOnStripe(e, src, "src")
	if err := e.Set(kSrc, []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	e.Del(kSrc) // its block is now on src's free list
	c := uint64(classFor(recHeader + uint64(len(kSrc)) + 1))
	x := atomic.LoadUint64(e.freeHead(src, c))
	if x == 0 {
		t.Fatal("no free block on the source's list")
	}
	// The thief moves x to its own list (steal as alloc runs it), and
	// dies just before `other.jOut = 0`: both its stripes name a dead
	// owner, the source's journal still names x.
	ts, _ := e.lockStripe(thief)
	if !e.steal(thief, c) || atomic.LoadUint64(e.freeHead(thief, c)) != x {
		t.Fatal("steal did not move the block")
	}
	ts.jAlloc = 0
	if flagged {
		e.rec(x).flags |= flagInTransit
	}
	e.stripe(src).jOut = journal(x, c) | thief<<dstShift
	atomic.StoreUint64(&e.stripe(src).mu.word, dead)
	atomic.StoreUint64(&ts.mu.word, dead)

	// Someone uses the thief's stripe (repairs it); a third stripe then
	// steals x from it, as an allocation on a full arena does.
	if _, err := e.Exists(keyOnStripe(e, thief, "thief")); err != nil {
		t.Fatal(err)
	}
	st3, _ := e.lockStripe(third)
	if !e.steal(third, c) || atomic.LoadUint64(e.freeHead(third, c)) != x {
		t.Fatal("the third stripe did not get the block")
	}
	e.unlock(st3, false)
	// Only now is the source locked (and repaired).
	if _, err := e.Exists(kSrc); err != nil {
		t.Fatal(err)
	}
	if err := e.Verify(); err != nil {
		t.Fatal(err)
	}
	// Two writers, two stripes: with x on both lists, both records land in it.
	a, b := keyOnStripe(e, src, "a"), keyOnStripe(e, third, "b")
	e.Set(a, []byte("A"), 0)
	e.Set(b, []byte("B"), 0)
	if v, _ := get(t, e, a); v != "A" {
		t.Fatalf("%s = %q, want A", a, v)
	}
}
