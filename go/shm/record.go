package shm

import "unsafe"

// A record is one arena block: a 40-byte header, then the key, then the
// stored value (S2-compressed when flagCompressed). The checksum covers
// everything from hash to the end of the value, not next and deadline,
// which change in place (one word store each: next a plain one, only ever
// read under the stripe lock; deadline an atomic one).
type record struct {
	next      uint64 // 0: chain link (offset of the next record; 0 = end), or free list link
	deadline  int64  // 8: monotonic ns, 0 = none; for a fence record: the highest fence
	sum       uint32 // 16: checksum (hashSeed.check) of bytes [20, recHeader+keyLen+storedLen)
	hash      uint32 // 20
	kind      uint8  // 24
	flags     uint8  // 25
	class     uint8  // 26
	_         uint8
	keyLen    uint32 // 28
	storedLen uint32 // 32
	plainLen  uint32 // 36
}

const recHeader = 40

var _ [recHeader - unsafe.Sizeof(record{})]byte
var _ [unsafe.Sizeof(record{}) - recHeader]byte

// Block kinds. A block on a free list is kindFree; one just taken off a
// free list (or from the bump pointer, where it reads kindNone) is not.
const (
	kindNone    = 0
	kindFree    = 1
	kindClaimed = 2 // taken by an allocation, not yet a record
	kindUser    = 3
	kindFence   = 4
)

const flagCompressed = 1

// flagLease and flagRate mark a user record whose value is a lease set or
// a rate-limit log (lease.go, ratelimit.go). The flags are under the
// checksum; a plain value never carries them, whatever its bytes.
const (
	flagLease = 2
	flagRate  = 4
)

// flagInTransit marks a free block that steal is moving between two
// stripes' lists: set before it leaves the source's list, cleared once it
// is on the thief's. Only such a block may be pushed back by the source's
// repair (see repairSteal); writeRecord overwrites it.
const flagInTransit = 0x80

func (e *Engine) rec(off uint64) *record { return (*record)(e.at(off)) }

// recKey is the record's key, aliasing the segment.
func (e *Engine) recKey(off uint64, r *record) []byte {
	return unsafe.Slice((*byte)(e.at(off+recHeader)), r.keyLen)
}

// recValue is the stored value, aliasing the segment.
func (e *Engine) recValue(off uint64, r *record) []byte {
	return unsafe.Slice((*byte)(e.at(off+recHeader+uint64(r.keyLen))), r.storedLen)
}

func (e *Engine) checksum(off uint64, r *record) uint32 {
	n := 20 + uint64(r.keyLen) + uint64(r.storedLen)
	return e.seed.check(unsafe.Slice((*byte)(e.at(off+20)), n))
}

// writeRecord fills an allocated block completely, checksum last. It is not
// reachable yet: nobody reads it until it is published. (openRecord is its
// two-step form; this one stays whole for the lock pair's hot path.)
func (e *Engine) writeRecord(off uint64, class uint64, kind, flags uint8, h uint32, key string, stored []byte, plainLen int, deadline int64) {
	r := e.rec(off)
	r.next = 0
	r.deadline = deadline
	r.hash = h
	r.kind = kind
	r.flags = flags
	r.class = uint8(class)
	r.keyLen = uint32(len(key))
	r.storedLen = uint32(len(stored))
	r.plainLen = uint32(plainLen)
	dst := unsafe.Slice((*byte)(e.at(off+recHeader)), len(key)+len(stored))
	copy(dst, key)
	copy(dst[len(key):], stored)
	r.sum = e.checksum(off, r)
}

// openRecord writes an allocated block's header (all but the checksum) and
// key, and returns its n value bytes for the caller to fill before
// sealRecord: for values built in place (lease sets, rate logs).
func (e *Engine) openRecord(off, class uint64, kind, flags uint8, h uint32, key string, n, plainLen int, deadline int64) []byte {
	r := e.rec(off)
	r.next = 0
	r.deadline = deadline
	r.hash = h
	r.kind = kind
	r.flags = flags
	r.class = uint8(class)
	r.keyLen = uint32(len(key))
	r.storedLen = uint32(n)
	r.plainLen = uint32(plainLen)
	dst := unsafe.Slice((*byte)(e.at(off+recHeader)), len(key)+n)
	copy(dst, key)
	return dst[len(key):]
}

// sealRecord sets the checksum of a record openRecord began.
func (e *Engine) sealRecord(off uint64) {
	r := e.rec(off)
	r.sum = e.checksum(off, r)
}

// keyEq compares a record's key with key.
func (e *Engine) keyEq(off uint64, r *record, key string) bool {
	if int(r.keyLen) != len(key) {
		return false
	}
	return unsafe.String((*byte)(e.at(off+recHeader)), len(key)) == key
}
