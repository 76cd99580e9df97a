package shm

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// hashSeed keys the segment's hash: two random words drawn when the
// segment is formatted (kept in its header, read once at Attach), so that
// every process attached hashes a key alike and nobody outside the segment
// can compute keys that share a chain.
type hashSeed [2]uint64

func newHashSeed() (s hashSeed) {
	var b [16]byte
	rand.Read(b[:]) // never fails (it crashes the program instead)
	return hashSeed{binary.LittleEndian.Uint64(b[:]), binary.LittleEndian.Uint64(b[8:])}
}

// sum is the wyhash construction of the Go runtime's map hash where AES is
// missing (runtime.memhashFallback), with the seed as its secret. Each
// 16-byte step multiplies two words, each XORed with a secret word, to a
// 128-bit product and folds it (hi ^ lo): the high half depends on the
// carries of both unknown operands, so how a difference between two keys
// propagates depends on the seed, and a colliding set found for one seed
// is no more likely to collide under another than random keys are. A
// multiply-xorshift hash with the seed XORed into its initial state alone
// has no such step: its rounds are public bijections whose low product
// bits never depend on higher ones, so differences in a key's top bits
// pass through the same way for every seed. Two multiplies for keys up to
// 16 bytes (a lock name), as cheap as the unseeded hash it replaces.
func (s *hashSeed) sum(key string) uint32 {
	const m5 = 0x1d8e4e27c47d124f
	b := unsafe.Slice(unsafe.StringData(key), len(key))
	n := len(b)
	seed := s[0]
	var x, y uint64
	switch {
	case n == 0:
	case n < 4:
		x = uint64(b[0]) | uint64(b[n>>1])<<8 | uint64(b[n-1])<<16
	case n < 8:
		x, y = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n <= 16:
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	default:
		for ; len(b) > 16; b = b[16:] {
			seed = mix(binary.LittleEndian.Uint64(b)^s[1], binary.LittleEndian.Uint64(b[8:])^seed)
		}
		// The last 16 bytes of the key, overlapping the previous step.
		b = unsafe.Slice(unsafe.StringData(key), n)[n-16:]
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	}
	return uint32(mix(m5^uint64(n), mix(x^s[1], y^seed)))
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashKey is key's hash in this segment: it picks the bucket and is kept in
// the record (repair and Verify check it against the key).
func (e *Engine) hashKey(key string) uint32 { return e.seed.sum(key) }

// check is a record's checksum: the same construction as sum over three
// independent lanes of 48 bytes (the multiplies of one step do not wait
// for the last's), so a read can afford to verify what it returns: 121
// bytes cost about 11 ns where crc32c (hash/crc32, SSE4.2) cost 17, and 60
// bytes 6 where it cost 14. It guards against stray writes, not against a
// process that means harm (one that can write the segment can write a
// matching checksum), and it changes with the seed: a record is checked
// only in the segment that holds it.
func (s *hashSeed) check(b []byte) uint32 {
	const m5 = 0x1d8e4e27c47d124f
	n := len(b)
	seed := s[0] ^ m5
	if len(b) > 48 {
		l1, l2 := seed, seed
		for ; len(b) > 48; b = b[48:] {
			seed = mix(binary.LittleEndian.Uint64(b)^s[1], binary.LittleEndian.Uint64(b[8:])^seed)
			l1 = mix(binary.LittleEndian.Uint64(b[16:])^s[0], binary.LittleEndian.Uint64(b[24:])^l1)
			l2 = mix(binary.LittleEndian.Uint64(b[32:])^s[1], binary.LittleEndian.Uint64(b[40:])^l2)
		}
		seed ^= l1 ^ l2
	}
	for ; len(b) > 16; b = b[16:] {
		seed = mix(binary.LittleEndian.Uint64(b)^s[1], binary.LittleEndian.Uint64(b[8:])^seed)
	}
	var x, y uint64
	switch {
	case len(b) >= 8:
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[len(b)-8:])
	case len(b) >= 4:
		x, y = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	case len(b) > 0:
		x = uint64(b[0]) | uint64(b[len(b)>>1])<<8 | uint64(b[len(b)-1])<<16
	}
	return uint32(mix(m5^uint64(n), mix(x^s[1], y^seed)))
}
