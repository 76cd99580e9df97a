package shm

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
)

// A file-backed segment can shrink under its processes (truncate(1), a
// deploy script, a hostile neighbour of the same user): a read past the new
// end raises SIGBUS. Every operation turns such a fault into a panic
// (debug.SetPanicOnFault, set where it takes its first stripe lock) that
// its caller's recover hands to Fault; from then on this engine refuses
// every operation instead of touching the segment again. A process that
// maps the segment anew is refused by the size check at mapping time.

// ErrShrunk means the segment lost bytes under this process.
var ErrShrunk = errors.New("shm: the segment shrank under this process")

// armFaults makes a fault on this goroutine a panic rather than a crash.
func armFaults() { debug.SetPanicOnFault(true) }

// Fault reports whether r, a recovered panic value, is a fault inside the
// segment, and if so marks the engine unusable and returns the error every
// operation gives from now on. Other values give nil.
func (e *Engine) Fault(r any) error {
	f, ok := r.(interface{ Addr() uintptr })
	if !ok {
		return nil
	}
	base := uintptr(e.base)
	if a := f.Addr(); a < base || a >= base+uintptr(len(e.mem)) {
		return nil
	}
	err := fmt.Errorf("%w: byte %d of the %s segment is gone (was its file under /dev/shm truncated?); "+
		"its data and locks are lost to this process, which uses it no more: restart the processes that share it",
		ErrShrunk, f.Addr()-base, sizeString(e.size))
	if e.fault.CompareAndSwap(nil, &err) {
		e.abandonStripes()
	}
	return *e.fault.Load()
}

// abandonStripes gives up the stripe locks this process holds (the fault
// came inside an operation, its stripe held) as a process that died
// would: their words name this pid with another start time, so the next
// process to want one repairs it at once rather than waiting out the lock
// timeout. A stripe word the truncation took faults again, and ends it.
func (e *Engine) abandonStripes() {
	me := self()
	dead := me ^ 1<<63 // not our start time: an owner that is gone
	defer func() { recover() }()
	for si := uint64(0); si < e.stripes; si++ {
		w := &e.stripe(si).mu.word
		if cur := atomic.LoadUint64(w); cur&^waitersBit == me {
			atomic.CompareAndSwapUint64(w, cur, dead|cur&waitersBit)
		}
	}
}

// faulted is the error Fault recorded, nil while the segment is whole.
func (e *Engine) faulted() error {
	if p := e.fault.Load(); p != nil {
		return *p
	}
	return nil
}
