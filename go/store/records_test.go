package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A snapshot's lease sets and rate logs carry their kind and Unix times,
// and come back as what they were in another store (another process, on a
// clock that may have restarted).
func TestExportKindsAndRestore(t *testing.T) {
	src := New(Config{MemoryLimit: 1 << 20, MaxValueSize: 64})
	defer src.Close()
	fence, ok, err := src.LeaseAcquire("rw", []byte("A"), kv.LeaseShared, 0, time.Minute, 0)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if _, ok, err := src.LeaseAcquire("rw", []byte("W"), kv.LeaseExclusive, 0, time.Minute, time.Minute); ok || err != nil {
		t.Fatal(ok, err)
	}
	for range 20 { // a log larger than max_value_size
		if ok, _, _, err := src.RateLimit("rate", 100, time.Minute); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	if err := src.Set("plain", []byte("L\x01"), 0); err != nil {
		t.Fatal(err)
	}
	type rec struct {
		kind  Kind
		value []byte
		ttl   time.Duration
	}
	got := map[string]rec{}
	now := time.Now().UnixNano()
	err = src.ExportKinds(func(key string, kind Kind, value []byte, ttl time.Duration) error {
		got[key] = rec{kind, append([]byte(nil), value...), ttl}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got["rw"].kind != KindLease || got["rate"].kind != KindRate || got["plain"].kind != KindPlain {
		t.Fatalf("kinds: %v %v %v", got["rw"].kind, got["rate"].kind, got["plain"].kind)
	}
	// The times inside are Unix ns: a minute from now.
	near := func(what string, at int64) {
		if d := time.Duration(at - now); d < 59*time.Second || d > 61*time.Second {
			t.Errorf("%s at %v from now, want a minute (Unix ns)", what, d)
		}
	}
	rw := got["rw"].value
	near("a holder's expiry", int64(binary.LittleEndian.Uint64(rw[leaseHeader+1:])))
	near("a rate call plus its window", int64(binary.LittleEndian.Uint64(got["rate"].value[rateHeader:]))+int64(time.Minute))

	dst := New(Config{MemoryLimit: 1 << 20, MaxValueSize: 64})
	defer dst.Close()
	for key, r := range got {
		if stored, err := dst.Restore(key, r.kind, r.value, r.ttl); !stored || err != nil {
			t.Fatalf("restore %s: %v, %v", key, stored, err)
		}
	}
	if n, err := dst.LeaseCount("rw"); n != 1 || err != nil {
		t.Fatalf("holders after restore: %d, %v", n, err)
	}
	if f, ok, err := dst.LeaseAcquire("rw", []byte("A"), kv.LeaseShared, 0, time.Minute, 0); !ok || f != fence || err != nil {
		t.Fatalf("the holder's renewal after restore: %d, %v, %v; want fence %d", f, ok, err, fence)
	}
	if _, ok, err := dst.LeaseAcquire("rw", []byte("B"), kv.LeaseShared, 0, time.Minute, 0); ok || err != nil {
		t.Fatalf("a new reader past the restored intent: %v, %v", ok, err)
	}
	if ok, left, _, err := dst.RateLimit("rate", 21, time.Minute); !ok || left != 0 || err != nil {
		t.Fatalf("the 21st call of 21 after restore: %v, %d left, %v", ok, left, err)
	}
	if _, err := dst.LeaseCount("plain"); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("a plain value that looks like a lease set: %v", err)
	}
	// What is not a record is refused, not stored.
	for name, bad := range map[string][]byte{"empty": {}, "plain": []byte("L"), "cut": rw[:len(rw)-1], "other family": got["rate"].value} {
		if _, err := dst.Restore("bad", KindLease, bad, time.Minute); err == nil {
			t.Errorf("a lease set that is %s: restored", name)
		}
	}
	if ok, _ := dst.Exists("bad"); ok {
		t.Fatal("a refused record left a key")
	}
}

// exportAll is src's ExportKinds, each value copied.
func exportAll(t *testing.T, src *Store) map[string]exported {
	t.Helper()
	got := map[string]exported{}
	noErr(t, src.ExportKinds(func(key string, kind Kind, value []byte, ttl time.Duration) error {
		got[key] = exported{kind, append([]byte(nil), value...), ttl}
		return nil
	}))
	return got
}

type exported struct {
	kind  Kind
	value []byte
	ttl   time.Duration
}

// A restored lease set keeps only the entries still live at the restore:
// a holder whose time ran out meanwhile (the server was down) is gone, a
// set left with none is not stored, and the survivors expire on the new
// clock when their time runs out (not decades later, as a Unix time read
// as a monotonic one would).
func TestRestoreDropsWhatExpired(t *testing.T) {
	src := newTestStore(t, Config{})
	acquire := func(key, token string, mode kv.LeaseMode, limit int64, ttl time.Duration) {
		t.Helper()
		if _, ok, err := src.LeaseAcquire(key, []byte(token), mode, limit, ttl, 0); !ok || err != nil {
			t.Fatalf("%s %s: %v, %v", key, token, ok, err)
		}
	}
	acquire("sem", "long", kv.LeasePermit, 2, time.Minute)
	acquire("sem", "short", kv.LeasePermit, 2, 50*time.Millisecond)
	acquire("gone", "g", kv.LeaseExclusive, 0, 50*time.Millisecond)
	acquire("soon", "s", kv.LeaseExclusive, 0, 400*time.Millisecond)
	got := exportAll(t, src)
	if len(got) != 3 {
		t.Fatalf("exported %d keys, want 3", len(got))
	}
	time.Sleep(100 * time.Millisecond) // "short" and "gone" run out while "down"

	dst := newTestStore(t, Config{})
	for _, key := range []string{"sem", "soon"} {
		r := got[key]
		if stored, err := dst.Restore(key, r.kind, r.value, r.ttl); !stored || err != nil {
			t.Fatalf("restore %s: %v, %v", key, stored, err)
		}
	}
	r := got["gone"]
	if stored, err := dst.Restore("gone", r.kind, r.value, r.ttl); stored || err != nil {
		t.Fatalf("a set whose only holder expired: stored %v, %v", stored, err)
	}
	if ok, _ := dst.Exists("gone"); ok {
		t.Fatal("a set whose only holder expired was created")
	}
	if v, _, _ := dst.Value("sem"); len(v) != leaseHeader+leaseEntrySize([]byte("long")) {
		t.Fatalf("restored set of %d bytes, want the live holder's entry only", len(v))
	}
	if n, err := dst.LeaseCount("sem"); n != 1 || err != nil {
		t.Fatalf("holders of sem: %d, %v", n, err)
	}
	if _, ok, _ := dst.LeaseAcquire("sem", []byte("new"), kv.LeasePermit, 2, time.Minute, 0); !ok {
		t.Fatal("the expired holder's permit was not free")
	}
	if _, ok, _ := dst.LeaseAcquire("soon", []byte("w"), kv.LeaseExclusive, 0, time.Minute, 0); ok {
		t.Fatal("a live exclusive holder was restored as gone")
	}
	time.Sleep(time.Until(time.Unix(0, int64(binary.LittleEndian.Uint64(got["soon"].value[leaseHeader+1:])))) + 20*time.Millisecond)
	if _, ok, err := dst.LeaseAcquire("soon", []byte("w"), kv.LeaseExclusive, 0, time.Minute, 0); !ok || err != nil {
		t.Fatalf("the restored holder outlived its expiry: %v, %v", ok, err)
	}
}

// A rate log restores with its calls at their times: the window still
// counts them, and lets the next call in when the oldest leaves it. A log
// whose calls are out of order, or that holds none, is not stored.
func TestRestoreRateLog(t *testing.T) {
	src := newTestStore(t, Config{})
	const window = 300 * time.Millisecond
	first := time.Now()
	for range 2 {
		if ok, _, _, err := src.RateLimit("rate", 2, window); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	r := exportAll(t, src)["rate"]
	if r.kind != KindRate || r.ttl <= 0 || r.ttl > window {
		t.Fatalf("exported as kind %d, ttl %v", r.kind, r.ttl)
	}
	dst := newTestStore(t, Config{})
	if stored, err := dst.Restore("rate", r.kind, r.value, r.ttl); !stored || err != nil {
		t.Fatalf("restore: %v, %v", stored, err)
	}
	ok, _, retry, err := dst.RateLimit("rate", 2, window)
	if ok || err != nil {
		t.Fatalf("a third call in the window after restore: %v, %v", ok, err)
	}
	if want := time.Until(first.Add(window)); retry > want+20*time.Millisecond || retry < want-50*time.Millisecond {
		t.Fatalf("retry after %v, want about %v", retry, want)
	}
	time.Sleep(retry + 10*time.Millisecond)
	if ok, _, _, err := dst.RateLimit("rate", 2, window); !ok || err != nil {
		t.Fatalf("a call after the oldest left the window: %v, %v", ok, err)
	}

	swapped := bytes.Clone(r.value)
	copy(swapped[rateHeader:], r.value[rateHeader+8:rateHeader+16])
	copy(swapped[rateHeader+8:], r.value[rateHeader:rateHeader+8])
	if bytes.Equal(swapped, r.value) {
		t.Fatal("two calls at the same nanosecond")
	}
	if stored, err := dst.Restore("bad", KindRate, swapped, time.Minute); stored || err == nil {
		t.Fatalf("a log out of order: stored %v, %v", stored, err)
	}
	if stored, err := dst.Restore("bad", KindRate, r.value[:rateHeader], time.Minute); stored || err != nil {
		t.Fatalf("a log without calls: stored %v, %v", stored, err)
	}
	if ok, _ := dst.Exists("bad"); ok {
		t.Fatal("a log refused or empty left a key")
	}
}
