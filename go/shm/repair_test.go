package shm

import (
	"errors"
	"fmt"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// deadOwner is an owner word naming a process that has exited.
func deadOwner(t testing.TB) uint64 {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return ownerWord(cmd.Process.Pid, 12345)
}

type crashed struct{ point int }

// crashAt runs op and stops it at the n-th time it reaches point, as a
// process dying there would: the stripe lock stays taken, then is handed
// to a dead owner. It reports whether op reached the point.
func crashAt(t *testing.T, e *Engine, key string, point, n int, dead uint64, op func()) (hit bool) {
	t.Helper()
	seen := 0
	testCrash = func(p int) {
		if p == point {
			if seen++; seen == n {
				panic(crashed{p})
			}
		}
	}
	defer func() { testCrash = nil }()
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(crashed); !ok {
					panic(r)
				}
				hit = true
			}
		}()
		op()
	}()
	if hit {
		b, _ := e.locate(key)
		if w := atomic.LoadUint64(&e.stripe(b & e.stripeMask).mu.word); w&^waitersBit != self() {
			t.Fatalf("crashed without holding the key's stripe (word %#x)", w)
		}
		// Every stripe it held (two while stealing) now has a dead owner.
		for si := range e.stripes {
			if w := &e.stripe(si).mu.word; atomic.LoadUint64(w)&^waitersBit == self() {
				atomic.StoreUint64(w, dead)
			}
		}
	}
	return hit
}

// TestRepairAfterDeathAtEveryStep kills (in effect) an operation at each
// step between its stores; the next locker repairs the stripe: Verify is
// clean, the key holds its old or its new value, and the store works.
func TestRepairAfterDeathAtEveryStep(t *testing.T) {
	dead := deadOwner(t)
	type scenario struct {
		name     string
		prepare  func(e *Engine)
		op       func(e *Engine)
		old, new string // "" = absent
	}
	big := make([]byte, 3000) // compressible: stored compressed
	scenarios := []scenario{
		{"insert", func(e *Engine) {}, func(e *Engine) { e.SetNX("k", []byte("new"), time.Minute) }, "", "new"},
		{"replace", func(e *Engine) { e.Set("k", []byte("old"), 0) }, func(e *Engine) { e.Set("k", []byte("new"), 0) }, "old", "new"},
		{"replace-compressed", func(e *Engine) { e.Set("k", big, 0) }, func(e *Engine) { e.Set("k", []byte("new"), 0) }, string(big), "new"},
		{"incr", func(e *Engine) { e.Set("k", []byte("41"), 0) }, func(e *Engine) { e.Incr("k", 1, 0) }, "41", "42"},
		{"del", func(e *Engine) { e.Set("k", []byte("old"), 0) }, func(e *Engine) { e.Del("k") }, "old", ""},
		{"del_if_eq", func(e *Engine) { e.Set("k", []byte("old"), 0) }, func(e *Engine) { e.DelIfEq("k", []byte("old")) }, "old", ""},
		{"expired-reap", func(e *Engine) { e.Set("k", []byte("old"), time.Nanosecond) }, func(e *Engine) { e.Get("k", nil) }, "", ""},
		{"flush", func(e *Engine) { e.Set("k", []byte("old"), 0) }, func(e *Engine) { e.Flush() }, "old", ""},
		// A block of k's class on k's stripe's free list: the insert pops it.
		{"insert-from-free-list", func(e *Engine) { e.Set("k", []byte("old"), 0); e.Del("k") }, func(e *Engine) { e.Set("k", []byte("new"), 0) }, "", "new"},
		// The arena used up, free blocks only on other stripes: stolen.
		{"insert-stolen", fillOtherStripes("k"), func(e *Engine) { e.Set("k", []byte("new"), 0) }, "", "new"},
	}
	points := map[int]string{crashWritten: "written", crashPublished: "published", crashUnlinked: "unlinked",
		crashMarkedFree: "marked-free", crashPushed: "pushed", crashPopped: "popped", crashClaimed: "claimed",
		crashStealUnlinked: "steal-unlinked"}
	runs := 0
	for _, sc := range scenarios {
		for point, pname := range points {
			for n := 1; n <= 2; n++ {
				t.Run(fmt.Sprintf("%s/%s/%d", sc.name, pname, n), func(t *testing.T) {
					e := newTestEngine(t, 1<<20, Config{CompressMin: 100})
					// On k's stripe, which a flush crashing at its n-th
					// step must be in (hashes are the segment's own).
					kb, _ := e.locate("k")
					other := keyOnStripe(e, kb&e.stripeMask, "other")
					e.Set(other, []byte("kept"), 0)
					sc.prepare(e)
					mustVerify(t, e)
					before, _ := e.Stats()
					had := e.hasRecord("k")
					if !crashAt(t, e, "k", point, n, dead, func() { sc.op(e) }) {
						t.Skip("the op does not reach this point")
					}
					runs++
					mustVerify(t, e)
					v, ok := get(t, e, "k")
					if !ok {
						v = ""
					}
					if v != sc.old && v != sc.new {
						t.Fatalf("after repair k = %.20q, want %.20q or %.20q", v, sc.old, sc.new)
					}
					if sc.name != "flush" { // a flush may have removed other already
						if v, _ := get(t, e, other); v != "kept" {
							t.Fatalf("%s = %q", other, v)
						}
						st, _ := e.Stats()
						want := before.Keys
						if had {
							want--
						}
						if e.hasRecord("k") {
							want++
						}
						if st.Keys != want {
							t.Fatalf("Keys %d after repair, want %d", st.Keys, want)
						}
					}
					for i := range 20 {
						if err := e.Set(fmt.Sprint("after", i), []byte("x"), 0); err != nil && !errors.Is(err, kv.ErrFull) {
							t.Fatal(err)
						}
						e.Del(fmt.Sprint("after", i))
					}
					mustVerify(t, e)
				})
			}
		}
	}
	if runs < 20 {
		t.Fatalf("only %d crash runs reached their point", runs)
	}
}

// fillOtherStripes fills the arena with records of every stripe but key's,
// then frees a few: key's stripe can only get a block by stealing one.
func fillOtherStripes(key string) func(e *Engine) {
	return func(e *Engine) {
		b, _ := e.locate(key)
		mine := b & e.stripeMask
		var keys []string
		for i := 0; ; i++ {
			k := fmt.Sprint("fill", i)
			if b, _ := e.locate(k); b&e.stripeMask == mine {
				continue
			}
			if e.Set(k, []byte("v"), 0) != nil {
				break
			}
			keys = append(keys, k)
		}
		for _, k := range keys[:40] {
			e.Del(k)
		}
	}
}

// hasRecord reports whether key has a record, expired or not (test only: no
// lock).
func (e *Engine) hasRecord(key string) bool {
	b, h := e.locate(key)
	_, off := e.find(b, h, key, kindUser)
	return off != 0
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
