package shm

import "testing"

// The monotonic clock read each TTL'd operation pays once.
func BenchmarkNanotime(b *testing.B) {
	var s int64
	for b.Loop() {
		s += nanotime()
	}
	_ = s
}

func BenchmarkHashKey(b *testing.B) {
	var s uint32
	for b.Loop() {
		s += hashKey("lock:bench")
	}
	_ = s
}
