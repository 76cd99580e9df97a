package shm

import (
	"fmt"
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

