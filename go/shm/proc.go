package shm

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
)

// A lock owner is named by pid plus the low 32 bits of its start time
// (/proc/<pid>/stat field 22, clock ticks since boot): the pid alone could
// name an unrelated process once the owner died and the pid was reused.
//
// PID namespaces: the pid recorded is the one this process sees. Processes
// in different pid namespaces (containers sharing a named segment) see other
// pids, so a live owner could be taken for dead or a dead one for alive. A
// segment must only be shared inside one pid namespace.

// selfOwner is this process's owner word (start<<32 | pid), 0 until first
// use. It is read once, lazily: the Go runtime of an ephpm process only ever
// starts after php-fpm's fork, and Go never forks without exec, so the pid
// can not change under it.
var selfOwner atomic.Uint64

// self returns this process's owner word (never 0, waiters bit clear).
func self() uint64 {
	if w := selfOwner.Load(); w != 0 {
		return w
	}
	pid := os.Getpid()
	start, _, err := readStat(pid)
	if err != nil {
		// No /proc: owners are named by pid alone, and alive() falls
		// back to kill(pid, 0), which can not see zombies or reuse.
		start = 0
	}
	w := ownerWord(pid, start)
	selfOwner.Store(w)
	return w
}

func ownerWord(pid int, start uint32) uint64 {
	return uint64(start)<<32 | uint64(uint32(pid)&^waitersBit)
}

// readStat returns the low 32 bits of the start time and the state letter
// of process pid.
func readStat(pid int) (start uint32, state byte, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parentheses,
	// so fields are counted from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("shm: malformed /proc stat")
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state), so field 22 (starttime) is f[19].
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0, errors.New("shm: malformed /proc stat")
	}
	st, err := strconv.ParseUint(string(f[19]), 10, 64)
	if err != nil {
		return 0, 0, err
	}
	return uint32(st), f[0][0], nil
}

// alive reports whether the owner named by pid and start may still run.
// Dead: no such process, a zombie (Z) or dying (X) one - a SIGKILLed worker
// its parent has not reaped yet holds nothing - or another start time (the
// pid was reused). When in doubt it says alive: taking a lock from a live
// owner breaks mutual exclusion, waiting longer only costs time.
func alive(pid int, start uint32) bool {
	if pid <= 0 {
		return false
	}
	st, state, err := readStat(pid)
	if err == nil {
		if state == 'Z' || state == 'X' {
			return false
		}
		return start == 0 || st == start
	}
	// No stat file: the process is gone, unless /proc is not there or
	// hides it (hidepid); ask the kernel directly then.
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
