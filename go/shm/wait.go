package shm

import (
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// WaitRelease implements kv.ReleaseWaiter. It sleeps on the key's stripe's
// release sequence (a futex word in the segment, bumped by every delete,
// expiry or change in the stripe) until it moves, the key's TTL runs out
// or max passes; on a lease set, also when its earliest holder (or intent)
// expires, since a holder leaving by expiry wakes nobody. A change to
// another key of the stripe wakes it too: a spurious wake-up, which the
// contract allows.
func (e *Engine) WaitRelease(key string, max time.Duration) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	b, h := e.locate(key)
	st, err := e.lockStripe(b & e.stripeMask)
	if err != nil {
		return false, err
	}
	_, off := e.find(b, h, key, kindUser)
	now := nanotime()
	if off == 0 {
		e.unlock(st, false)
		return true, nil
	}
	d := e.rec(off).deadline
	if d != 0 && d <= now {
		e.unlock(st, false)
		return true, nil
	}
	// A lease set: a holder (or a writer's intent) may leave by expiry,
	// with no release to wake us, long before the set's own deadline.
	if w := e.leaseWake(off, now); w == 0 {
		e.unlock(st, false)
		return true, nil
	} else if w > 0 && (d == 0 || w < d) {
		d = w
	}
	end, byTTL := addSat(now, int64(max)), false
	if d != 0 && d < end {
		end, byTTL = d, true
	}
	if max <= 0 {
		e.unlock(st, false)
		return false, nil
	}
	// The flag is set under the lock, and a releaser reads it under the
	// lock after bumping seq: either it sees the flag, or we see its bump.
	seq := st.seq
	st.waiters = 1
	e.unlock(st, false)
	for {
		futexWait(&st.seq, seq, time.Duration(end-nanotime()))
		if atomic.LoadUint32(&st.seq) != seq {
			return true, nil
		}
		if nanotime() >= end {
			return byTTL, nil
		}
	}
}
