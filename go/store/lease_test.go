package store

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A plain value is never a lease set, even one with a lease set's bytes:
// the item's kind says what wrote it, not its value.
func TestLeaseForgedValue(t *testing.T) {
	s := newTestStore(t, Config{})
	if _, ok, err := s.LeaseAcquire("l", []byte("a"), kv.LeaseShared, 0, time.Minute, 0); err != nil || !ok {
		t.Fatalf("LeaseAcquire: %v, %v", ok, err)
	}
	set, _, _ := s.Value("l")
	if len(set) != leaseHeader+leaseEntrySize([]byte("a")) || set[0] != leaseMagic || set[1] != leaseVersion {
		t.Fatalf("a lease set reads %q", set)
	}
	s.Set("forged", set, time.Minute)
	if _, _, err := s.LeaseAcquire("forged", []byte("b"), kv.LeaseShared, 0, time.Minute, 0); !errors.Is(err, kv.ErrWrongType) {
		t.Fatalf("LeaseAcquire of a plain copy of a lease set: %v", err)
	}
	if ok, err := s.LeaseRelease("forged", []byte("a")); !errors.Is(err, kv.ErrWrongType) || ok {
		t.Fatalf("LeaseRelease of a plain copy of a lease set: %v, %v", ok, err)
	}
	// Plain ops on a lease key see its bytes: TTLIfEq, DelIfEq compare them.
	if d, _ := s.TTLIfEq("l", set); d <= 0 {
		t.Fatalf("TTLIfEq of a lease key with its own bytes: %v", d)
	}
	if ok, _ := s.DelIfEq("l", set); !ok {
		t.Fatal("DelIfEq of a lease key with its own bytes: false")
	}
}

// The memory a lease set takes is accounted while it grows and given back
// when it goes; past the limit an acquire is kv.ErrFull, never false.
func TestLeaseMemory(t *testing.T) {
	s := newTestStore(t, Config{MemoryLimit: 16 << 10, SweepInterval: time.Hour})
	var n int
	var err error
	for n = 0; n < kv.MaxLeaseHolders; n++ {
		var ok bool
		if _, ok, err = s.LeaseAcquire("l", []byte(fmt.Sprint("reader-", n)), kv.LeaseShared, 0, time.Minute, 0); err != nil {
			break
		}
		if !ok {
			t.Fatalf("reader %d: refused", n)
		}
	}
	if !errors.Is(err, kv.ErrFull) {
		t.Fatalf("%d readers in 16 KiB: %v, want kv.ErrFull", n, err)
	}
	st := s.Counters()
	if st.BytesUsed > st.BytesLimit || st.Rejected == 0 {
		t.Fatalf("after kv.ErrFull: %d of %d bytes used, %d rejected", st.BytesUsed, st.BytesLimit, st.Rejected)
	}
	if c, _ := s.LeaseCount("l"); c != int64(n) {
		t.Fatalf("LeaseCount %d after %d grants", c, n)
	}
	for i := range n {
		if ok, err := s.LeaseRelease("l", []byte(fmt.Sprint("reader-", i))); err != nil || !ok {
			t.Fatalf("release %d: %v, %v", i, ok, err)
		}
	}
	if st := s.Counters(); st.BytesUsed != 0 || st.Keys != 0 {
		t.Fatalf("after every release: %d bytes, %d keys", st.BytesUsed, st.Keys)
	}
	// Expired entries are reclaimed to make room: a full store of expired
	// plain values takes a lease.
	for i := 0; ; i++ {
		if err := s.Set(fmt.Sprint("v", i), make([]byte, 512), 20*time.Millisecond); err != nil {
			break
		}
	}
	time.Sleep(40 * time.Millisecond)
	if _, ok, err := s.LeaseAcquire("l", []byte("w"), kv.LeaseExclusive, 0, time.Minute, 0); err != nil || !ok {
		t.Fatalf("LeaseAcquire in a store full of expired values: %v, %v", ok, err)
	}
}

// Set, Incr, Del over a lease key account its whole buffer.
func TestLeaseReplaced(t *testing.T) {
	s := newTestStore(t, Config{})
	for i := range 100 {
		s.LeaseAcquire("l", []byte(fmt.Sprint("r", i)), kv.LeaseShared, 0, time.Minute, 0)
	}
	if _, err := s.Incr("l", 1, 0); !errors.Is(err, kv.ErrNotInteger) {
		t.Fatalf("Incr of a lease key: %v", err)
	}
	s.Set("l", []byte("plain"), 0)
	s.Del("l")
	if used := s.Counters().BytesUsed; used != 0 {
		t.Fatalf("%d bytes used after Set and Del over a lease key", used)
	}
}

// The readers that take no lock (Get, View, Value, TTLIfEq, Export) read a
// lease set and a rate log under the bucket lock while they change: -race
// sees any that does not.
func TestInPlaceReaders(t *testing.T) {
	s := newTestStore(t, Config{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			tok := []byte(fmt.Sprint("w", w))
			for {
				select {
				case <-stop:
					return
				default:
				}
				s.LeaseAcquire("l", tok, kv.LeaseShared, 0, time.Minute, 0)
				s.LeaseRenew("l", tok, time.Minute)
				s.LeaseRelease("l", tok)
				s.RateLimit("r", 50, 5*time.Millisecond)
			}
		})
	}
	buf := make([]byte, 1<<16)
	for range 300 {
		for _, k := range []string{"l", "r"} {
			if n, ok, _ := s.Get(k, buf); ok && n <= len(buf) && buf[0] != leaseMagic && buf[0] != rateMagic {
				t.Fatalf("Get %s: %q", k, buf[:min(n, 20)])
			}
			s.View(k, func(v []byte) {
				if len(v) > 0 && v[0] != leaseMagic && v[0] != rateMagic {
					t.Errorf("View %s: %q", k, v[:min(len(v), 20)])
				}
			})
			s.Value(k)
			s.TTLIfEq(k, []byte("x"))
		}
		s.Export(func(key string, value []byte, ttl time.Duration) error {
			if !bytes.HasPrefix(value, []byte{leaseMagic, leaseVersion}) && !bytes.HasPrefix(value, []byte{rateMagic, rateVersion}) {
				t.Errorf("Export %s: %q", key, value[:min(len(value), 20)])
			}
			return nil
		})
	}
	close(stop)
	wg.Wait()
}

// An acquire, renew or release of a lease set that has room allocates
// nothing; neither does a refused acquire.
func TestLeaseAllocs(t *testing.T) {
	s := newTestStore(t, Config{})
	a, b := []byte("reader-a"), []byte("writer-b")
	s.LeaseAcquire("l", a, kv.LeaseShared, 0, time.Minute, 0)
	s.LeaseAcquire("l", b, kv.LeaseShared, 0, time.Minute, 0)
	s.LeaseRelease("l", b)
	for name, op := range map[string]func(){
		"renew":          func() { s.LeaseRenew("l", a, time.Minute) },
		"re-acquire":     func() { s.LeaseAcquire("l", a, kv.LeaseShared, 0, time.Minute, 0) },
		"refused writer": func() { s.LeaseAcquire("l", b, kv.LeaseExclusive, 0, time.Minute, 0) },
		"count":          func() { s.LeaseCount("l") },
		"second reader": func() {
			s.LeaseAcquire("l", b, kv.LeaseShared, 0, time.Minute, 0)
			s.LeaseRelease("l", b)
		},
	} {
		if n := testing.AllocsPerRun(100, op); n != 0 {
			t.Errorf("%s: %v allocations", name, n)
		}
	}
}
