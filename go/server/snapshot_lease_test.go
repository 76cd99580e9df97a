package server

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// lease takes a lease on st and fails the test on an error.
func lease(t *testing.T, st *store.Store, key, token string, mode kv.LeaseMode, limit int64, ttl time.Duration) (int64, bool) {
	t.Helper()
	f, ok, err := st.LeaseAcquire(key, []byte(token), mode, limit, ttl, 0)
	if err != nil {
		t.Fatalf("LeaseAcquire %s %s: %v", key, token, err)
	}
	return f, ok
}

// within fails the test unless got is in [want-below, want+above].
func within(t *testing.T, what string, got, want, below, above time.Duration) {
	t.Helper()
	if got < want-below || got > want+above {
		t.Fatalf("%s: %v, want %v (-%v/+%v)", what, got, want, below, above)
	}
}

// A clean restart brings back a semaphore's and a read/write lock's
// holders and a rate log as what they were, each holder and each call with
// the time it had left, the time the server was down counted: a holder
// whose time ran out meanwhile is gone, and a set left without holders is
// not created. Before format 5 each came back as a plain value, which every
// lease op refused until it expired.
func TestSnapshotLeaseTimesSurviveRestart(t *testing.T) {
	const down = 400 * time.Millisecond
	cfg := quietConfig(t.TempDir())
	s, _ := restart(t, cfg)
	st := s.Store()
	start := time.Now() // before every acquisition and call
	longFence, _ := lease(t, st, "sem", "long", kv.LeasePermit, 3, time.Minute)
	lease(t, st, "sem", "short", kv.LeasePermit, 3, down/2)
	lease(t, st, "one", "x", kv.LeasePermit, 1, down+800*time.Millisecond) // outlives the downtime by 0.8 s
	lease(t, st, "gone", "g", kv.LeaseExclusive, 0, down/2)
	lease(t, st, "rw", "r", kv.LeaseShared, 0, time.Minute)
	if _, ok, err := st.LeaseAcquire("rw", []byte("w"), kv.LeaseExclusive, 0, time.Minute, time.Minute); ok || err != nil {
		t.Fatalf("a writer past a reader: %v, %v", ok, err)
	}
	for range 3 {
		if ok, _, _, err := st.RateLimit("rate", 5, time.Minute); !ok || err != nil {
			t.Fatalf("RateLimit: %v, %v", ok, err)
		}
	}
	// A set that outlives its holders (its key persisted) is not brought
	// back once the last of them ran out.
	lease(t, st, "kept", "k", kv.LeaseExclusive, 0, down/2)
	if ok, err := st.Persist("kept"); !ok || err != nil {
		t.Fatalf("PERSIST: %v, %v", ok, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(down)

	s, rc := restart(t, cfg)
	st = s.Store()
	// Before any lease op could drop it, short's entry is not in the set:
	// its header (2 bytes) and long's entry (18 + 4) only.
	if v, _, _ := st.Value("sem"); len(v) != 24 {
		t.Fatalf("sem restored as %d bytes, want 24: %q", len(v), v)
	}
	if n, err := st.LeaseCount("sem"); n != 1 || err != nil {
		t.Fatalf("holders of sem after the restart: %d, %v; want 1 (short ran out while down)", n, err)
	}
	for _, key := range []string{"gone", "kept"} {
		if ok, _ := st.Exists(key); ok {
			t.Fatalf("%s, a set whose only holder ran out while the server was down, came back", key)
		}
	}
	ttl, err := st.TTL("sem")
	if err != nil {
		t.Fatal(err)
	}
	within(t, "sem's ttl (long's time left)", ttl, time.Minute-time.Since(start), 5*time.Millisecond, 250*time.Millisecond)
	if f, ok := lease(t, st, "sem", "long", kv.LeasePermit, 3, time.Minute); !ok || f != longFence {
		t.Fatalf("long's renewal after the restart: fence %d, %v; want its fence %d", f, ok, longFence)
	}
	runSteps(t, rc, []step{
		cmd("1", "EPHPM.LEASECOUNT", "rw"),
		cmd("0", "EPHPM.LEASEACQUIRE", "rw", "r2", "SHARED", "0", "60000", "0"), // w's intent is still live
		cmd("*", "EPHPM.LEASEACQUIRE", "sem", "a", "PERMIT", "3", "60000", "0"),
		cmd("*", "EPHPM.LEASEACQUIRE", "sem", "b", "PERMIT", "3", "60000", "0"),
		cmd("0", "EPHPM.LEASEACQUIRE", "sem", "c", "PERMIT", "3", "60000", "0"), // long, a, b
	})

	// 3 of 5 calls in the window: 2 more, then none until the first leaves.
	for want := int64(1); want >= 0; want-- {
		if ok, left, _, err := st.RateLimit("rate", 5, time.Minute); !ok || left != want || err != nil {
			t.Fatalf("a call after the restart: %v, %d left, %v; want %d left", ok, left, err, want)
		}
	}
	ok, _, retry, err := st.RateLimit("rate", 5, time.Minute)
	if ok || err != nil {
		t.Fatalf("a sixth call in the window: %v, %v", ok, err)
	}
	within(t, "retry after (the first call's time left)", retry, time.Minute-time.Since(start), 5*time.Millisecond, 250*time.Millisecond)

	// x's permit frees when x's own time runs out, not a downtime later.
	if _, ok := lease(t, st, "one", "y", kv.LeasePermit, 1, time.Minute); ok {
		t.Fatal("x's permit was free right after the restart")
	}
	for {
		if _, ok := lease(t, st, "one", "y", kv.LeasePermit, 1, time.Minute); ok {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("x's permit never freed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	within(t, "x's permit freed after", time.Since(start), down+800*time.Millisecond, 0, 300*time.Millisecond)
}

// Lease fences come from the counter the fence mark file keeps durable, so
// after a crash a restarted server issues lease fences above every one
// issued before it, and fence checks refuse all of those (the floor). The
// mark file starts the fences far above the clock, so the clock a fresh
// counter starts from cannot hide a fence issued past the durable mark.
func TestSnapshotLeaseFencesAfterCrash(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	cfg.FenceBlock = 10
	mark := time.Now().UnixNano() + 1e15
	if err := writeFenceFile(fencePath(cfg.Snapshot), fenceFile{mark: mark}); err != nil {
		t.Fatal(err)
	}
	s, _ := restart(t, cfg)
	st := s.Store()
	modes := []kv.LeaseMode{kv.LeaseShared, kv.LeaseExclusive, kv.LeasePermit}
	var highest, held int64
	for i := range 45 {
		key, token := fmt.Sprint("l", i%4), fmt.Sprint("t", i)
		if i == 20 {
			key = "held"
		}
		f, ok := lease(t, st, key, token, modes[i%3], 3, time.Minute)
		if !ok || f <= highest {
			t.Fatalf("acquisition %d: fence %d, %v after %d", i, f, ok, highest)
		}
		highest = f
		if i == 20 {
			held = f // kept, and in the periodic snapshot
			if err := s.saveSnapshot(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if ok, err := st.LeaseRelease(key, []byte(token)); !ok || err != nil {
			t.Fatalf("release %d: %v, %v", i, ok, err)
		}
	}
	if highest <= mark+30 {
		t.Fatalf("fences up to %d, the mark file said %d", highest, mark)
	}
	crash(s)

	s, rc := restart(t, cfg)
	st = s.Store()
	f, ok := lease(t, st, "new", "t", kv.LeaseExclusive, 0, time.Minute)
	if !ok || f <= highest {
		t.Fatalf("a lease fence after the crash: %d, %v; %d was issued before it", f, ok, highest)
	}
	// The holder the snapshot kept is still one, with its fence, which the
	// floor refuses: a holder's lease the crash lost may have had a higher one.
	if g, ok := lease(t, st, "held", "t20", modes[20%3], 3, time.Minute); !ok || g != held {
		t.Fatalf("the snapshot's holder renewed: fence %d, %v; want %d", g, ok, held)
	}
	runSteps(t, rc, []step{
		cmd("0", "EPHPM.FENCE", "res", strconv.FormatInt(held, 10)),
		cmd("0", "EPHPM.FENCE", "res", strconv.FormatInt(highest, 10)),
		cmd("1", "EPHPM.FENCE", "res", strconv.FormatInt(f, 10)),
	})
}
