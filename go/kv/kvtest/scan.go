package kvtest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// scanAll walks the whole keyspace count keys at a time.
func scanAll(h *harness, sc kv.Scanner, match string, count int) map[string][]kv.KeyInfo {
	h.t.Helper()
	seen := map[string][]kv.KeyInfo{}
	cursor := ""
	for calls := 0; ; calls++ {
		if calls > 1_000_000 {
			h.t.Fatal("the scan never ended")
		}
		next, err := sc.Scan(cursor, match, count, func(k kv.KeyInfo) { seen[k.Key] = append(seen[k.Key], k) })
		h.noErr("Scan", err)
		if next == "" {
			return seen
		}
		cursor = next
	}
}

// kv.Scanner: every live key once or more, none expired, each with its
// kind, time left and size; a pattern; a walk beside writers finds every
// key that was there throughout; bad arguments refused.
func checkScan(h *harness) {
	t := h.t
	var sc kv.Scanner = h.e
	for i := range 40 {
		h.set(fmt.Sprintf("s:%02d", i), fmt.Sprint("value-", i), 0)
	}
	h.set("s:ttl", "short-lived", time.Minute)
	h.set("s:gone", "x", expireSoon)
	h.noErr("SetEvictable", kv.SetEvictable(h.e, "s:cache", []byte("cached"), 0))
	_, _, err := h.e.LeaseAcquire("s:rw", []byte("reader"), kv.LeaseShared, 0, time.Minute, 0)
	h.noErr("LeaseAcquire", err)
	_, _, _, err = h.e.RateLimit("s:rate", 5, time.Minute)
	h.noErr("RateLimit", err)
	h.waitExpiry()

	seen := scanAll(h, sc, "", 7)
	for i := range 40 {
		k := fmt.Sprintf("s:%02d", i)
		if got := seen[k]; len(got) == 0 || got[0].Kind != kv.KindValue || got[0].TTL != kv.TTLPersistent || got[0].Size != int64(len(fmt.Sprint("value-", i))) {
			t.Errorf("%s: %+v", k, got)
		}
	}
	if got := seen["s:gone"]; len(got) != 0 {
		t.Errorf("an expired key was reported: %+v", got)
	}
	if got := seen["s:ttl"]; len(got) == 0 || !h.within(got[0].TTL, time.Minute, time.Minute) {
		t.Errorf("s:ttl: %+v", got)
	}
	wantCache := kv.KindEvictable
	if _, isCache := h.e.(kv.Cache); !isCache || h.target.EvictableHeld {
		wantCache = kv.KindValue
	}
	for key, want := range map[string]kv.KeyKind{"s:cache": wantCache, "s:rw": kv.KindLeases, "s:rate": kv.KindRateLog} {
		if got := seen[key]; len(got) == 0 || got[0].Kind != want {
			t.Errorf("%s: %+v, want kind %v", key, got, want)
		}
	}
	matched := scanAll(h, sc, "s:1?", 5)
	if len(matched) != 10 {
		t.Errorf("pattern s:1?: %d keys, want 10", len(matched))
	}
	for k := range matched {
		if !kv.Match("s:1?", k) {
			t.Errorf("pattern s:1? reported %s", k)
		}
	}

	// Beside a writer that adds and deletes other keys all along.
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		e := h.peer()
		for i := 0; !stop.Load(); i++ {
			k := fmt.Sprintf("churn:%d", i%200)
			if i%3 == 0 {
				e.Del(k)
			} else {
				e.Set(k, []byte("c"), 0)
			}
		}
	}()
	for round := 0; round < 3; round++ {
		seen := scanAll(h, sc, "", 3)
		for i := range 40 {
			if k := fmt.Sprintf("s:%02d", i); len(seen[k]) == 0 {
				t.Errorf("round %d: %s, there all along, was not reported beside a writer", round, k)
			}
		}
	}
	stop.Store(true)
	wg.Wait()

	if _, err := sc.Scan("", "", 0, func(kv.KeyInfo) {}); !errors.Is(err, kv.ErrBadArgument) {
		t.Errorf("Scan with count 0: %v", err)
	}
	if _, err := sc.Scan("", string(make([]byte, kv.MaxKeySize+1)), 10, func(kv.KeyInfo) {}); !errors.Is(err, kv.ErrKeyTooLarge) {
		t.Errorf("Scan with a pattern over the key limit: %v", err)
	}
	if _, err := sc.Scan("not a cursor", "", 10, func(kv.KeyInfo) {}); !errors.Is(err, kv.ErrBadArgument) {
		t.Errorf("Scan from a cursor it never gave: %v", err)
	}
}

// scanOne is the KeyInfo a whole walk reports for key (false: none).
func scanOne(h *harness, key string) (kv.KeyInfo, bool) {
	h.t.Helper()
	got := scanAll(h, h.e, key, 100)[key]
	if len(got) == 0 {
		return kv.KeyInfo{}, false
	}
	return got[0], true
}

// KeyInfo.Fence: a lock's fence as SetNXFenced issued it, through a
// renewal, gone once another write replaces the value; a lease set's
// highest live holder's.
func checkScanFence(h *harness) {
	t := h.t
	lock := h.target.fenceName("sf:lock")
	fence, ok, err := h.e.SetNXFenced(lock, []byte("tok-1"), time.Minute)
	h.noErr("SetNXFenced", err)
	if !ok || fence <= 0 {
		t.Fatalf("SetNXFenced: %d %v", fence, ok)
	}
	if got, ok := scanOne(h, lock); !ok || got.Fence != fence {
		t.Errorf("a held lock: %+v (found %v), want fence %d", got, ok, fence)
	}
	renewed, err := h.e.ExpireIfEq(lock, []byte("tok-1"), 2*time.Minute)
	h.noErr("ExpireIfEq", err)
	if got, ok := scanOne(h, lock); !renewed || !ok || got.Fence != fence || !h.within(got.TTL, 2*time.Minute, 2*time.Minute) {
		t.Errorf("a renewed lock: %+v (renewed %v), want fence %d and 2 min left", got, renewed, fence)
	}

	// Released, then taken by a plain SetNX: the old fence is not its.
	released, err := h.e.DelIfEq(lock, []byte("tok-1"))
	h.noErr("DelIfEq", err)
	won, err := h.e.SetNX(lock, []byte("tok-2"), time.Minute)
	h.noErr("SetNX", err)
	got, found := scanOne(h, lock)
	if !released || !won || !found {
		t.Fatalf("released %v, taken again %v, found %v", released, won, found)
	}
	plain := h.target.fenceName("sf:plain")
	h.set(plain, "v", time.Minute)
	gotPlain, _ := scanOne(h, plain)
	if h.target.FenceIsCreateRevision {
		if got.Fence <= fence || gotPlain.Fence <= got.Fence {
			t.Errorf("create revisions: the lock taken again %d (first %d), a plain set after it %d", got.Fence, fence, gotPlain.Fence)
		}
	} else if got.Fence != 0 || gotPlain.Fence != 0 {
		t.Errorf("no fence issued, yet the lock taken by SetNX reports %d and a plain set %d", got.Fence, gotPlain.Fence)
	}

	// Taken again fenced, then overwritten by Set: the fence goes with
	// the value it was issued with.
	h.noErr("Del", ignoreBool(h.e.Del(lock)))
	fence2, ok, err := h.e.SetNXFenced(lock, []byte("tok-3"), time.Minute)
	h.noErr("SetNXFenced", err)
	if got, _ := scanOne(h, lock); !ok || fence2 <= fence || got.Fence != fence2 {
		t.Errorf("taken again fenced: fence %d (first %d), scan %+v", fence2, fence, got)
	}
	h.set(lock, "overwritten", time.Minute)
	if got, _ := scanOne(h, lock); !h.target.FenceIsCreateRevision && got.Fence != 0 {
		t.Errorf("overwritten by Set, it still reports the fence %d", got.Fence)
	}

	sem := h.target.fenceName("sf:sem")
	f1, ok1, err := h.e.LeaseAcquire(sem, []byte("holder-1"), kv.LeaseShared, 3, time.Minute, 0)
	h.noErr("LeaseAcquire", err)
	f2, ok2, err := h.e.LeaseAcquire(sem, []byte("holder-2"), kv.LeaseShared, 3, time.Minute, 0)
	h.noErr("LeaseAcquire", err)
	if got, _ := scanOne(h, sem); !ok1 || !ok2 || got.Kind != kv.KindLeases || got.Fence != max(f1, f2) {
		t.Errorf("a lease set with fences %d and %d: %+v", f1, f2, got)
	}
	_, err = h.e.LeaseRelease(sem, []byte("holder-2"))
	h.noErr("LeaseRelease", err)
	if got, _ := scanOne(h, sem); got.Fence != f1 {
		t.Errorf("its holder of fence %d left: %+v, want %d", f2, got, f1)
	}
}

func ignoreBool(_ bool, err error) error { return err }
