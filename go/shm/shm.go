// Package shm is the shared-memory ephpm-kv engine: one segment mapped
// MAP_SHARED by every process of a host (php-fpm workers inherit it from the
// master; a named segment is opened by name), run by Go in each of them.
// The segment holds offsets, never Go pointers.
//
// Layout (layout.go): a header page, a table of stripes (a robust lock
// word, a release-sequence futex word, counters and a small journal
// each), per-stripe free lists, a bucket index (bucket b belongs to stripe
// b mod stripes) and an arena of blocks in geometric size classes.
// Every operation takes exactly one stripe lock and holds no other while
// it waits; allocation may take a second by tryLock only.
//
// Memory: a block keeps its size class for ever (as memcached's slabs), so
// a store full of one record size may refuse another size while bytes
// are free in other classes; a request takes a free block of a larger
// class before it gives up. A full segment reclaims expired records, then
// refuses the write with kv.ErrFull: nothing live is ever evicted.
//
// Crashes: a process may die at any instruction, holding a stripe lock.
// Every mutation is ordered so that the next locker (repair.go) finds the
// stripe either before or after it, and its journal tells what to finish;
// Verify (verify.go) checks the whole segment.
package shm

import (
	"errors"
	"time"
)

// Config sets what each attaching process may choose for itself; the
// segment's size is its memory limit.
type Config struct {
	MaxValueSize int64 // largest value accepted, before compression (default 1 MiB)
	CompressMin  int64 // values from this size are tried S2-compressed (default 1 KiB); < 0 = never
	// LockTimeout bounds a wait for a stripe held by a live process
	// (default DefaultLockTimeout): past it the call fails with
	// kv.ErrUnavailable. A holder that died is taken over at once.
	LockTimeout time.Duration
}

// ErrIncompatible means the segment was formatted by another layout version or
// for another size, or is not an ephpm-kv segment at all.
var ErrIncompatible = errors.New("shm: incompatible segment")
