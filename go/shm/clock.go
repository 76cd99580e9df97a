package shm

import (
	"math"
	"time"
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

// coarseSlack is how far a coarse reading (CLOCK_MONOTONIC_COARSE, the
// same clock as nanotime as of the last timer tick) may trail nanotime and
// still settle an expiry check alone. It trails by up to a tick plus the
// tick's delay: measured up to 4.9 ms on the bench VM (HZ 250), and a
// stalled timekeeping CPU can add a few ticks (the kernel forces an update
// after 5 stalled jiffies). A second is far beyond both.
const coarseSlack = int64(time.Second)

// clock reads the monotonic clock once per operation, on first need.
// Deadlines always come from that precise reading, so no record ever
// expires before its TTL. coarse, when not 0, is a CLOCK_MONOTONIC_COARSE
// reading taken during the operation (the C side reads it for ~3 ns where
// nanotime costs ~20 ns): a deadline more than coarseSlack past it is
// certainly ahead of now, so such a record is live without a precise read.
// Only a record within coarseSlack of its deadline pays for one. Were the
// coarse clock ever to trail by more than coarseSlack, a record would be
// taken for live up to that much too long: late, never early.
type clock struct {
	now    int64 // 0 until read
	coarse int64
}

func (c *clock) read() int64 {
	if c.now == 0 {
		c.now = nanotime()
	}
	return c.now
}

// live reports whether a record with deadline d has not expired.
func (c *clock) live(d int64) bool {
	if d == 0 {
		return true
	}
	if c.coarse > 0 && d-coarseSlack > c.coarse {
		return true
	}
	return d > c.read()
}

// deadline for ttl (0 = none).
func (c *clock) deadline(ttl int64) int64 {
	if ttl <= 0 {
		return 0
	}
	return addSat(c.read(), ttl)
}
