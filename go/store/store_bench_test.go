package store

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// The lock pair every PHP request pays: acquire with setnx, release with
// del_if_eq.
func BenchmarkSetNXDelIfEq(b *testing.B) {
	s := newTestStore(b, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	for b.Loop() {
		if ok, _ := s.SetNX("lock:bench", token, 30*time.Second); !ok {
			b.Fatal("not acquired")
		}
		if ok, _ := s.DelIfEq("lock:bench", token); !ok {
			b.Fatal("not released")
		}
	}
}

func BenchmarkSetNXDelIfEqParallel(b *testing.B) {
	s := newTestStore(b, Config{})
	token := []byte("0123456789abcdef0123456789abcdef")
	var ids atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprint("lock:", ids.Add(1))
		for pb.Next() {
			s.SetNX(key, token, 30*time.Second)
			s.DelIfEq(key, token)
		}
	})
}

func BenchmarkGet(b *testing.B) {
	s := newTestStore(b, Config{})
	s.Set("k", make([]byte, 100), 0)
	buf := make([]byte, 512)
	for b.Loop() {
		if _, ok, _ := s.Get("k", buf); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkGetParallel(b *testing.B) {
	s := newTestStore(b, Config{})
	for i := range 1024 {
		s.Set(fmt.Sprint("k", i), make([]byte, 100), 0)
	}
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, 512)
		i := 0
		for pb.Next() {
			s.Get(keys1024[i&1023], buf)
			i++
		}
	})
}

func BenchmarkSet(b *testing.B) {
	s := newTestStore(b, Config{})
	value := make([]byte, 100)
	for b.Loop() {
		s.Set("k", value, 0)
	}
}

func BenchmarkSetParallel(b *testing.B) {
	s := newTestStore(b, Config{})
	value := make([]byte, 100)
	var ids atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		base := int(ids.Add(1)) * 64
		i := 0
		for pb.Next() {
			s.Set(keys1024[(base+i)&1023], value, 0)
			i++
		}
	})
}

var keys1024 = func() (k [1024]string) {
	for i := range k {
		k[i] = fmt.Sprint("k", i)
	}
	return
}()

// The fence check a resource makes before each write: a fresh fence
// (recorded) and a stale one (refused).
func BenchmarkFence(b *testing.B) {
	s := newTestStore(b, Config{})
	var f int64 = 1 << 50
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			f++
			if ok, _ := s.Fence("res", f); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("stale", func(b *testing.B) {
		for b.Loop() {
			if ok, _ := s.Fence("res", 1); ok {
				b.Fatal("accepted")
			}
		}
	})
}
