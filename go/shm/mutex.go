package shm

import (
	"encoding/binary"
	"sync/atomic"
	"time"
	"unsafe"
)

// stripeMutex is a lock word in the shared segment, robust against owners
// that die holding it. The word is 0 when free, else the owner's start
// time (high 32 bits) and pid (low 32 bits, below waitersBit), plus
// waitersBit while someone may sleep on it. The whole word is CASed; the
// futex is the low 32 bits (pid | waiters). After Drepper, "Futexes Are
// Tricky", mutex #3, with bounded waits: a sleeping waiter wakes every
// waitSlice to check whether the owner is still alive, and takes the lock
// over from a dead one.
type stripeMutex struct{ word uint64 }

const (
	waitersBit = 1 << 31 // pids stay below 2^22 (PID_MAX_LIMIT)

	// A waiter first spins: spinTries looks at the word, spinPause PAUSE
	// instructions apart (~25 ns each on the bench VM: a few µs in all,
	// many times a critical section), before it sleeps on the futex. Not
	// runtime.Gosched: on a PHP thread (a C thread running Go for one
	// call) it hands the goroutine to another OS thread each time.
	spinTries = 100
	spinPause = 2
)

// procyield executes cycles PAUSE instructions (the runtime's spin-wait
// primitive, which the runtime keeps linkable).
//
//go:linkname procyield runtime.procyield
func procyield(cycles uint32)

// Bounds of the slow path (vars so tests can stretch them): a sleeping
// waiter looks at the owner again after at most waitSlice, and reads /proc
// at most every checkGap, so a dead owner is found within ~10 ms.
var (
	waitSlice = 5 * time.Millisecond // longest futex sleep
	checkGap  = 5 * time.Millisecond // least time between liveness checks
)

// testHookLocked, if set, runs right after lock or tryLock succeeds, with
// the lock held (tests pause or kill the holder there). Set it before any
// locking starts.
var testHookLocked func()

// testHookSlowLock, if set, is told how long each lock that missed its
// first CAS waited and whether it took over from a dead owner (the kill
// storm reports both). Set it before any locking starts.
var testHookSlowLock func(waited time.Duration, ownerDied bool)

// lowHalf is the byte offset of the word's low 32 bits: the futex address.
var lowHalf = func() uintptr {
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		return 0
	}
	return 4
}()

func (m *stripeMutex) futexAddr() *uint32 {
	return (*uint32)(unsafe.Add(unsafe.Pointer(&m.word), lowHalf))
}

// lock takes the mutex. ownerDied: it was taken over from an owner that
// died holding it, so whatever it guards may be half changed and the caller
// must repair it before use. Uncontended it is one CAS: no syscall, no
// clock read, no allocation. A live owner that keeps it past timeout
// (stopped, or a forged owner word) makes it give up: held is then the
// owner word it saw, and the mutex is not taken.
func (m *stripeMutex) lock(timeout time.Duration) (ownerDied bool, held uint64) {
	if atomic.CompareAndSwapUint64(&m.word, 0, self()) {
		if testHookLocked != nil {
			testHookLocked()
		}
		return false, 0
	}
	if testHookSlowLock != nil {
		t0 := time.Now()
		ownerDied, held = m.lockSlow(timeout)
		testHookSlowLock(time.Since(t0), ownerDied)
	} else {
		ownerDied, held = m.lockSlow(timeout)
	}
	if held == 0 && testHookLocked != nil {
		testHookLocked()
	}
	return ownerDied, held
}

// tryLock takes the mutex if it is free, or if its owner is dead (then
// ownerDied, as for lock). It never sleeps, but a held mutex costs it a
// /proc read to check the owner: not for hot loops.
func (m *stripeMutex) tryLock() (ok, ownerDied bool) {
	me := self()
	w := atomic.LoadUint64(&m.word)
	switch {
	case w == 0:
		ok = atomic.CompareAndSwapUint64(&m.word, 0, me)
	case !ownerAlive(w):
		// Keep the waiters bit: sleepers must still be woken.
		ok = atomic.CompareAndSwapUint64(&m.word, w, me|w&waitersBit)
		ownerDied = ok
	}
	if ok && testHookLocked != nil {
		testHookLocked()
	}
	return ok, ownerDied
}

func (m *stripeMutex) lockSlow(timeout time.Duration) (ownerDied bool, held uint64) {
	me := self()
	for i := 0; i < spinTries; i++ {
		if atomic.LoadUint64(&m.word) == 0 && atomic.CompareAndSwapUint64(&m.word, 0, me) {
			return false, 0
		}
		procyield(spinPause)
	}
	// From here on take the lock with waitersBit set: other sleepers may
	// exist, so our unlock must wake one (mutex #3's state 2).
	var lastCheck time.Time
	giveUp := time.Now().Add(timeout)
	for {
		w := atomic.LoadUint64(&m.word)
		if w == 0 {
			if atomic.CompareAndSwapUint64(&m.word, 0, me|waitersBit) {
				return false, 0
			}
			continue
		}
		if w&waitersBit == 0 {
			if !atomic.CompareAndSwapUint64(&m.word, w, w|waitersBit) {
				continue
			}
			w |= waitersBit
		}
		futexWait(m.futexAddr(), uint32(w), waitSlice)
		if atomic.LoadUint64(&m.word) != w {
			continue // released or changed hands: try again
		}
		// Same owner still holds it: timed out, spurious or EINTR. Check
		// the owner now and then (a clock read is fine off the fast path;
		// it keeps signal storms from becoming /proc read storms).
		if now := time.Now(); now.Sub(lastCheck) >= checkGap {
			lastCheck = now
			if !ownerAlive(w) && atomic.CompareAndSwapUint64(&m.word, w, me|waitersBit) {
				return true, 0
			}
			if now.After(giveUp) {
				// The waiters bit stays: other sleepers still need the wake.
				return false, w
			}
		}
	}
}

// unlock releases the mutex and wakes one sleeper if there may be any. It
// does not check the caller owns it.
func (m *stripeMutex) unlock() {
	if atomic.SwapUint64(&m.word, 0)&waitersBit != 0 {
		futexWake(m.futexAddr(), 1)
	}
}

func ownerAlive(w uint64) bool {
	return alive(int(uint32(w)&^waitersBit), uint32(w>>32))
}
