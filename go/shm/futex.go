package shm

import (
	"syscall"
	"time"
	"unsafe"
)

// Futex operations without FUTEX_PRIVATE_FLAG: the words live in a
// MAP_SHARED segment and are waited on and woken from different processes,
// which a private futex would keep apart.
const (
	futexWaitOp = 0 // FUTEX_WAIT
	futexWakeOp = 1 // FUTEX_WAKE
)

// futexWait sleeps while *addr == val, for at most timeout (timeout <= 0
// returns at once: every wait in this package is bounded). It returns on a
// wake-up, on a timeout, when *addr != val on entry (EAGAIN) and on a signal
// (EINTR; the Go runtime's preemption signals make that common): callers
// always re-check their condition, so every return is a normal one.
func futexWait(addr *uint32, val uint32, timeout time.Duration) {
	if timeout <= 0 {
		return
	}
	ts := syscall.NsecToTimespec(int64(timeout))
	// Syscall6 (not RawSyscall6) lets the scheduler run other goroutines
	// on this P while the thread sleeps in the kernel.
	syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp,
		uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

// futexWake wakes up to n waiters on addr, in any process.
func futexWake(addr *uint32, n int) {
	syscall.RawSyscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakeOp,
		uintptr(n), 0, 0, 0)
}
