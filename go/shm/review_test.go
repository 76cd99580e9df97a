package shm

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
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
		"stolen":         {fillOtherStripes("k"), func(e *Engine) { e.Set("k", []byte("new"), 0) }},
		"incr":           {func(e *Engine) { e.Set("k", []byte("41"), 0) }, func(e *Engine) { e.Incr("k", 1, 0) }},
		"fence":          {func(e *Engine) {}, func(e *Engine) { e.Fence("k", 5) }},
		"expired-reap":   {func(e *Engine) { e.Set("k", []byte("old"), time.Nanosecond) }, func(e *Engine) { e.Get("k", nil) }},
		"flush":          {func(e *Engine) { e.Set("k", []byte("old"), 0) }, func(e *Engine) { e.Flush() }},
	}
	first := []int{crashWritten, crashPublished, crashUnlinked, crashMarkedFree, crashPopped, crashClaimed, crashStealUnlinked}
	second := []int{crashMarkedFree, crashPushed}
	// Who repairs: the key's next user (its stripe only), or Verify
	// (every stripe the dead process held, the steal's source too).
	repairers := map[string]func(e *Engine){
		"exists": func(e *Engine) { e.Exists("k") },
		"verify": func(e *Engine) { e.Verify() },
	}
	for name, o := range ops {
		for _, p1 := range first {
			for _, p2 := range second {
				for rname, repairer := range repairers {
					t.Run(fmt.Sprintf("%s/%d/%d/%s", name, p1, p2, rname), func(t *testing.T) {
						e := newTestEngine(t, 1<<20, Config{})
						// On k's stripe, where a flush dies first.
						kb, _ := e.locate("k")
						other := keyOnStripe(e, kb&e.stripeMask, "other")
						e.Set(other, []byte("kept"), 0)
						o.prepare(e)
						if !crashAt(t, e, "k", p1, 1, dead, func() { o.op(e) }) {
							t.Skip("the op does not reach this point")
						}
						// The next locker repairs, and dies in the repair.
						if !crashAt(t, e, "k", p2, 1, dead, func() { repairer(e) }) {
							t.Skip("the repair does not reach this point")
						}
						mustVerify(t, e)
						if v, _ := get(t, e, other); v != "kept" && name != "flush" {
							t.Fatalf("%s = %q", other, v)
						}
					})
				}
			}
		}
	}
}

// keyInBucket is a key of the given prefix that hashes to bucket b.
func keyInBucket(e *Engine, b uint64, prefix string) string {
	for i := 0; ; i++ {
		k := fmt.Sprint(prefix, i)
		if kb, _ := e.locate(k); kb == b {
			return k
		}
	}
}

// within runs f and fails the test when it has not returned in 5 s (it
// is left running: a loop that never ends cannot be stopped).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s has not returned after 5 s (a loop in a chain, or a stripe left locked?)", what)
	}
}

// loopable is corruptible's engine, never unmapped: a walk that hangs in
// it must not fault when the test ends.
func loopable(t *testing.T) (*Engine, uint64) {
	mem, err := MapAnonymous(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	return seedVictim(t, mem)
}

// A chain that loops (a corrupt segment) must not hang the operations that
// walk it, nor the repair after a dead owner; Verify reports it.
func TestChainLoopDoesNotHang(t *testing.T) {
	for _, name := range []string{"get", "set", "del", "flush", "repair", "reclaim"} {
		t.Run(name, func(t *testing.T) {
			e, off := loopable(t)
			b, _ := e.locate("victim")
			si := b & e.stripeMask
			probe := keyInBucket(e, b, "probe")
			e.rec(off).next = off // victim heads its bucket; now it loops
			if err := e.Verify(); err == nil || !strings.Contains(err.Error(), "cycle") {
				t.Fatalf("Verify: %v; want a cycle", err)
			}
			within(t, name, func() {
				switch name {
				case "get":
					get(t, e, probe)
				case "set":
					e.Set(probe, []byte("x"), 0)
				case "del":
					e.Del(probe)
				case "flush":
					e.Flush()
				case "repair":
					atomic.StoreUint64(&e.stripe(si).mu.word, deadOwner(t))
					e.Exists(probe)
				case "reclaim":
					e.stripe(si).minDL = 1
					e.reclaimExpired()
				}
			})
			// A walk that fixes the stripe cuts the loop keeping every
			// record once (flush then removes them all): nothing leaked.
			if name == "flush" || name == "repair" || name == "reclaim" {
				if err := e.Verify(); err != nil {
					t.Fatalf("after %s: %v", name, err)
				}
			}
			// The stripe still works.
			within(t, "a write after", func() {
				if err := e.Set(probe, []byte("after"), 0); err != nil {
					t.Error(err)
				}
				if v, _ := get(t, e, probe); v != "after" {
					t.Errorf("%s = %q", probe, v)
				}
			})
		})
	}
}

// guardedEngine attaches a 1 MiB segment followed by a page nobody may
// touch: a read past the segment faults instead of reading a neighbour.
func guardedEngine(t *testing.T) *Engine {
	const size = 1 << 20
	m, err := syscall.Mmap(-1, 0, size+4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(m[size:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	e, err := Attach(m[:size:size], Config{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// noFault runs f with faults turned into panics, and fails on one.
func noFault(t *testing.T, what string, f func()) {
	t.Helper()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s read past the segment: %v", what, r)
		}
	}()
	f()
}

// A record whose lengths run past its block and the segment (a corrupt
// segment) is not read past the segment's end by the operations that meet
// it; Verify reports it.
func TestRecordPastSegmentDoesNotFault(t *testing.T) {
	for _, name := range []string{"get", "incr", "key-at-the-end"} {
		t.Run(name, func(t *testing.T) {
			e := guardedEngine(t)
			e.Set("victim", []byte("12345"), 0)
			b, h := e.locate("victim")
			_, off := e.find(b, h, "victim", kindUser)
			key := "victim"
			switch name {
			case "get", "incr":
				r := e.rec(off)
				r.storedLen, r.plainLen = 1<<20, 1<<20
			case "key-at-the-end":
				// A forged record 48 bytes before the end, heading the
				// bucket of a 64-byte key whose hash it carries: its key
				// runs past the segment.
				key = strings.Repeat("k", 64)
				b, h = e.locate(key)
				end := e.arenaEnd - 48
				r := e.rec(end)
				r.hash, r.kind, r.keyLen = h, kindUser, uint32(len(key))
				atomic.StoreUint64(e.bucket(b), end)
			}
			noFault(t, name, func() {
				switch name {
				case "get", "key-at-the-end":
					e.Get(key, make([]byte, 2<<20))
				case "incr":
					e.Incr(key, 1, 0)
				}
			})
			if err := e.Verify(); err == nil {
				t.Fatal("Verify found nothing")
			}
		})
	}
}

// The reclaim pass over a corrupt record (a class no block has) neither
// panics (a panic under a stripe lock that the cgo layer recovers leaves
// the stripe locked by a live process: every other one hangs on it) nor
// frees the block on a free list that is not one (a class past the
// segment's indexes its free-list heads into the bucket array).
func TestReclaimPassesCorruptRecordBy(t *testing.T) {
	for _, bad := range []int{200, -1} {
		t.Run(fmt.Sprint("class=", bad), func(t *testing.T) {
			e, off := loopable(t)
			class := uint8(bad)
			if bad < 0 {
				class = uint8(e.classes) // the first class the segment has not
			}
			r := e.rec(off)
			r.class, r.deadline = class, 1 // expired long ago
			b, _ := e.locate("victim")
			e.stripe(b & e.stripeMask).minDL = 1
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("reclaim panicked: %v", p)
					}
				}()
				e.reclaimExpired()
			}()
			within(t, "a Get on the stripe after the reclaim", func() {
				get(t, e, keyOnStripe(e, b&e.stripeMask, "after"))
			})
			err := e.Verify()
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("record at %d:", off)) {
				t.Fatalf("Verify: %v; want the corrupt record reported", err)
			}
			for _, s := range []string{"free list", "overlap"} {
				if strings.Contains(err.Error(), s) {
					t.Fatalf("Verify: %v; the reclaim damaged a free list", err)
				}
			}
		})
	}
}

// A record holds its lengths in 32 bits: a value longer than that is
// refused as too large, whatever max_value_size allows (on a segment over
// 4 GiB it was stored with its length wrapped: read back truncated). The
// value is address space nobody may read (PROT_NONE, never backed): only
// its length is looked at before the refusal.
func TestValueLongerThanARecordHoldsIsRefused(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{MaxValueSize: 1 << 40, CompressMin: -1})
	huge, err := syscall.Mmap(-1, 0, 1<<32+10, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		t.Skip("no 4 GiB of address space:", err)
	}
	defer syscall.Munmap(huge)
	if err := e.Set("k", huge, 0); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Fatalf("Set of a %d-byte value: %v, want ErrValueTooLarge", len(huge), err)
	}
	if _, err := e.SetIfLocked("k", huge, 0, "lock", []byte("t"), time.Second, false); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Fatalf("SetIfLocked of a %d-byte value: %v, want ErrValueTooLarge", len(huge), err)
	}
}
