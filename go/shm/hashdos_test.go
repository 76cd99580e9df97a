package shm

import (
	"encoding/binary"
	"fmt"
	"testing"
)

// Keys that share one 32-bit hash under the segment format's first hash
// (fixed and unseeded, see unseededHash), computed offline in microseconds:
// its rounds are bijections, so the second word of a 16-byte key can be
// solved for any first word to reach one fixed state.
func unseededCollisions(n int) []string {
	m := uint64(0x9E3779B97F4A7C15)
	inv := m // Newton's iteration: m*inv = 1 mod 2^64
	for range 6 {
		inv *= 2 - m*inv
	}
	round := func(h, w uint64) uint64 { h = (h ^ w) * m; return h ^ h>>29 }
	unround := func(y uint64) uint64 { return (y ^ y>>29 ^ y>>58) * inv } // (h ^ w) before the round
	const target = 0x0123456789abcdef
	keys := make([]string, n)
	for i := range keys {
		var k [16]byte
		copy(k[:8], fmt.Sprintf("dos%05d", i))
		h1 := round(16*m, binary.LittleEndian.Uint64(k[:8]))
		binary.LittleEndian.PutUint64(k[8:], h1^unround(target))
		keys[i] = string(k[:])
	}
	return keys
}

// fullestBucket is the length of the longest chain in the segment.
func fullestBucket(e *Engine) int {
	longest := 0
	for b := range e.buckets {
		n := 0
		for off := *e.bucket(b); off != 0; off = e.rec(off).next {
			n++
		}
		longest = max(longest, n)
	}
	return longest
}

// HashDoS: keys computed to collide under the unseeded hash cost no more
// than random keys. They once all went to one chain, walked under the
// stripe lock by every operation on any of them (a get 60x slower, inserts
// quadratic).
func TestCollidingKeysSpread(t *testing.T) {
	keys := unseededCollisions(2000)
	if unseededHash([]byte(keys[0])) != unseededHash([]byte(keys[len(keys)-1])) {
		t.Fatal("the generated keys do not collide under the unseeded hash")
	}
	e := newTestEngine(t, 1<<20, Config{})
	for _, k := range keys {
		if err := e.Set(k, []byte("v"), 0); err != nil {
			t.Fatal(err)
		}
	}
	colliding := fullestBucket(e)
	r := newTestEngine(t, 1<<20, Config{})
	for i := range keys {
		r.Set(fmt.Sprintf("random-key-%05d", i), []byte("v"), 0)
	}
	// 2000 keys in 4096 buckets: Poisson(0.5) makes 12 a one in 10^11 event.
	if colliding > 12 {
		t.Fatalf("%d colliding keys: a chain of %d records (random keys: %d)", len(keys), colliding, fullestBucket(r))
	}
}
