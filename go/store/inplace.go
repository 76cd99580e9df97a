package store

import (
	"unsafe"

	"github.com/puzpuzpuz/xsync/v4"
)

// Lease sets and rate logs change on every call: copying them for each
// change (as plain values are) would cost an allocation per renew and, for
// a log of thousands of calls, a copy of all of it per call. So their bytes
// change in place, under the entry's bucket lock, in a buffer with room to
// grow; the value is the buffer's tail of plainLen bytes (a rate log drops
// its oldest calls by moving its start). Readers that take no lock (Get,
// View, Value, TTLIfEq, Export) read such an item under its bucket lock.
// An item no longer in the map is never changed again, so reading the one
// they loaded under the lock is safe whether or not it is still current.

// underLock runs fn under key's bucket lock.
func (s *Store) underLock(key string, fn func()) {
	s.m.Compute(key, func(cur *item, _ bool) (*item, xsync.ComputeOp) {
		fn()
		return cur, xsync.CancelOp
	})
}

// plainOf is a copy of it's value, it being key's item now or before.
func (s *Store) plainOf(key string, it *item) []byte {
	if !it.inPlace() {
		return it.plain()
	}
	var out []byte
	s.underLock(key, func() { out = it.plain() })
	return out
}

// equalOf is it.equal(token), it being key's item now or before.
func (s *Store) equalOf(key string, it *item, token []byte) bool {
	if !it.inPlace() {
		return it.equal(token)
	}
	var eq bool
	s.underLock(key, func() { eq = it.equal(token) })
	return eq
}

// getInPlace is Get of an in-place item.
func (s *Store) getInPlace(key string, it *item, dst []byte) (int, bool, error) {
	var n int
	var copied bool
	s.underLock(key, func() {
		if n = it.plainLen; n <= len(dst) {
			copy(dst, it.stored())
			copied = true
		}
	})
	if copied {
		s.hits.Inc()
	}
	return n, true, nil
}

// newInPlace makes an item of kind with n value bytes in a buffer of
// capacity, sharing one allocation with its owned key, as newItem does.
// Its value starts at the buffer's front.
func newInPlace(key string, kind itemKind, n, capacity int) (string, *item) {
	owned := make([]byte, len(key)+capacity)
	copy(owned, key)
	it := &item{kind: kind, plainLen: n, data: owned[len(key) : len(key)+n : len(key)+capacity]}
	return unsafe.String(unsafe.SliceData(owned), len(key)), it
}

// grow makes room for n more bytes after it's value: at the buffer's end,
// by moving the value to its front, or in a larger buffer. false: the
// memory limit refused the larger buffer, and nothing changed. Under the
// bucket lock.
func (s *Store) grow(it *item, n int) bool {
	if len(it.data)+n <= cap(it.data) {
		return true
	}
	live, c := it.plainLen, cap(it.data)
	if need := live + n; need <= c-c/4 {
		// At least a quarter of the buffer is dropped bytes: moving the
		// value is amortised over the appends that filled it.
		copy(it.data[:live], it.stored())
		it.data = it.data[:live]
		return true
	}
	size := max(2*(live+n), 64)
	if !s.reserve(int64(size - c)) {
		return false
	}
	buf := make([]byte, live, size)
	copy(buf, it.stored())
	it.data = buf
	return true
}

// appendBytes extends it's value by n bytes, returned for the caller to
// fill; grow made room for them.
func appendBytes(it *item, n int) []byte {
	end := len(it.data)
	it.data = it.data[:end+n]
	it.plainLen += n
	return it.data[end:]
}

// shrink gives back most of a buffer the value uses a small part of (a
// rate log whose calls left the window, a lease set whose holders left).
// Under the bucket lock.
func (s *Store) shrink(it *item) {
	c := cap(it.data)
	if c <= 4096 || it.plainLen*4 > c {
		return
	}
	size := max(2*it.plainLen, 64)
	buf := make([]byte, it.plainLen, size)
	copy(buf, it.stored())
	it.data = buf
	s.reserve(int64(size - c))
}
