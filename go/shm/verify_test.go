package shm

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// corruptible returns a fresh engine with some records and some free blocks,
// and the offset of key "victim"'s record.
func corruptible(t *testing.T) (*Engine, uint64) {
	mem, _ := MapAnonymous(1 << 20)
	t.Cleanup(func() { Unmap(mem) })
	e, off := seedVictim(t, mem)
	mustVerify(t, e)
	return e, off
}

// seedVictim attaches to mem, fills it with records and free blocks, and
// returns the offset of key "victim"'s record, alone in its bucket (the
// segment's hash is seeded: the other keys are kept out of it).
func seedVictim(t *testing.T, mem []byte) (*Engine, uint64) {
	e, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := e.locate("victim")
	for i := range 200 {
		if b, _ := e.locate(fmt.Sprint("key", i)); b != vb {
			e.Set(fmt.Sprint("key", i), []byte("value"), 0)
		}
	}
	for i := 0; i < 200; i += 3 {
		e.Del(fmt.Sprint("key", i))
	}
	e.Set("victim", []byte("victim's value"), 0)
	b, h := e.locate("victim")
	_, off := e.find(b, h, "victim", kindUser)
	if off == 0 || *e.bucket(b) != off || e.rec(off).next != 0 {
		t.Fatal("victim is not alone in its bucket")
	}
	return e, off
}

func TestVerifyCatchesCorruption(t *testing.T) {
	cases := []struct {
		name, want string
		corrupt    func(e *Engine, off uint64)
	}{
		{"value byte", "bad checksum", func(e *Engine, off uint64) { e.recValue(off, e.rec(off))[3] ^= 1 }},
		{"key length", "", func(e *Engine, off uint64) { e.rec(off).keyLen++ }},
		{"kind", "not a record", func(e *Engine, off uint64) { e.rec(off).kind = kindFree }},
		{"counter", "counters", func(e *Engine, off uint64) {
			b, _ := e.locate("victim")
			e.stripe(b&e.stripeMask).keys++
		}},
		{"journal", "journal not clear", func(e *Engine, off uint64) {
			b, _ := e.locate("victim")
			e.stripe(b & e.stripeMask).jFree = 12345
		}},
		{"leak", "leaked", func(e *Engine, off uint64) {
			// Unlinked and never freed.
			b, h := e.locate("victim")
			link, _ := e.find(b, h, "victim", kindUser)
			atomic.StoreUint64(link, e.rec(off).next)
			st := e.stripe(b & e.stripeMask)
			e.unaccount(st, e.rec(off))
		}},
		{"on two free lists", "overlap or are listed twice", func(e *Engine, off uint64) {
			// Another stripe's list of the same class starts at the same
			// block.
			for s1 := range e.stripes {
				for c := range e.classes {
					if h := *e.freeHead(s1, c); h != 0 {
						*e.freeHead((s1+1)&e.stripeMask, c) = h
						return
					}
				}
			}
			panic("no free block")
		}},
		{"free mask", "freeMask bit is clear", func(e *Engine, off uint64) {
			for s1 := range e.stripes {
				for c := range e.classes {
					if *e.freeHead(s1, c) != 0 {
						e.stripe(s1).freeMask[c/64] &^= 1 << (c % 64)
						return
					}
				}
			}
			panic("no free block")
		}},
		{"cycle", "cycle", func(e *Engine, off uint64) {
			e.rec(off).next = off
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, off := corruptible(t)
			c.corrupt(e, off)
			err := e.Verify()
			if err == nil {
				t.Fatal("Verify found nothing")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Verify: %v; want %q", err, c.want)
			}
		})
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
