package shm

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// hashKey reads only inside the key: keys that end exactly where their
// allocation does (a 64 KiB key, size-class lengths) once made it form a
// pointer one past the end, which checkptr (-race) reports as fatal and
// which the GC may too. The hash itself is part of the segment's format:
// it must stay the reference's.
func TestHashKeyStaysInsideTheKey(t *testing.T) {
	seed := newHashSeed()
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 48, 64, 100, 4096, 65536} {
		for i := range 50 {
			key := strings.Repeat(string(rune('a'+i%26)), n)
			if got, want := seed.sum(key), referenceHash(seed, []byte(key)); got != want {
				t.Fatalf("hashKey of %d bytes = %#x, the format's hash is %#x", n, got, want)
			}
		}
	}
}

// referenceHash is hashSeed.sum without unsafe, on zero-padded copies.
func referenceHash(s hashSeed, b []byte) uint32 {
	word := func(p []byte) uint64 {
		var w [8]byte
		copy(w[:], p)
		return binary.LittleEndian.Uint64(w[:])
	}
	n := len(b)
	seed := s[0]
	var x, y uint64
	switch {
	case n == 0:
	case n < 4:
		x = uint64(b[0]) | uint64(b[n/2])<<8 | uint64(b[n-1])<<16
	case n < 8:
		x, y = word(b[:4]), word(b[n-4:])
	case n <= 16:
		x, y = word(b[:8]), word(b[n-8:])
	default:
		p := b
		for ; len(p) > 16; p = p[16:] {
			seed = mix(word(p[:8])^s[1], word(p[8:16])^seed)
		}
		x, y = word(b[n-16:n-8]), word(b[n-8:])
	}
	return uint32(mix(0x1d8e4e27c47d124f^uint64(n), mix(x^s[1], y^seed)))
}

// unseededHash is the segment format's first hash (layout v1): a fixed
// multiply-xorshift over little-endian 8-byte words, the tail as one
// zero-padded word.
func unseededHash(b []byte) uint32 {
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

// Every process attached to a segment hashes alike (the seed is the
// segment's); another segment hashes otherwise.
func TestHashSeedIsTheSegments(t *testing.T) {
	mem, _ := MapAnonymous(1 << 20)
	defer Unmap(mem)
	e1, _ := Attach(mem, Config{})
	e2, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	other := newTestEngine(t, 1<<20, Config{})
	same, differ := 0, 0
	for i := range 1000 {
		k := fmt.Sprint("lock:", i)
		if e1.hashKey(k) == e2.hashKey(k) {
			same++
		}
		if e1.hashKey(k) != other.hashKey(k) {
			differ++
		}
	}
	if same != 1000 || differ < 990 {
		t.Fatalf("of 1000 keys, %d hash alike in two attaches of a segment, %d differ from another segment's", same, differ)
	}
	if e1.seed == (hashSeed{}) {
		t.Fatal("a zero seed")
	}
}

// Keys found to share a bucket under one seed spread under another: a
// colliding set does not carry over.
func TestCollisionsDoNotCarryOverSeeds(t *testing.T) {
	const buckets = 1 << 12
	a, b := newHashSeed(), newHashSeed()
	var keys []string
	for i := 0; len(keys) < 200; i++ {
		if k := fmt.Sprint("k", i); a.sum(k)&(buckets-1) == 0 {
			keys = append(keys, k)
		}
	}
	var chains [buckets]int
	longest := 0
	for _, k := range keys {
		c := &chains[b.sum(k)&(buckets-1)]
		*c++
		longest = max(longest, *c)
	}
	// 200 keys in 4096 buckets: Poisson(0.05) gives one of them 7 keys
	// once in 10^9 runs.
	if longest > 6 {
		t.Fatalf("200 keys of one bucket under seed %x: %d in one bucket under seed %x", a, longest, b)
	}
}
