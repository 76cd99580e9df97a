package shm

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// The lock pair every PHP request pays: acquire with setnx (with a TTL),
// release with del_if_eq. Compare with store's BenchmarkSetNXDelIfEq in
// the same run.
func BenchmarkLockPair(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := e.SetNX("lock:bench", token, 30*time.Second); !ok {
			b.Fatal("not acquired")
		}
		if ok, _ := e.DelIfEq("lock:bench", token); !ok {
			b.Fatal("not released")
		}
	}
}

// The pair without a TTL reads no clock: the difference to LockPair is
// the two monotonic clock reads (see BenchmarkNanotime).
func BenchmarkLockPairNoTTL(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := e.SetNX("lock:bench", token, 0); !ok {
			b.Fatal("not acquired")
		}
		if ok, _ := e.DelIfEq("lock:bench", token); !ok {
			b.Fatal("not released")
		}
	}
}

func BenchmarkLockPairParallel(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	var ids atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprint("lock:", ids.Add(1))
		for pb.Next() {
			e.SetNX(key, token, 30*time.Second)
			e.DelIfEq(key, token)
		}
	})
}

func BenchmarkGet(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	e.Set("k", make([]byte, 100), 0)
	buf := make([]byte, 512)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, _ := e.Get("k", buf); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkSet(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	value := make([]byte, 100)
	b.ReportAllocs()
	for b.Loop() {
		e.Set("k", value, 0)
	}
}

func BenchmarkIncr(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	b.ReportAllocs()
	for b.Loop() {
		e.Incr("counter", 1, 0)
	}
}

// A write refused by a full 64 MiB segment of live locks: it pays a
// reclaim pass over every stripe first.
func BenchmarkFullWrite(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	n := 0
	for ; e.Set(fmt.Sprint("live:", n), token, 0) == nil; n++ {
	}
	for b.Loop() {
		if err := e.Set("one more lock", token, 0); err == nil {
			b.Fatal("fit")
		}
	}
	b.ReportMetric(float64(n), "records")
}

// A session request's two engine calls: lock and read, then write and
// release (a 600-byte session, stored plain).
func BenchmarkSessionCycle(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	data := make([]byte, 600)
	e.Set("sess:data", data, time.Hour)
	token := []byte("0123456789abcdef0123456789abcdef")
	buf := make([]byte, 4096)
	b.ReportAllocs()
	for b.Loop() {
		ok, _, found, err := kv.LockAndGet(e, "sess:lock", token, 30*time.Second, "sess:data", buf)
		if !ok || !found || err != nil {
			b.Fatal("lock and read failed")
		}
		if ok, err := e.SetIfLocked("sess:data", data, time.Hour, "sess:lock", token, 30*time.Second, true); !ok || err != nil {
			b.Fatal("write failed")
		}
	}
}

// The pair as a PHP call makes it: the release is given a coarse clock
// reading (here one taken before the loop: it only has to trail the
// precise clock), so only the acquire reads the precise clock.
func BenchmarkLockPairCoarse(b *testing.B) {
	e := newTestEngine(b, 64<<20, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	coarse := nanotime()
	b.ReportAllocs()
	for b.Loop() {
		if ok, _ := e.SetNX("lock:bench", token, 30*time.Second); !ok {
			b.Fatal("not acquired")
		}
		if ok, _ := e.DelIfEqCoarse("lock:bench", token, coarse); !ok {
			b.Fatal("not released")
		}
	}
}
