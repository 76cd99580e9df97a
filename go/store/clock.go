package store

import (
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's monotonic clock: one vDSO call, unaffected by
// wall-clock steps, which is what a lease deadline needs.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
