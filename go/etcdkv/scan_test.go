package etcdkv

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// walk scans the whole keyspace, count keys a call, and returns what it
// saw and how many calls it took.
func walk(t *testing.T, e *Engine, match string, count int) (map[string]kv.KeyInfo, int) {
	t.Helper()
	seen := map[string]kv.KeyInfo{}
	cursor, calls := "", 0
	for {
		calls++
		next, err := e.Scan(cursor, match, count, func(k kv.KeyInfo) { seen[k.Key] = k })
		if err != nil {
			t.Fatalf("Scan(%q, %q, %d): %v", cursor, match, count, err)
		}
		if next == "" {
			return seen, calls
		}
		if calls > 10000 {
			t.Fatal("the walk never ended")
		}
		cursor = next
	}
}

// One call looks up at most scanLeases leases (a TimeToLive each) and reads
// at most scanPages ranges, whatever its count: a key on a lease of its own
// each means several calls, each ending before the key that would need one
// lease more, and the walk still finds every key once, in order.
func TestScanBoundsItsRoundTrips(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 10 * time.Second})
	const n = scanLeases + 44
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				if err := e.Set(fmt.Sprintf("t:%03d", i), []byte("v"), time.Minute); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var first []string
	next, err := e.Scan("", "", kv.MaxScanCount, func(k kv.KeyInfo) { first = append(first, k.Key) })
	if err != nil || next == "" || len(first) != scanLeases {
		t.Fatalf("first call: %d keys, cursor %q, %v; want %d and a cursor", len(first), next, err, scanLeases)
	}
	for i, k := range first {
		if want := fmt.Sprintf("t:%03d", i); k != want {
			t.Fatalf("key %d is %q, want %q (etcd's order)", i, k, want)
		}
	}
	seen, calls := walk(t, e, "", kv.MaxScanCount)
	if len(seen) != n || calls != 2 {
		t.Errorf("the walk: %d keys in %d calls, want %d in 2", len(seen), calls, n)
	}
	for k, info := range seen {
		if info.TTL <= 0 || info.TTL > time.Minute || info.Kind != kv.KindValue || info.Size != 1 {
			t.Errorf("%s: %+v", k, info)
		}
	}

	// Ranges: with 16 MiB values a range is 4 keys, so a call 64 at most.
	big := newTestEngine(t, shared, Config{Timeout: 10 * time.Second, MaxValueSize: 16 << 20})
	for i := range 70 {
		if err := big.Set(fmt.Sprintf("p:%02d", i), []byte("v"), 0); err != nil {
			t.Fatal(err)
		}
	}
	got := 0
	next, err = big.Scan("", "", 1000, func(kv.KeyInfo) { got++ })
	if err != nil || next == "" || got != scanPages*4 {
		t.Errorf("16 MiB values, count 1000: %d keys, cursor %q, %v; want %d and a cursor", got, next, err, scanPages*4)
	}
	if seen, _ := walk(t, big, "", 1000); len(seen) != 70 {
		t.Errorf("16 MiB values: the walk found %d keys, want 70", len(seen))
	}
}

// What lives outside the data prefix is never reported: fence records,
// lease holders and intents, the fence floor. A lease set is its guard,
// a rate log its key; a pattern's literal head narrows the range, and a
// cursor from before a narrower pattern still resumes after its key.
func TestScanKindsAndInternalKeys(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 10 * time.Second})
	if err := e.Flush(); err != nil { // puts the floor key
		t.Fatal(err)
	}
	for _, k := range []string{"a:1", "b:1", "b:2", "b:3", "c:1", "b*x"} {
		if err := e.Set(k, []byte("value:"+k), 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Fence("res", 42); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.LeaseAcquire("rw", []byte("tok1"), kv.LeaseShared, 0, time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.LeaseAcquire("rw", []byte("tok2"), kv.LeaseShared, 0, time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := e.RateLimit("rate", 5, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := e.RateLimit("rate", 5, time.Minute); err != nil {
		t.Fatal(err)
	}
	seen, _ := walk(t, e, "", 2)
	if len(seen) != 8 {
		t.Errorf("%d keys, want 8 (6 values, a lease set, a rate log): %v", len(seen), seen)
	}
	if k := seen["rw"]; k.Kind != kv.KindLeases || k.TTL <= 0 || k.TTL > time.Minute+2*time.Second || k.Size != int64(len(leaseMarker)) {
		t.Errorf("rw: %+v", k)
	}
	if k := seen["rate"]; k.Kind != kv.KindRateLog || k.TTL <= 0 || k.Size != int64(len(rateMagic)+16) {
		t.Errorf("rate: %+v", k)
	}
	if k := seen["b:2"]; k.Kind != kv.KindValue || k.TTL != kv.TTLPersistent || k.Size != int64(len("value:b:2")) {
		t.Errorf("b:2: %+v", k)
	}
	matched, _ := walk(t, e, "b:*", 1)
	if len(matched) != 3 || matched["b:1"].Key == "" || matched["b*x"].Key != "" {
		t.Errorf("b:*: %v", matched)
	}
	matched, _ = walk(t, e, `b\*x`, 1)
	if len(matched) != 1 || matched["b*x"].Key == "" {
		t.Errorf(`b\*x: %v`, matched)
	}
	var after []string
	if _, err := e.Scan(cursorCoding.EncodeToString([]byte("b:1")), "b:*", 10, func(k kv.KeyInfo) { after = append(after, k.Key) }); err != nil || len(after) != 2 || after[0] != "b:2" {
		t.Errorf("b:* after b:1: %v %v", after, err)
	}
	for _, bad := range []string{"not a cursor", "YQ=", "YR", "!!", string(make([]byte, 100))} {
		if _, err := e.Scan(bad, "", 10, func(kv.KeyInfo) {}); !errors.Is(err, kv.ErrBadCursor) {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
}

// A key whose lease is replaced all along (Expire grants a new one and
// revokes the old): a scan that finds the lease gone by its lookup reads
// the key again, so the key, there throughout, is always reported.
func TestScanKeyChangingLease(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 10 * time.Second})
	if err := e.Set("moving", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := e.Set(fmt.Sprintf("other:%02d", i), []byte("v"), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if _, err := e.Expire("moving", time.Minute); err != nil {
				done <- err
				return
			}
		}
	}()
	for range 100 {
		seen, _ := walk(t, e, "", 5)
		if k, ok := seen["moving"]; !ok || k.TTL <= 0 || k.TTL > time.Minute {
			t.Fatalf("moving: %+v (reported: %t)", k, ok)
		}
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
