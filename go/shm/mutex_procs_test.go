package shm

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// Multi-process mutex tests. Segment: mutex word at 0, counter at 64.
const mutexSegSize = 4096

func segMutex(mem []byte) (*stripeMutex, *uint64) {
	return (*stripeMutex)(unsafe.Pointer(&mem[0])), (*uint64)(unsafe.Pointer(&mem[64]))
}

func childSeg(t *testing.T) ([]byte, *stripeMutex, *uint64) {
	mem := mapTestFile(t, os.Getenv("EPHPM_SHM_FILE"), mutexSegSize)
	m, c := segMutex(mem)
	return mem, m, c
}

func envInt(name string) int {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		panic(name + ": " + err.Error())
	}
	return n
}

func init() {
	// count: EPHPM_SHM_N non-atomic increments of the counter under the lock.
	childFuncs["count"] = func(t *testing.T) {
		_, m, c := childSeg(t)
		n, died := envInt("EPHPM_SHM_N"), 0
		say("ready")
		for i := range n {
			if m.lockWait() {
				died++
			}
			v := *c
			if i%16 == 0 {
				runtime.Gosched()
			}
			*c = v + 1
			m.unlock()
		}
		say("counted %d died %d", n, died)
	}
	// hold: take the lock and stay inside for EPHPM_SHM_HOLD_MS (< 0:
	// until killed), then unlock.
	childFuncs["hold"] = func(t *testing.T) {
		_, m, _ := childSeg(t)
		hold := time.Duration(envInt("EPHPM_SHM_HOLD_MS")) * time.Millisecond
		testHookLocked = func() {
			say("locked %d", os.Getpid())
			if hold < 0 {
				time.Sleep(time.Hour)
			}
			time.Sleep(hold)
		}
		m.lockWait()
		testHookLocked = nil
		at := time.Now().UnixNano() // before unlock: a waiter's got is later
		m.unlock()
		say("unlocked %d", at)
	}
	// wait: take the lock, say when (wall ns) and whether the owner died.
	childFuncs["wait"] = func(t *testing.T) {
		_, m, _ := childSeg(t)
		say("waiting")
		died := m.lockWait()
		at := time.Now().UnixNano()
		say("got %d %v", at, died)
		time.Sleep(time.Millisecond)
		m.unlock()
	}
}

// TestMutexExcludesProcesses checks that when 4 processes increment one plain
// counter in the shared file under the mutex, none is lost.
func TestMutexExcludesProcesses(t *testing.T) {
	path := testSegPath(t)
	mem := mapTestFile(t, path, mutexSegSize)
	_, counter := segMutex(mem)
	const procs, n = 4, 5000
	var cs []*proc
	for range procs {
		cs = append(cs, startProc(t, "count", "EPHPM_SHM_FILE="+path, "EPHPM_SHM_N="+strconv.Itoa(n)))
	}
	for _, c := range cs {
		c.expect("ready", 10*time.Second)
	}
	for _, c := range cs {
		if l := c.expect("counted", 60*time.Second); l != fmt.Sprintf("counted %d died 0", n) {
			t.Errorf("child: %s", l)
		}
		c.wait()
	}
	if got := atomic.LoadUint64(counter); got != procs*n {
		t.Fatalf("counter %d, want %d", got, procs*n)
	}
}

// TestMutexSlowOwnerKeepsLock checks that a live owner inside for 300 ms is
// waited for, never taken over, and its unlock wakes the waiter in another
// process.
func TestMutexSlowOwnerKeepsLock(t *testing.T) {
	path := testSegPath(t)
	mem := mapTestFile(t, path, mutexSegSize)
	m, _ := segMutex(mem)
	h := startProc(t, "hold", "EPHPM_SHM_FILE="+path, "EPHPM_SHM_HOLD_MS=300")
	h.expect("locked", 10*time.Second)
	// Long sleeps: only the holder's futexWake (a shared futex, across
	// processes) gets this waiter the lock soon after the release.
	defer func(w time.Duration) { waitSlice = w }(waitSlice)
	waitSlice = 10 * time.Second
	t0 := time.Now()
	died := m.lockWait()
	got := time.Now()
	m.unlock()
	var unlockedAt int64
	fmt.Sscanf(h.expect("unlocked", 5*time.Second), "unlocked %d", &unlockedAt)
	h.wait()
	if died {
		t.Error("lock says ownerDied over a live owner")
	}
	if got.UnixNano() < unlockedAt {
		t.Errorf("took the lock %v before the owner released it", time.Duration(unlockedAt-got.UnixNano()))
	}
	if d := time.Duration(got.UnixNano() - unlockedAt); d > 2*time.Second {
		t.Errorf("got the lock %v after the owner's unlock: its wake-up did not reach this process", d)
	}
	t.Logf("waited %v for a 300 ms holder; got it %v after its unlock", got.Sub(t0), time.Duration(got.UnixNano()-unlockedAt))
}

// TestMutexKilledOwner checks that a process SIGKILLed inside the lock (paused
// there by testHookLocked) does not stop two waiting processes: the first gets
// the lock with ownerDied, the second after it. Reaped: the owner's /proc entry
// is gone; zombie: nobody reaped it, its pid still shows (state Z).
func TestMutexKilledOwner(t *testing.T) {
	for _, reap := range []bool{true, false} {
		name := "zombie"
		if reap {
			name = "reaped"
		}
		t.Run(name, func(t *testing.T) {
			var lat []time.Duration
			for range 3 {
				lat = append(lat, killedOwnerRound(t, reap))
			}
			slices.Sort(lat)
			t.Logf("takeover latency after SIGKILL (%s), 3 rounds: %v", name, lat)
		})
	}
}

func killedOwnerRound(t *testing.T, reap bool) time.Duration {
	path := testSegPath(t)
	mem := mapTestFile(t, path, mutexSegSize)
	m, _ := segMutex(mem)
	env := "EPHPM_SHM_FILE=" + path
	h := startProc(t, "hold", env, "EPHPM_SHM_HOLD_MS=-1")
	var pid int
	fmt.Sscanf(h.expect("locked", 10*time.Second), "locked %d", &pid)
	ws := []*proc{startProc(t, "wait", env), startProc(t, "wait", env)}
	for _, w := range ws {
		w.expect("waiting", 10*time.Second)
	}
	// Both are in lock(); let them get to the futex wait.
	for i := 0; atomic.LoadUint64(&m.word)&waitersBit == 0; i++ {
		if i == 1000 {
			t.Fatal("no waiter set the waiters bit")
		}
		time.Sleep(time.Millisecond)
	}
	// A random phase against the waiters' 5 ms wake-ups, so the rounds
	// sample the latency's range.
	time.Sleep(20*time.Millisecond + rand.N(10*time.Millisecond))

	killed := time.Now()
	if err := h.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if reap {
		h.cmd.Wait()
		h.done = true
	}
	type got struct {
		at   int64
		died bool
	}
	var gs []got
	for _, w := range ws {
		var g got
		fmt.Sscanf(w.expect("got", 10*time.Second), "got %d %t", &g.at, &g.died)
		gs = append(gs, g)
		w.wait()
	}
	if !reap {
		// The takeover must have happened with the owner a zombie.
		if _, st, err := readStat(pid); err != nil || st != 'Z' {
			t.Fatalf("killed owner %d: state %c, %v; want a zombie", pid, st, err)
		}
		h.cmd.Wait()
		h.done = true
	}
	slices.SortFunc(gs, func(a, b got) int { return int(a.at - b.at) })
	if !gs[0].died || gs[1].died {
		t.Fatalf("ownerDied (first, second waiter) = %v, %v; want true, false", gs[0].died, gs[1].died)
	}
	lat := time.Duration(gs[0].at - killed.UnixNano())
	if lat > takeoverBound {
		t.Fatalf("first waiter got the lock %v after the owner was killed; bound %v", lat, time.Duration(takeoverBound))
	}
	if w := atomic.LoadUint64(&m.word); w != 0 {
		t.Fatalf("word %#x after everyone unlocked", w)
	}
	return lat
}

func init() {
	// spin: lock/unlock (bumping the counter) until the word at 128 is set.
	childFuncs["spin"] = func(t *testing.T) {
		mem, m, c := childSeg(t)
		stop := (*uint64)(unsafe.Pointer(&mem[128]))
		say("ready")
		for atomic.LoadUint64(stop) == 0 {
			m.lockWait()
			*c++
			m.unlock()
		}
	}
}

// BenchmarkMutexContended2Procs measures ns per lock+unlock in this process
// while a second process hammers the same word (the php-fpm case: one goroutine
// per process). Baseline: BenchmarkMutexUncontended, and the same loop with no
// second process (procs=1).
func BenchmarkMutexContended2Procs(b *testing.B) {
	for _, procs := range []int{1, 2} {
		b.Run(fmt.Sprintf("procs=%d", procs), func(b *testing.B) {
			path := testSegPath(b)
			mem := mapTestFile(b, path, mutexSegSize)
			m, c := segMutex(mem)
			stop := (*uint64)(unsafe.Pointer(&mem[128]))
			var p *proc
			if procs == 2 {
				p = startProc(b, "spin", "EPHPM_SHM_FILE="+path)
				p.expect("ready", 10*time.Second)
			}
			b.ResetTimer()
			for range b.N {
				m.lockWait()
				*c++
				m.unlock()
			}
			b.StopTimer()
			atomic.StoreUint64(stop, 1)
			if p != nil {
				p.wait()
			}
		})
	}
}
