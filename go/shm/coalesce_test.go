package shm

import (
	"crypto/rand"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// fillWith writes records until the store refuses one, and returns how
// many it took. The refusal must be kv.ErrFull.
func fillWith(t *testing.T, write func(i int) error) int {
	t.Helper()
	for i := 0; ; i++ {
		if err := write(i); err != nil {
			if !errors.Is(err, kv.ErrFull) {
				t.Fatalf("write %d: %v", i, err)
			}
			return i
		}
	}
}

// fitsAtLeast checks that records needing need bytes filled at least
// share of the arena: n of them were written.
func fitsAtLeast(t *testing.T, e *Engine, what string, n int, need uint64, share float64) {
	t.Helper()
	room := float64(e.arenaEnd-e.arenaOff) / float64(classSizes[classFor(need)])
	if float64(n) < share*room {
		t.Fatalf("only %d %s fit where %.0f would (%.0f%% of the arena)", n, what, room, 100*float64(n)/room)
	}
}

// burst fills a new 8 MiB segment with records that write stores with a
// ttl, until one is refused, and returns the segment, how many fit and the
// ttl. The ttl must outlive the fill (records that expired during it would
// make room for the next ones, and it would never end): a fill that takes
// over half of it, as on a loaded machine, starts again with twice the ttl.
func burst(t *testing.T, write func(e *Engine, i int, ttl time.Duration) error) (*Engine, int, time.Duration) {
	t.Helper()
	for ttl := time.Second; ; ttl *= 2 {
		e := newTestEngine(t, 8<<20, Config{CompressMin: -1})
		start := time.Now()
		n, slow := 0, false
		for ; !slow; n++ {
			if err := write(e, n, ttl); err != nil {
				if !errors.Is(err, kv.ErrFull) {
					t.Fatalf("write %d: %v", n, err)
				}
				break
			}
			slow = n%1024 == 0 && time.Since(start) > ttl/2
		}
		if !slow {
			return e, n, ttl
		}
		if ttl >= 16*time.Second {
			t.Fatalf("filling 8 MiB took over %v", ttl/2)
		}
		t.Logf("the fill took over %v: again with a ttl of %v", ttl/2, 2*ttl)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// The fixed-window recipe (docs/locks.md, Rate limiting): a burst of counters, one per client,
// fills the segment and expires. The memory they held must then serve
// records of any size: a lock, a session, a 1.2 KB value.
func TestCounterBurstLeavesRoomForLargerRecords(t *testing.T) {
	e, n, ttl := burst(t, func(e *Engine, i int, ttl time.Duration) error {
		_, err := e.Incr(fmt.Sprintf("rate:client-%d", i), 1, ttl)
		return err
	})
	if n < 50000 {
		t.Fatalf("only %d counters fit", n)
	}
	time.Sleep(ttl)
	if ok, err := e.SetNX("lock:a", []byte("0123456789abcdef0123456789abcdef"), time.Minute); !ok || err != nil {
		t.Fatalf("a lock after the burst: %v %v", ok, err)
	}
	value := randomBytes(1200)
	m := fillWith(t, func(i int) error { return e.Set(fmt.Sprintf("page:%d", i), value, 0) })
	fitsAtLeast(t, e, "1.2 KB values", m, recHeader+10+1200, 0.9)
	mustVerify(t, e)
}

// The reverse: large values expire, and their memory must then serve
// lock-sized records, not one lock per 50 KB block.
func TestExpiredLargeValuesLeaveRoomForLocks(t *testing.T) {
	value := randomBytes(50 << 10)
	e, n, ttl := burst(t, func(e *Engine, i int, ttl time.Duration) error {
		return e.Set(fmt.Sprintf("big:%d", i), value, ttl)
	})
	if n < 100 {
		t.Fatalf("only %d values fit", n)
	}
	time.Sleep(ttl)
	token := []byte("0123456789abcdef0123456789abcdef")
	m := fillWith(t, func(i int) error {
		ok, err := e.SetNX(fmt.Sprintf("lock:%07d", i), token, time.Hour)
		if err == nil && !ok {
			t.Fatalf("lock %d refused", i)
		}
		return err
	})
	fitsAtLeast(t, e, "locks", m, recHeader+12+32, 0.9)
	mustVerify(t, e)
}

// Live records left among the expired ones (a counter in every 64) split
// the free memory into 4 KB runs: each run still serves larger records,
// two 1.2 KB ones (1504-byte blocks) per run. The 1 KB left in each run,
// between a value and a counter, is out of reach: it would take moving
// the values, which no free block is large enough to take (compact.go).
func TestRunsBetweenLiveRecordsServeLargerRecords(t *testing.T) {
	e := newTestEngine(t, 8<<20, Config{CompressMin: -1})
	n := livePerRun(t, e)
	value := randomBytes(1200)
	m := fillWith(t, func(i int) error { return e.Set(fmt.Sprintf("page:%d", i), value, 0) })
	fitsAtLeast(t, e, "1.2 KB values among live counters", m, recHeader+10+1200, 0.6)
	for i := 0; i < n; i += 64 {
		if _, ok, err := e.Get(fmt.Sprintf("rate:client-%d", i), make([]byte, 8)); !ok || err != nil {
			t.Fatalf("live counter %d lost: %v %v", i, ok, err)
		}
	}
	mustVerify(t, e)
}

// livePerRun fills e with counters and deletes all but every 64th (as
// their expiry would, but whatever the machine's speed: a fill slower than
// a TTL reclaims as it goes and lays the segment out otherwise), and
// returns how many it wrote.
func livePerRun(t *testing.T, e *Engine) int {
	t.Helper()
	n := fillWith(t, func(i int) error {
		_, err := e.Incr(fmt.Sprintf("rate:client-%d", i), 1, 0)
		return err
	})
	for i := range n {
		if i%64 != 0 {
			e.Del(fmt.Sprintf("rate:client-%d", i))
		}
	}
	return n
}

// Records larger than the 4 KB runs between live counters fit in none of
// them (none fit before compaction): a compaction moves the counters
// into the runs, so neighbouring runs merge.
func TestCompactionMovesSmallRecordsOutOfTheWay(t *testing.T) {
	e := newTestEngine(t, 8<<20, Config{CompressMin: -1})
	n := livePerRun(t, e)
	value := randomBytes(6000)
	m := fillWith(t, func(i int) error { return e.Set(fmt.Sprintf("page:%d", i), value, 0) })
	fitsAtLeast(t, e, "6 KB values among live counters", m, recHeader+10+6000, 0.8)
	for i := 0; i < n; i += 64 {
		if v, ok := get(t, e, fmt.Sprintf("rate:client-%d", i)); !ok || v != "1" {
			t.Fatalf("live counter %d after the compactions: %q %v", i, v, ok)
		}
	}
	for i := range m {
		if v, ok := get(t, e, fmt.Sprintf("page:%d", i)); !ok || v != string(value) {
			t.Fatalf("page %d: %d bytes, %v", i, len(v), ok)
		}
	}
	mustVerify(t, e)
}

// A process that dies at any step of a split or of a coalescing pass
// leaves a segment that Verify finds clean once the next process has
// taken the locks over (a pass is run again), and whose memory serves
// writes of every size.
func TestRepairAfterDeathInSplitOrCoalesce(t *testing.T) {
	dead := deadOwner(t)
	value := randomBytes(1200)
	scenarios := []struct {
		name    string
		prepare func(e *Engine)
		op      func(e *Engine)
		kept    func(t *testing.T, e *Engine) // what must survive the death
	}{
		// Free 8 KB blocks only, the bump pointer used up: a small record
		// splits one.
		{"split", func(e *Engine) {
			big := randomBytes(8000)
			n := fillWith(t, func(i int) error { return e.Set(fmt.Sprint("big", i), big, 0) })
			fillWith(t, func(i int) error { return e.Set(fmt.Sprint("pad", i), []byte("p"), 0) })
			for i := 0; i < n; i++ {
				e.Del(fmt.Sprint("big", i))
			}
		}, func(e *Engine) { e.Set("k", []byte("small"), 0) }, nil},
		// Free counter-sized blocks only: a 1.2 KB record needs a pass.
		{"coalesce", func(e *Engine) {
			n := fillWith(t, func(i int) error { _, err := e.Incr(fmt.Sprint("ctr", i), 1, 0); return err })
			for i := 0; i < n; i++ {
				e.Del(fmt.Sprint("ctr", i))
			}
		}, func(e *Engine) { e.Set("k", value, 0) }, nil},
		// Live counters between the free ones: a 1.2 KB record needs a
		// compaction to move them.
		{"compact", func(e *Engine) {
			n := fillWith(t, func(i int) error { _, err := e.Incr(fmt.Sprint("ctr", i), 1, 0); return err })
			for i := 0; i < n; i++ {
				if i%8 != 0 {
					e.Del(fmt.Sprint("ctr", i))
				}
			}
		}, func(e *Engine) { e.Set("k", value, 0) }, func(t *testing.T, e *Engine) {
			for i := 0; ; i += 8 {
				if ok, _ := e.Exists(fmt.Sprint("ctr", i)); !ok {
					if ok, _ := e.Exists(fmt.Sprint("ctr", i+8)); ok {
						t.Fatalf("counter ctr%d lost in the move", i)
					}
					return // the end of the counters
				}
			}
		}},
		// A flush merges the arena and gives it back above the bump pointer.
		{"flush", func(e *Engine) {
			fillWith(t, func(i int) error { _, err := e.Incr(fmt.Sprint("ctr", i), 1, 0); return err })
		}, func(e *Engine) { e.Flush() }, nil},
	}
	points := map[int]string{crashCarved: "carved", crashSplitTail: "split-tail", crashSplitShrunk: "split-shrunk",
		crashListsEmptied: "lists-emptied", crashMarkedFree: "marked-free", crashPushed: "pushed", crashLowering: "lowering",
		crashPopped: "popped", crashMoved: "moved", crashPublished: "published"}
	runs := 0
	for _, sc := range scenarios {
		for point, pname := range points {
			for _, n := range []int{1, 2, 7} {
				if sc.name == "flush" && (point == crashMarkedFree || point == crashPushed) {
					continue // first reached by the flush's removes, one stripe at a time (repair_test.go)
				}
				t.Run(fmt.Sprintf("%s/%s/%d", sc.name, pname, n), func(t *testing.T) {
					e := newTestEngine(t, 1<<20, Config{CompressMin: -1})
					sc.prepare(e)
					mustVerify(t, e)
					if !crashAt(t, e, "k", point, n, dead, func() { sc.op(e) }) {
						t.Skip("the op does not reach this point")
					}
					runs++
					if w := e.word(hCoalesce); *w == self() {
						*w = dead
					}
					mustVerify(t, e)
					if *e.word(hCoalesce) != 0 {
						t.Fatal("the dead pass is still named in the header")
					}
					if sc.kept != nil {
						sc.kept(t, e)
					}
					m := fillWith(t, func(i int) error { return e.Set(fmt.Sprint("after", i), value, 0) })
					fitsAtLeast(t, e, "1.2 KB values after the repair", m, recHeader+10+1200, 0.8)
					mustVerify(t, e)
				})
			}
		}
	}
	if runs < 15 {
		t.Fatalf("only %d crash runs reached their point", runs)
	}
}
