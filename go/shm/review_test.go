package shm

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// Tests from the review of the engine (issue 8): states a death or a
// corrupt segment can leave that the other tests do not reach.

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
	ts := e.lockStripe(thief)
	if !e.steal(thief, c, c+1) || atomic.LoadUint64(e.freeHead(thief, c)) != x {
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
	st3 := e.lockStripe(third)
	if !e.steal(third, c, c+1) || atomic.LoadUint64(e.freeHead(third, c)) != x {
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

// A repair that itself dies (the next locker repairs again) must still
// leave nothing leaked or doubly owned: death inside repair at each of its
// stores, after a death at each step of an insert or replace.
func TestRepairSurvivesDeathInsideRepair(t *testing.T) {
	dead := deadOwner(t)
	ops := map[string]struct {
		prepare func(e *Engine)
		op      func(e *Engine)
	}{
		"insert":         {func(e *Engine) {}, func(e *Engine) { e.SetNX("k", []byte("new"), time.Minute) }},
		"replace":        {func(e *Engine) { e.Set("k", []byte("old"), 0) }, func(e *Engine) { e.Set("k", []byte("new"), 0) }},
		"from-free-list": {func(e *Engine) { e.Set("k", []byte("old"), 0); e.Del("k") }, func(e *Engine) { e.Set("k", []byte("new"), 0) }},
		"del":            {func(e *Engine) { e.Set("k", []byte("old"), 0) }, func(e *Engine) { e.Del("k") }},
	}
	first := []int{crashWritten, crashPublished, crashUnlinked, crashMarkedFree, crashPopped, crashClaimed}
	second := []int{crashMarkedFree, crashPushed}
	for name, o := range ops {
		for _, p1 := range first {
			for _, p2 := range second {
				t.Run(fmt.Sprintf("%s/%d/%d", name, p1, p2), func(t *testing.T) {
					e := newTestEngine(t, 1<<20, Config{})
					e.Set("other", []byte("kept"), 0)
					o.prepare(e)
					if !crashAt(t, e, "k", p1, 1, dead, func() { o.op(e) }) {
						t.Skip("the op does not reach this point")
					}
					// The next locker repairs, and dies in the repair.
					if !crashAt(t, e, "k", p2, 1, dead, func() { e.Exists("k") }) {
						t.Skip("the repair does not reach this point")
					}
					mustVerify(t, e)
					if v, _ := get(t, e, "other"); v != "kept" {
						t.Fatalf("other = %q", v)
					}
				})
			}
		}
	}
}
