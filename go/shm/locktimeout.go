package shm

import (
	"fmt"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A stripe is held for microseconds; a wait far longer than that means
// its owner is stopped (SIGSTOP, a debugger, a frozen container) or is no
// ephpm process at all (a forged owner word). Neither is taken over: a
// stopped owner may resume in the middle of a write. So a waiter gives up
// after the timeout instead of hanging its request; set_time_limit() can
// not end a wait that burns no CPU.

// DefaultLockTimeout is Config.LockTimeout's default: long past any
// critical section, short of a web request's patience.
const DefaultLockTimeout = 5 * time.Second

// lockTimeoutError names stripe si's owner (owner word w) and its state.
func (e *Engine) lockTimeoutError(si, w uint64) error {
	pid := int(uint32(w) &^ waitersBit)
	state := "not found"
	if _, s, err := readStat(pid); err == nil {
		state = procState(s)
	}
	return fmt.Errorf("%w: stripe %d of the shared segment has been held for over %v by pid %d (%s); "+
		"every key of that stripe waits for it: a stopped process (SIGSTOP, a debugger) blocks the others until "+
		"it resumes or is killed", kv.ErrUnavailable, si, e.lockTimeout, pid, state)
}

// procState spells out a /proc/<pid>/stat state letter.
func procState(s byte) string {
	switch s {
	case 'R':
		return "running"
	case 'S':
		return "sleeping"
	case 'D':
		return "in uninterruptible sleep"
	case 'T':
		return "stopped"
	case 't':
		return "stopped by a debugger"
	}
	return fmt.Sprintf("state %c", s)
}
