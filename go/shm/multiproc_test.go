package shm

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
)

// Multi-process tests re-run this test binary as children (TestChild with
// EPHPM_SHM_CHILD set) on one file-backed segment. Children report on
// stdout, one line per event.

const childSize = 4 << 20

func TestChild(t *testing.T) {
	mode := os.Getenv("EPHPM_SHM_CHILD")
	if mode == "" {
		t.Skip("run by the multi-process tests")
	}
	if mode == "hold" {
		// Set before any lock is taken (mutex.go's rule).
		testHookLocked = func() {
			if holdArmed.Load() {
				os.Stdout.WriteString("LOCKED\n")
				select {}
			}
		}
	}
	mem, err := MapFile(os.Getenv("EPHPM_SHM_PATH"), childSize)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Attach(mem, Config{CompressMin: 256})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(os.Getenv("EPHPM_SHM_N"))
	switch mode {
	case "exclusion":
		childExclusion(e, n)
	case "storm":
		acks, err := MapFile(os.Getenv("EPHPM_SHM_PATH")+".acks", 8*maxStormChildren)
		if err != nil {
			t.Fatal(err)
		}
		childStorm(e, (*uint64)(unsafe.Pointer(&acks[8*n])))
	case "hold":
		holdArmed.Store(true)
		e.SetNX("held", []byte("child"), time.Minute)
	case "release":
		e.SetNX("relk", []byte("child"), time.Minute)
		os.Stdout.WriteString("HELD\n")
		time.Sleep(100 * time.Millisecond)
		e.DelIfEq("relk", []byte("child"))
	}
}

var holdArmed atomic.Bool

type child struct {
	cmd   *exec.Cmd
	lines chan string
	done  chan struct{}
	ready chan struct{} // closed when the child says READY (the storm's do)
}

func startChild(t *testing.T, path, mode string, n int) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1", "-test.timeout=120s")
	cmd.Env = append(os.Environ(), "EPHPM_SHM_CHILD="+mode, "EPHPM_SHM_PATH="+path, "EPHPM_SHM_N="+strconv.Itoa(n))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, lines: make(chan string, 1<<16), done: make(chan struct{}), ready: make(chan struct{})}
	go func() {
		defer close(c.done)
		s := bufio.NewScanner(out)
		for s.Scan() {
			if s.Text() == "READY" {
				close(c.ready)
				continue
			}
			c.lines <- s.Text()
		}
		close(c.lines)
	}()
	return c
}

// collectWithin is collect for a child that should end by itself: one
// that has not ended after d is killed (a hung child fails the test
// rather than hanging it).
func (c *child) collectWithin(t *testing.T, d time.Duration) []string {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(d):
		c.cmd.Process.Signal(syscall.SIGKILL)
		t.Errorf("child %d still running after %v: killed", c.cmd.Process.Pid, d)
	}
	return c.collect()
}

// collect drains a finished (or killed) child's lines.
func (c *child) collect() []string {
	<-c.done
	var lines []string
	for l := range c.lines {
		lines = append(lines, l)
	}
	c.cmd.Wait()
	return lines
}

func segmentPath(t *testing.T) string {
	return filepath.Join(t.TempDir(), "segment")
}

func attachPath(t *testing.T, path string) *Engine {
	t.Helper()
	mem, err := MapFile(path, childSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Unmap(mem) })
	e, err := Attach(mem, Config{CompressMin: 256})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// childExclusion runs n rounds of setnx / check / del_if_eq on four shared
// keys. "holders:<key>" counts the processes inside each lock: only ever 1.
func childExclusion(e *Engine, n int) {
	keys := []string{"lock:a", "lock:b", "lock:c", "lock:d"}
	acquired := 0
	for i := range n {
		key := keys[i%len(keys)]
		token := []byte(fmt.Sprint(os.Getpid(), "-", i))
		ok, err := e.SetNX(key, token, 10*time.Second)
		if err != nil {
			fmt.Println("ERROR", err)
			return
		}
		if ok {
			if h, _ := e.Incr("holders:"+key, 1, 0); h != 1 {
				fmt.Println("VIOLATION", key, h)
			}
			e.Incr("holders:"+key, -1, 0)
			if ok, _ := e.DelIfEq(key, token); !ok {
				fmt.Println("LOST", key)
			}
			acquired++
			e.Incr("acquired", 1, 0)
		}
		e.Incr("total", 1, 0)
	}
	fmt.Println("acquired", acquired)
}

func TestMultiProcessMutualExclusion(t *testing.T) {
	path := segmentPath(t)
	e := attachPath(t, path)
	const procs, rounds = 4, 20000
	var children []*child
	for range procs {
		children = append(children, startChild(t, path, "exclusion", rounds))
	}
	sum := 0
	for _, c := range children {
		for _, l := range c.collectWithin(t, time.Minute) {
			switch {
			case strings.HasPrefix(l, "acquired "):
				n, _ := strconv.Atoi(l[len("acquired "):])
				sum += n
			case strings.HasPrefix(l, "VIOLATION"), strings.HasPrefix(l, "LOST"), strings.HasPrefix(l, "ERROR"):
				t.Error(l)
			}
		}
		if !c.cmd.ProcessState.Success() {
			t.Errorf("child failed: %v", c.cmd.ProcessState)
		}
	}
	if t.Failed() {
		return
	}
	if v, _ := get(t, e, "total"); v != strconv.Itoa(procs*rounds) {
		t.Fatalf("total %s, want %d: increments lost", v, procs*rounds)
	}
	if v, _ := get(t, e, "acquired"); v != strconv.Itoa(sum) || sum == 0 {
		t.Fatalf("acquired counter %s, children report %d", v, sum)
	}
	mustVerify(t, e)
}

// stormValue is the value for key k, version v: compressible, and
// self-describing so that a reader can check it is whole.
func stormValue(k, v int) []byte {
	head := fmt.Sprintf("%d|%d|", k, v)
	return []byte(head + strings.Repeat(fmt.Sprintf("<%d.%d>", k, v), 50+k*10))
}

func token0() []byte { return []byte(fmt.Sprint("owner-", os.Getpid())) }

// maxStormChildren bounds the children one kill storm starts.
const maxStormChildren = 4096

// childStorm runs mixed operations until killed. acked counts its
// increments of "acked" that returned: a word in shared memory, so that
// acknowledging costs no syscall (a kill mostly lands inside an operation).
func childStorm(e *Engine, acked *uint64) {
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))
	// A lock of its own, held for its whole life: repairs after other
	// processes' deaths must never lose it.
	own := fmt.Sprint("own:", os.Getpid())
	if ok, err := e.SetNX(own, token0(), time.Hour); !ok || err != nil {
		fmt.Println("ERROR own lock", ok, err)
	}
	os.Stdout.WriteString("READY\n")
	// Dawdle now and then between the steps of a mutation, so that kills
	// land there too.
	testCrash = func(int) {
		if rand.IntN(16) == 0 {
			for t := time.Now(); time.Since(t) < 50*time.Microsecond; {
			}
		}
	}
	buf := make([]byte, 1<<16)
	token := []byte(strconv.Itoa(os.Getpid()))
	end := time.Now().Add(60 * time.Second)
	for time.Now().Before(end) {
		k := r.IntN(32)
		start := time.Now()
		switch r.IntN(10) {
		case 0, 1:
			if _, err := e.Incr("acked", 1, 0); err == nil {
				atomic.AddUint64(acked, 1)
			} else {
				fmt.Println("ERROR incr", err)
			}
		case 2:
			key := fmt.Sprint("lock:", k)
			if ok, _ := e.SetNX(key, token, 200*time.Millisecond); ok {
				e.ExpireIfEq(key, token, 300*time.Millisecond)
				e.DelIfEq(key, token)
			}
		case 3:
			ttl := time.Duration(r.IntN(3)) * 20 * time.Millisecond
			if err := e.Set(fmt.Sprint("val:", k), stormValue(k, r.IntN(1000)), ttl); err != nil {
				fmt.Println("ERROR set", err)
			}
		case 4:
			n, ok, err := e.Get(fmt.Sprint("val:", k), buf)
			if err != nil {
				fmt.Println("CORRUPT get", err)
			} else if ok {
				parts := bytes.SplitN(buf[:n], []byte("|"), 3)
				kk, _ := strconv.Atoi(string(parts[0]))
				vv, _ := strconv.Atoi(string(parts[1]))
				if kk != k || !bytes.Equal(buf[:n], stormValue(kk, vv)) {
					fmt.Printf("CORRUPT value of val:%d\n", k)
				}
			}
		case 5:
			e.Del(fmt.Sprint("val:", k))
		case 6:
			key := fmt.Sprint("flock:", k)
			if f, ok, _ := e.SetNXFenced(key, token, 100*time.Millisecond); ok {
				e.Fence(fmt.Sprint("res:", k), f)
				e.DelIfEq(key, token)
			}
		case 8:
			// A permit of a semaphore of three: never a fourth holder,
			// whatever dies where.
			key := fmt.Sprint("sem:", k%4)
			if _, ok, err := e.LeaseAcquire(key, token, kv.LeasePermit, 3, 200*time.Millisecond, 0); err != nil {
				fmt.Println("ERROR lease", err)
			} else if ok {
				if n, err := e.LeaseCount(key); n > 3 || err != nil {
					fmt.Println("CORRUPT semaphore", key, n, err)
				}
				e.LeaseRenew(key, token, 300*time.Millisecond)
				e.LeaseRelease(key, token)
			}
		case 9:
			if _, _, _, err := e.RateLimit(fmt.Sprint("rate:", k%4), int64(1+k%8), time.Duration(1+r.IntN(20))*time.Millisecond); err != nil {
				fmt.Println("ERROR rate", err)
			}
		case 7:
			e.Set(fmt.Sprint("tmp:", r.IntN(500)), token, time.Duration(1+r.IntN(30))*time.Millisecond)
			if d, _ := e.TTLIfEq(own, token0()); d <= 0 {
				fmt.Println("LOST own lock", own)
			}
		}
		if d := time.Since(start); d > time.Second {
			fmt.Println("SLOW", d)
		}
	}
}

// TestKillStorm checks that, while processes mutate one segment and one of them
// is SIGKILLed every ~20 ms and replaced, no operation blocks for a second, no
// value is torn, no process loses the lock it holds for its life; afterwards
// Verify is clean and the counter is within the acknowledged increments and
// those a killed process may have made without acknowledging.
func TestKillStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("kill storm")
	}
	path := segmentPath(t)
	e := attachPath(t, path)
	const procs = 4
	duration := 2 * time.Second
	acks, err := MapFile(path+".acks", 8*maxStormChildren)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(acks)
	started := 0
	start := func() *child {
		if started == maxStormChildren {
			t.Fatal("too many children")
		}
		started++
		return startChild(t, path, "storm", started-1)
	}
	// Fence records the storm does not touch, in many stripes: ones it
	// repairs must keep them (fence checks survive a worker's crash).
	witness, _, err := e.SetNXFenced("flock:witness", []byte("w"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 64 {
		if ok, err := e.Fence(fmt.Sprint("res:witness:", i), witness); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}
	children := make([]*child, procs)
	for i := range children {
		children[i] = start()
	}
	var kills int
	var mu sync.Mutex
	var problems []string
	tally := func(c *child) {
		for _, l := range c.collect() {
			mu.Lock()
			switch {
			case strings.HasPrefix(l, "CORRUPT"), strings.HasPrefix(l, "SLOW"), strings.HasPrefix(l, "ERROR"), strings.HasPrefix(l, "LOST"):
				problems = append(problems, l)
			}
			mu.Unlock()
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for end := time.Now().Add(duration); time.Now().Before(end); {
		i := r.IntN(procs)
		// Kill it while it works, not while it starts (slow on a loaded
		// machine, and nothing to repair there).
		select {
		case <-children[i].ready:
		case <-time.After(10 * time.Second):
			t.Fatal("a child did not start in 10 s")
		}
		time.Sleep(time.Duration(10+r.IntN(20)) * time.Millisecond)
		children[i].cmd.Process.Signal(syscall.SIGKILL)
		kills++
		tally(children[i])
		children[i] = start()
	}
	for _, c := range children {
		c.cmd.Process.Signal(syscall.SIGKILL)
		kills++
		tally(c)
	}
	if len(problems) > 0 {
		t.Fatalf("%d problems, first: %v", len(problems), problems[:min(5, len(problems))])
	}
	mustVerify(t, e)
	if e.Repairs() == 0 {
		t.Fatal("no kill landed inside a critical section: nothing was repaired")
	}
	acked := 0
	for i := range started {
		acked += int(atomic.LoadUint64((*uint64)(unsafe.Pointer(&acks[8*i]))))
	}
	v, _ := get(t, e, "acked")
	n, _ := strconv.Atoi(v)
	if n < acked || n > acked+kills {
		t.Fatalf("counter %d, acknowledged %d, kills %d", n, acked, kills)
	}
	t.Logf("%d kills, %d stripe repairs, %d acknowledged increments, counter %d", kills, e.Repairs(), acked, n)
	for i := range 64 {
		if ok, err := e.Fence(fmt.Sprint("res:witness:", i), witness-1); ok || err != nil {
			t.Fatalf("res:witness:%d forgot its fence over the storm: %v, %v", i, ok, err)
		}
	}
	// The store still works.
	if ok, err := e.SetNX("after", []byte("x"), 0); !ok || err != nil {
		t.Fatal(ok, err)
	}
	st, _ := e.Stats()
	t.Logf("stats after the storm: %+v", st)
}

// TestKilledLockHolderStopsNobody checks that a process killed while it holds a
// stripe lock (paused inside the critical section by the test hook) does not
// stop the others for more than 100 ms.
func TestKilledLockHolderStopsNobody(t *testing.T) {
	path := segmentPath(t)
	e := attachPath(t, path)
	c := startChild(t, path, "hold", 0)
	select {
	case l := <-c.lines:
		if l != "LOCKED" {
			t.Fatalf("child said %q", l)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("child did not take the lock")
	}
	done := make(chan time.Time, 1)
	go func() {
		ok, err := e.SetNX("held", []byte("parent"), time.Minute)
		if !ok || err != nil {
			t.Errorf("SetNX after the holder died: %v %v", ok, err)
		}
		done <- time.Now()
	}()
	select {
	case <-done:
		t.Fatal("took a lock its holder still holds")
	case <-time.After(50 * time.Millisecond):
	}
	killed := time.Now()
	c.cmd.Process.Signal(syscall.SIGKILL)
	at := <-done
	if d := at.Sub(killed); d > 100*time.Millisecond {
		t.Fatalf("blocked %v after the holder died", d)
	} else {
		t.Logf("went on %v after the kill", d)
	}
	c.collect()
	mustVerify(t, e)
}

// TestWaitReleaseAcrossProcesses checks that a release in another process wakes
// the waiter (shared futex), long before its max.
func TestWaitReleaseAcrossProcesses(t *testing.T) {
	path := segmentPath(t)
	e := attachPath(t, path)
	c := startChild(t, path, "release", 0)
	if l := <-c.lines; l != "HELD" {
		t.Fatalf("child said %q", l)
	}
	start := time.Now()
	woken, err := e.WaitRelease("relk", 20*time.Second)
	if err != nil || !woken || time.Since(start) > 5*time.Second {
		t.Fatalf("woken %v err %v after %v", woken, err, time.Since(start))
	}
	if ok, _ := e.Exists("relk"); ok {
		t.Fatal("woken while still held")
	}
	c.collect()
}
