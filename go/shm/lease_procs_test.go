package shm

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Multi-process tests of leases: OS processes on one file-backed segment
// (see procs_test.go for how children run).

func init() {
	childFuncs["lease-sem"] = childLeaseSemaphore
	childFuncs["lease-hold"] = childLeaseHold
	childFuncs["lease-midop"] = childLeaseMidOp
}

const semPermits = 3

func attachChild(t *testing.T) *Engine {
	mem, err := MapFile(os.Getenv("EPHPM_SHM_PATH"), childSize)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// childLeaseSemaphore takes a permit of "sem" n times: acquire, count
// itself in "inside" (a counter in the segment), hold briefly, count out,
// release; refused, it waits for a release. It reports the most holders it
// saw inside, and any count above the permits.
func childLeaseSemaphore(t *testing.T) {
	e := attachChild(t)
	n, _ := strconv.Atoi(os.Getenv("EPHPM_SHM_N"))
	say("ready")
	peak, refused := int64(0), 0
	for i := 0; i < n; {
		tok := []byte(fmt.Sprint(os.Getpid(), "-", i))
		_, ok, err := e.LeaseAcquire("sem", tok, kv.LeasePermit, semPermits, 10*time.Second, 0)
		if err != nil {
			say("error %v", err)
			return
		}
		if !ok {
			refused++
			e.WaitRelease("sem", 20*time.Millisecond)
			continue
		}
		in, err := e.Incr("inside", 1, 0)
		if err != nil {
			say("error %v", err)
			return
		}
		peak = max(peak, in)
		if c, _ := e.LeaseCount("sem"); in > semPermits || c > semPermits {
			say("violation inside %d holders %d", in, c)
		}
		for t := time.Now(); time.Since(t) < 200*time.Microsecond; {
		}
		e.Incr("inside", -1, 0)
		if ok, err := e.LeaseRelease("sem", tok); !ok || err != nil {
			say("lost %v %v", ok, err)
		}
		i++
	}
	say("done peak %d refused %d", peak, refused)
}

// TestLeaseSemaphoreBoundAcrossProcesses checks that, while processes hammer a
// semaphore of three permits, never more than three are inside at once.
func TestLeaseSemaphoreBoundAcrossProcesses(t *testing.T) {
	path := testSegPath(t)
	e := attachPath(t, path)
	const procs, rounds = 5, 400
	var ps []*proc
	for range procs {
		ps = append(ps, startProc(t, "lease-sem", "EPHPM_SHM_PATH="+path, fmt.Sprint("EPHPM_SHM_N=", rounds)))
	}
	for _, p := range ps {
		p.expect("ready", 30*time.Second)
	}
	peak, refused := 0, 0
	for _, p := range ps {
		l := p.expect("done", time.Minute)
		var pk, rf int
		fmt.Sscanf(l, "done peak %d refused %d", &pk, &rf)
		peak, refused = max(peak, pk), refused+rf
		p.wait()
	}
	if peak > semPermits {
		t.Fatalf("peak %d holders of %d permits", peak, semPermits)
	}
	if n, _ := e.LeaseCount("sem"); n != 0 {
		t.Fatalf("%d holders left after every release", n)
	}
	if v, _ := get(t, e, "inside"); v != "0" {
		t.Fatalf("inside = %s at the end", v)
	}
	mustVerify(t, e)
	t.Logf("%d processes x %d permits: peak %d inside, %d refusals", procs, rounds, peak, refused)
	if peak < 2 {
		t.Fatalf("peak %d: the processes never overlapped, the bound was not exercised", peak)
	}
}

// childLeaseHold takes a permit of "sem" for EPHPM_SHM_N ms and sleeps
// until killed.
func childLeaseHold(t *testing.T) {
	e := attachChild(t)
	ms, _ := strconv.Atoi(os.Getenv("EPHPM_SHM_N"))
	f, ok, err := e.LeaseAcquire("sem", []byte(fmt.Sprint("child-", os.Getpid())), kv.LeasePermit, 2, time.Duration(ms)*time.Millisecond, 0)
	if !ok || err != nil {
		say("refused %v %v", ok, err)
		return
	}
	say("held %d", f)
	select {}
}

// TestLeaseKilledHolderPermitReclaimed checks that a process SIGKILLed while it
// holds a permit keeps it until its ttl, no longer; a waiter blocked in
// WaitRelease wakes at that expiry, though the set's other holder holds for a
// minute.
func TestLeaseKilledHolderPermitReclaimed(t *testing.T) {
	path := testSegPath(t)
	e := attachPath(t, path)
	const ttl = 400 * time.Millisecond
	if _, ok, _ := e.LeaseAcquire("sem", []byte("parent"), kv.LeasePermit, 2, time.Minute, 0); !ok {
		t.Fatal("parent's permit")
	}
	p := startProc(t, "lease-hold", "EPHPM_SHM_PATH="+path, fmt.Sprint("EPHPM_SHM_N=", ttl.Milliseconds()))
	p.expect("held", 30*time.Second)
	held := time.Now()
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
	p.done = true
	if _, ok, _ := e.LeaseAcquire("sem", []byte("third"), kv.LeasePermit, 2, time.Minute, 0); ok {
		t.Fatal("a third permit while the killed holder's lease runs")
	}
	var granted time.Time
	for granted.IsZero() {
		if _, ok, err := e.LeaseAcquire("sem", []byte("third"), kv.LeasePermit, 2, time.Minute, 0); err != nil {
			t.Fatal(err)
		} else if ok {
			granted = time.Now()
			break
		}
		start := time.Now()
		if woken, _ := e.WaitRelease("sem", 20*time.Second); !woken {
			t.Fatalf("WaitRelease not woken after %v", time.Since(start))
		}
		if time.Since(held) > ttl+5*time.Second {
			t.Fatal("the killed holder's permit was never reclaimed")
		}
	}
	if d := granted.Sub(held); d < ttl/2 || d > ttl+2*time.Second {
		t.Fatalf("reclaimed %v after the holder said it held a %v permit", d, ttl)
	} else {
		t.Logf("reclaimed %v after the kill (ttl %v)", d, ttl)
	}
	if n, _ := e.LeaseCount("sem"); n != 2 {
		t.Fatalf("count %d, want 2", n)
	}
	mustVerify(t, e)
}

// childLeaseMidOp stops inside an operation (EPHPM_SHM_OP) at a crash
// point, holding the key's stripe, says so and waits to be killed.
func childLeaseMidOp(t *testing.T) {
	e := attachChild(t)
	op, point := os.Getenv("EPHPM_SHM_OP"), 0
	fmt.Sscan(os.Getenv("EPHPM_SHM_N"), &point)
	testCrash = func(p int) {
		if p == point {
			say("paused")
			select {}
		}
	}
	switch op {
	case "acquire":
		e.LeaseAcquire("sem", []byte("child"), kv.LeasePermit, 5, time.Minute, 0)
	case "release":
		e.LeaseRelease("sem", []byte("other"))
	case "rate":
		e.RateLimit("rate", 3, time.Minute)
	}
	say("finished without pausing")
}

// TestLeaseKilledMidOperation checks that a process SIGKILLed inside a lease or
// rate-limit operation (between its stores, holding the stripe lock) stops
// nobody: the next process repairs the stripe and finds the state from before
// or after the operation.
func TestLeaseKilledMidOperation(t *testing.T) {
	for _, c := range []struct {
		op     string
		point  int
		counts []int64 // holders of "sem" after, one of
	}{
		{"acquire", crashWritten, []int64{2}},
		{"acquire", crashPublished, []int64{3}},
		{"release", crashInPlace, []int64{1, 2}},
		{"rate", crashInPlace, []int64{2}},
	} {
		t.Run(fmt.Sprint(c.op, "-", c.point), func(t *testing.T) {
			path := testSegPath(t)
			e := attachPath(t, path)
			for _, tok := range []string{"parent", "other"} {
				if _, ok, _ := e.LeaseAcquire("sem", []byte(tok), kv.LeasePermit, 5, time.Minute, 0); !ok {
					t.Fatal(tok)
				}
			}
			e.RateLimit("rate", 3, time.Minute)
			p := startProc(t, "lease-midop", "EPHPM_SHM_PATH="+path, "EPHPM_SHM_OP="+c.op, fmt.Sprint("EPHPM_SHM_N=", c.point))
			p.expect("paused", 30*time.Second)
			p.cmd.Process.Signal(syscall.SIGKILL)
			p.cmd.Wait()
			p.done = true
			repairs := e.Repairs()
			start := time.Now()
			n, err := e.LeaseCount("sem")
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > time.Second {
				t.Fatalf("blocked %v by the killed process", d)
			}
			if c.op == "rate" {
				// The killed call is either recorded or not.
				admitted := 0
				for {
					ok, _, _, err := e.RateLimit("rate", 3, time.Minute)
					if err != nil || !ok {
						break
					}
					admitted++
				}
				if admitted != 1 && admitted != 2 {
					t.Fatalf("%d more calls admitted after the kill, want 1 or 2", admitted)
				}
			} else if !slices.Contains(c.counts, n) {
				t.Fatalf("%d holders after the kill, want one of %v", n, c.counts)
			}
			if e.Repairs() == repairs {
				t.Fatal("the key's stripe was not repaired")
			}
			if ok, _ := e.LeaseRenew("sem", []byte("parent"), time.Minute); !ok {
				t.Fatal("the parent lost its permit")
			}
			mustVerify(t, e)
		})
	}
}
