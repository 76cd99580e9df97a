// Package shm is the shared-memory ephpm-kv engine: one segment mapped
// MAP_SHARED by every process of a host (php-fpm workers inherit it from the
// master; a named segment is opened by name), run by Go in each of them.
// The segment holds offsets, never Go pointers.
package shm

import "errors"

// Config sets what each attaching process may choose for itself; the
// segment's size is its memory limit.
type Config struct {
	MaxValueSize int64 // largest value accepted, before compression (default 1 MiB)
	CompressMin  int64 // values from this size are tried S2-compressed (default 1 KiB); < 0 = never
}

// ErrIncompatible: the segment was formatted by another layout version or
// for another size, or is not an ephpm-kv segment at all.
var ErrIncompatible = errors.New("shm: incompatible segment")
