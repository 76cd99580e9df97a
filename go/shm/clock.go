package shm

import (
	"math"
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's monotonic clock (CLOCK_MONOTONIC): one clock
// for every process of the host, so a deadline written by one process is
// read right by all.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// addSat is now + ttl, saturating at MaxInt64 (a deadline never reached).
func addSat(now, ttl int64) int64 {
	if ttl > math.MaxInt64-now {
		return math.MaxInt64
	}
	return now + ttl
}

// clock reads the monotonic clock once per operation, on first need.
type clock int64

func (c *clock) now() int64 {
	if *c == 0 {
		*c = clock(nanotime())
	}
	return int64(*c)
}

// live: a record with deadline d has not expired.
func (c *clock) live(d int64) bool { return d == 0 || d > c.now() }

// deadline for ttl (0 = none).
func (c *clock) deadline(ttl int64) int64 {
	if ttl <= 0 {
		return 0
	}
	return addSat(c.now(), ttl)
}
