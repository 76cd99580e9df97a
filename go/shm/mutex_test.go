package shm

import (
	"os"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// mapAnon maps size bytes of MAP_SHARED anonymous memory, as the extension
// maps its segment (outside the Go heap: the race detector does not see
// plain accesses there, so counters in it are checked by their totals).
func mapAnon(t testing.TB, size int) []byte {
	t.Helper()
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return mem
}

// hammer runs g goroutines each taking m n times around a non-atomic
// read-yield-write of *counter.
func hammer(m *stripeMutex, counter *uint64, g, n int) (died int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				d := m.lockWait()
				v := *counter
				if i%16 == 0 {
					runtime.Gosched() // let another goroutine in if it could be
				}
				*counter = v + 1
				m.unlock()
				if d {
					mu.Lock()
					died++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return died
}

// TestMutexExcludesGoroutines checks, with the race detector, that the counter
// (Go heap) is only touched under the lock, and that no increment is lost.
func TestMutexExcludesGoroutines(t *testing.T) {
	var s struct {
		m stripeMutex
		n uint64
	}
	const g, n = 16, 2000
	if died := hammer(&s.m, &s.n, g, n); died != 0 {
		t.Errorf("ownerDied %d times with every owner alive", died)
	}
	if s.n != g*n {
		t.Fatalf("counter %d, want %d", s.n, g*n)
	}
	if s.m.word != 0 {
		t.Fatalf("word %#x after the last unlock, want 0", s.m.word)
	}
}

// TestMutexExcludesInSharedMemory checks the same with the word and the counter
// in a MAP_SHARED mapping.
func TestMutexExcludesInSharedMemory(t *testing.T) {
	mem := mapAnon(t, 4096)
	m := (*stripeMutex)(unsafe.Pointer(&mem[0]))
	counter := (*uint64)(unsafe.Pointer(&mem[64]))
	const g, n = 16, 2000
	if died := hammer(m, counter, g, n); died != 0 {
		t.Errorf("ownerDied %d times with every owner alive", died)
	}
	if *counter != g*n {
		t.Fatalf("counter %d, want %d", *counter, g*n)
	}
}

func TestMutexUncontendedDoesNotAllocate(t *testing.T) {
	var m stripeMutex
	m.lockWait()
	m.unlock()
	if a := testing.AllocsPerRun(1000, func() { m.lockWait(); m.unlock() }); a != 0 {
		t.Fatalf("%v allocations per lock+unlock, want 0", a)
	}
}

func TestMutexOwnerWord(t *testing.T) {
	var m stripeMutex
	m.lockWait()
	w := m.word
	m.unlock()
	pid, start, _ := os.Getpid(), uint32(w>>32), 0
	if int(uint32(w)) != pid {
		t.Fatalf("low half %d, want pid %d", uint32(w), pid)
	}
	st, _, err := readStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	if start != st {
		t.Fatalf("high half %d, want start time %d", start, st)
	}
	if *m.futexAddr() != 0 {
		t.Fatal("futex address is not the word's low half")
	}
	m.word = w | waitersBit
	if *m.futexAddr() != uint32(pid)|waitersBit {
		t.Fatalf("futex word %#x, want pid|waiters %#x", *m.futexAddr(), uint32(pid)|waitersBit)
	}
}

func TestAlive(t *testing.T) {
	me := os.Getpid()
	st, state, err := readStat(me)
	if err != nil {
		t.Fatal(err)
	}
	if state != 'R' && state != 'S' {
		t.Errorf("own state %c", state)
	}
	if !alive(me, st) {
		t.Error("this process counts as dead")
	}
	if alive(me, st+1) {
		t.Error("this pid with another start time (a reused pid) counts as alive")
	}

	// A SIGKILLed child nobody reaped yet is a zombie: dead.
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	cst, _, err := readStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	if !alive(pid, cst) {
		t.Fatal("a sleeping child counts as dead")
	}
	cmd.Process.Kill()
	waitState(t, pid, 'Z')
	if alive(pid, cst) {
		t.Error("an unreaped SIGKILLed child (zombie) counts as alive")
	}
	cmd.Wait()
	// Reaped: no /proc entry (unless the pid was reused at once, which
	// then has another start time).
	if alive(pid, cst) {
		t.Error("a reaped child counts as alive")
	}
	if alive(0, 0) || alive(-1, 0) {
		t.Error("pid <= 0 counts as alive")
	}
}

// waitState polls until process pid is in state (up to 2 s).
func waitState(t testing.TB, pid int, state byte) {
	t.Helper()
	var got byte
	for range 200 {
		if _, got, _ = readStat(pid); got == state {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d in state %c, want %c", pid, got, state)
}

// TestMutexTakesOverReusedPid checks that a word naming a live pid with another
// start time, an owner that died and whose pid was reused, is taken over.
func TestMutexTakesOverReusedPid(t *testing.T) {
	for _, pid := range []int{os.Getpid(), os.Getppid()} {
		st, _, err := readStat(pid)
		if err != nil {
			t.Fatal(err)
		}
		var m stripeMutex
		m.word = ownerWord(pid, st+1)
		t0 := time.Now()
		res := make(chan bool, 1)
		go func() { res <- m.lockWait() }()
		var died bool
		select {
		case died = <-res:
		case <-time.After(5 * time.Second):
			t.Fatalf("pid %d: lock over a reused pid's word still waiting after 5 s", pid)
		}
		took := time.Since(t0)
		if !died {
			t.Errorf("pid %d: lock over a reused pid's word: ownerDied false", pid)
		}
		if m.word&^waitersBit != self() {
			t.Errorf("pid %d: word %#x after takeover, want ours %#x", pid, m.word, self())
		}
		m.unlock()
		if took > time.Second {
			t.Errorf("pid %d: takeover took %v", pid, took)
		}
		t.Logf("pid %d reused: taken over in %v", pid, took)

		m.word = ownerWord(pid, st+1) | waitersBit
		if ok, died := m.tryLock(); !ok || !died {
			t.Errorf("pid %d: tryLock over a reused pid's word = %v, %v; want true, true", pid, ok, died)
		}
		if m.word != self()|waitersBit {
			t.Errorf("tryLock takeover dropped the waiters bit: %#x", m.word)
		}
	}
}

// TestMutexTryLock checks that a free mutex is taken; one held by a live owner
// is refused and left untouched.
func TestMutexTryLock(t *testing.T) {
	var m stripeMutex
	if ok, died := m.tryLock(); !ok || died {
		t.Fatalf("tryLock of a free mutex = %v, %v", ok, died)
	}
	if ok, _ := m.tryLock(); ok {
		t.Fatal("tryLock of a held mutex succeeded")
	}
	m.unlock()
	ppid := os.Getppid()
	st, _, err := readStat(ppid)
	if err != nil {
		t.Fatal(err)
	}
	live := ownerWord(ppid, st)
	m.word = live
	if ok, died := m.tryLock(); ok || died {
		t.Fatalf("tryLock over a live owner = %v, %v", ok, died)
	}
	if m.word != live {
		t.Fatalf("tryLock changed a live owner's word: %#x", m.word)
	}
}

// TestMutexHookRunsHeld checks that testHookLocked runs after lock/tryLock with
// the lock held.
func TestMutexHookRunsHeld(t *testing.T) {
	var m stripeMutex
	calls := 0
	testHookLocked = func() {
		calls++
		if m.word == 0 {
			t.Error("hook ran with the mutex free")
		}
	}
	defer func() { testHookLocked = nil }()
	m.lockWait()
	m.unlock()
	m.tryLock()
	m.unlock()
	if calls != 2 {
		t.Fatalf("hook ran %d times, want 2", calls)
	}
}

func BenchmarkMutexUncontended(b *testing.B) {
	var m stripeMutex
	b.ReportAllocs()
	for b.Loop() {
		m.lockWait()
		m.unlock()
	}
}

// BenchmarkMutexContended2 measures ns per lock+unlock pair with two goroutines
// on one mutex (both goroutines' pairs counted).
func BenchmarkMutexContended2(b *testing.B) {
	var s struct {
		m stripeMutex
		n uint64
	}
	b.ReportAllocs()
	var wg sync.WaitGroup
	per := b.N / 2
	b.ResetTimer()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				s.m.lockWait()
				s.n++
				s.m.unlock()
			}
		}()
	}
	wg.Wait()
}

// BenchmarkSyncMutexContended2 is the baseline: sync.Mutex, same loop.
func BenchmarkSyncMutexContended2(b *testing.B) {
	var s struct {
		m sync.Mutex
		n uint64
	}
	b.ReportAllocs()
	var wg sync.WaitGroup
	per := b.N / 2
	b.ResetTimer()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				s.m.Lock()
				s.n++
				s.m.Unlock()
			}
		}()
	}
	wg.Wait()
}

func BenchmarkSyncMutexUncontended(b *testing.B) {
	var m sync.Mutex
	for b.Loop() {
		m.Lock()
		m.Unlock()
	}
}

// TestFutexWake checks that futexWake wakes a futexWait long before its
// timeout; a value that differs returns at once.
func TestFutexWake(t *testing.T) {
	mem := mapAnon(t, 4096)
	addr := (*uint32)(unsafe.Pointer(&mem[0]))
	*addr = 1
	t0 := time.Now()
	futexWait(addr, 2, 10*time.Second)
	if d := time.Since(t0); d > time.Second {
		t.Fatalf("futexWait on a changed value slept %v", d)
	}
	woke := make(chan time.Duration)
	go func() {
		t0 := time.Now()
		futexWait(addr, 1, 10*time.Second)
		woke <- time.Since(t0)
	}()
	// Wake until the sleeper returns (it may not be asleep yet).
	for {
		select {
		case d := <-woke:
			if d > 5*time.Second {
				t.Fatalf("futexWait ran to its timeout (%v): futexWake did not wake it", d)
			}
			return
		case <-time.After(20 * time.Millisecond):
			futexWake(addr, 1)
		}
	}
}

// TestMutexUnlockWakesSleeper checks that, with 10 s sleeps, a waiter asleep on
// a held mutex gets it promptly when it is unlocked: unlock woke it.
func TestMutexUnlockWakesSleeper(t *testing.T) {
	defer func(w time.Duration) { waitSlice = w }(waitSlice)
	waitSlice = 10 * time.Second
	var m stripeMutex
	m.lockWait()
	got := make(chan time.Time)
	go func() {
		m.lockWait()
		got <- time.Now()
		m.unlock()
	}()
	for i := 0; atomic.LoadUint64(&m.word)&waitersBit == 0; i++ {
		if i == 2000 {
			t.Fatal("the waiter never set the waiters bit")
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // into the futex wait
	t0 := time.Now()
	m.unlock()
	if d := (<-got).Sub(t0); d > 2*time.Second {
		t.Fatalf("the sleeper got the lock %v after the unlock", d)
	}
}

// lockWait is lock as the tests before the lock timeout used it: waiting
// for as long as the owner lives.
func (m *stripeMutex) lockWait() (ownerDied bool) {
	died, _ := m.lock(time.Hour)
	return died
}
