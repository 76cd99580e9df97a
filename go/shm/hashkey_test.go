package shm

import (
	"encoding/binary"
	"strings"
	"testing"
)

// hashKey reads only inside the key: keys that end exactly where their
// allocation does (a 64 KiB key, size-class lengths) once made it form a
// pointer one past the end, which checkptr (-race) reports as fatal and
// which the GC may too. The hash itself is part of the segment's format:
// it must stay the reference's.
func TestHashKeyStaysInsideTheKey(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 24, 32, 48, 64, 100, 4096, 65536} {
		for range 50 {
			key := strings.Repeat("k", n)
			if got, want := hashKey(key), referenceHash([]byte(key)); got != want {
				t.Fatalf("hashKey of %d bytes = %#x, the format's hash is %#x", n, got, want)
			}
		}
	}
}

// referenceHash is hashKey without unsafe: the multiply-xorshift over
// little-endian 8-byte words, the tail as one zero-padded word.
func referenceHash(b []byte) uint32 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(b)) * m
	for ; len(b) >= 8; b = b[8:] {
		h = (h ^ binary.LittleEndian.Uint64(b)) * m
		h ^= h >> 29
	}
	if len(b) > 0 {
		var tail [8]byte
		copy(tail[:], b)
		h = (h ^ binary.LittleEndian.Uint64(tail[:])) * m
		h ^= h >> 29
	}
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 32
	return uint32(h)
}
