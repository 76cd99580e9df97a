package shm

import (
	"encoding/binary"
	"fmt"
	"testing"
	"unsafe"
)

// The monotonic clock read each TTL'd operation pays once.
func BenchmarkNanotime(b *testing.B) {
	var s int64
	for b.Loop() {
		s += nanotime()
	}
	_ = s
}

// The key hash every operation pays, on a lock name and a session id's key,
// beside the unseeded hash it replaced (layout v1).
func BenchmarkHashKey(b *testing.B) {
	seed := newHashSeed()
	for _, key := range hashBenchKeys {
		b.Run(fmt.Sprint(len(key)), func(b *testing.B) {
			var s uint32
			for b.Loop() {
				s += seed.sum(key)
			}
			_ = s
		})
	}
}

func BenchmarkHashKeyUnseeded(b *testing.B) {
	for _, key := range hashBenchKeys {
		b.Run(fmt.Sprint(len(key)), func(b *testing.B) {
			var s uint32
			for b.Loop() {
				s += unseededHashKey(key)
			}
			_ = s
		})
	}
}

var hashBenchKeys = []string{"lock:bench", "PHPREDIS_SESSION:0123456789abcdefghijklmnop"}

// unseededHashKey is layout v1's hashKey as it was, for the benchmark.
func unseededHashKey(key string) uint32 {
	const m = 0x9E3779B97F4A7C15
	b := unsafe.Slice(unsafe.StringData(key), len(key))
	h := uint64(len(b)) * m
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * m
		h ^= h >> 29
	}
	if len(b) > 0 {
		var t uint64
		for i, c := range b {
			t |= uint64(c) << (8 * i)
		}
		h = (h ^ t) * m
		h ^= h >> 29
	}
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 32
	return uint32(h)
}
