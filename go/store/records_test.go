package store

import (
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
		if err := dst.Restore(key, r.kind, r.value, r.ttl); err != nil {
			t.Fatalf("restore %s: %v", key, err)
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
	if _, err := dst.LeaseCount("plain"); !errors.Is(err, kv.ErrNotLease) {
		t.Fatalf("a plain value that looks like a lease set: %v", err)
	}
	// What is not a record is refused, not stored.
	for name, bad := range map[string][]byte{"empty": {}, "plain": []byte("L"), "cut": rw[:len(rw)-1], "other family": got["rate"].value} {
		if err := dst.Restore("bad", KindLease, bad, time.Minute); err == nil {
			t.Errorf("a lease set that is %s: restored", name)
		}
	}
	if ok, _ := dst.Exists("bad"); ok {
		t.Fatal("a refused record left a key")
	}
}
