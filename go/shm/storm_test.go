package shm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// TestKillStormFull is the kill storm in full (multiproc_test.go's
// TestKillStorm is a 2 s one without the checks below on latency, a held
// lock and large values): 4 processes run mixed operations on one
// file-backed segment while the parent SIGKILLs a random one every ~20 ms
// for 10 s and restarts it. Every worker (the children and one in the
// parent that is never killed) logs to its own file, one write per line so
// a kill loses at most the line being written:
//
//	i          an Incr of the counter is about to start
//	a          ...and returned (acknowledged)
//	m <ns> <r> a new longest operation (r: which kind, see the switch)
//	n <ops>    operations done so far (every 1000)
//	w <ns>     a new longest stripe lock wait (testHookSlowLock)
//	d          a stripe lock taken over from a dead owner
//	bad <what> a broken guarantee
//
// Afterwards: no operation took over 1 s, Verify is clean, the lock taken
// before the storm is still held by its owner (and no worker ever got it),
// and acknowledged <= counter <= acknowledged + in flight (an "i" without
// its "a": a worker killed inside or right after Incr).

const (
	stormSegSize  = 16 << 20
	stormHeld     = "storm:held"
	stormHeldTok  = "parent-token"
	stormCounter  = "storm:counter"
	stormMaxOpDur = time.Second
	stormQueue    = "storm:queue"
)

func init() {
	childFuncs["storm"] = func(t *testing.T) {
		mem := mapTestFile(t, os.Getenv("EPHPM_SHM_FILE"), stormSegSize)
		e, err := Attach(mem, Config{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(os.Getenv("EPHPM_SHM_LOG"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		stormLockHook(f)
		// Dawdle often between a mutation's steps (multiproc_test.go's
		// storm does it more rarely), so that enough kills land inside a
		// stripe lock for the takeover check below to be safe.
		testCrash = func(int) {
			if rand.IntN(4) == 0 {
				for t := time.Now(); time.Since(t) < 50*time.Microsecond; {
				}
			}
		}
		say("ready")
		stormWorker(e, f, fmt.Sprintf("c%d", os.Getpid()), nil)
	}
}

// stormLockHook logs this process's lock waits: "w <ns>" for a new
// longest one, "d" for each takeover from a dead owner.
func stormLockHook(log *os.File) {
	var mu sync.Mutex
	var longest time.Duration
	testHookSlowLock = func(waited time.Duration, ownerDied bool) {
		if ownerDied {
			fmt.Fprintf(log, "d\n")
		}
		mu.Lock()
		defer mu.Unlock()
		if waited > longest {
			longest = waited
			fmt.Fprintf(log, "w %d\n", waited)
		}
	}
}

// stormBlob is a self-checking value of n bytes for key: a header
// repeated (compressible).
func stormBlob(key string, seq, n int) []byte {
	h := key + "#" + strconv.Itoa(seq) + "#" + strconv.Itoa(n) + ";"
	return bytes.Repeat([]byte(h), n/len(h)+1)[:n]
}

// stormBlobOK reports whether v is a value stormBlob made for key.
func stormBlobOK(key string, v []byte) bool {
	i := bytes.IndexByte(v, ';')
	if i < 0 {
		return false
	}
	parts := strings.Split(string(v[:i]), "#")
	if len(parts) != 3 || parts[0] != key {
		return false
	}
	seq, err1 := strconv.Atoi(parts[1])
	n, err2 := strconv.Atoi(parts[2])
	return err1 == nil && err2 == nil && n == len(v) && bytes.Equal(v, stormBlob(key, seq, n))
}

// stormWorker runs the operation mix until stop closes (nil: until killed).
func stormWorker(e *Engine, log *os.File, name string, stop <-chan struct{}) {
	line := func(format string, args ...any) { fmt.Fprintf(log, format+"\n", args...) }
	bad := func(format string, args ...any) { line("bad "+name+": "+format, args...) }
	buf := make([]byte, 256<<10)
	get := func(key string) ([]byte, bool) {
		n, found, err := e.Get(key, buf)
		if err != nil {
			bad("get %s: %v", key, err)
			return nil, false
		}
		if n > len(buf) {
			bad("get %s: %d bytes", key, n)
			return nil, false
		}
		return buf[:n], found
	}
	var maxDur time.Duration
	seq := 0
	pause := time.Now().Add(time.Millisecond)
	for ops := 1; ; ops++ {
		select {
		case <-stop:
			return
		default:
		}
		seq++
		t0 := time.Now()
		if t0.After(pause) {
			// Half the time asleep: five busy workers and the restarts
			// would saturate a small machine, and then the longest op
			// measures the scheduler rather than the store.
			time.Sleep(time.Millisecond)
			pause = time.Now().Add(time.Millisecond)
			t0 = time.Now()
		}
		r := rand.IntN(100)
		switch {
		case r < 25: // a lock: take, check it is ours, renew, release
			key := "storm:lock:" + strconv.Itoa(rand.IntN(4))
			tok := []byte(name + "-" + strconv.Itoa(seq))
			ok, err := e.SetNX(key, tok, time.Second)
			if err != nil {
				bad("setnx %s: %v", key, err)
			}
			if !ok {
				break
			}
			got := time.Now()
			v, found := get(key)
			okE, err1 := e.ExpireIfEq(key, tok, time.Second)
			okD, err2 := e.DelIfEq(key, tok)
			if err1 != nil || err2 != nil {
				bad("lock %s: %v, %v", key, err1, err2)
			} else if time.Since(got) < 900*time.Millisecond && (!found || !bytes.Equal(v, tok) || !okE || !okD) {
				bad("lock %s taken with %s lost: get %q %v, expire_if_eq %v, del_if_eq %v", key, tok, v, found, okE, okD)
			}
		case r < 45: // the counter, acknowledged
			line("i")
			if _, err := e.Incr(stormCounter, 1, 0); err != nil {
				bad("incr: %v", err)
			} else {
				line("a")
			}
		case r < 70: // small values with short TTLs
			key := "storm:ttl:" + strconv.Itoa(rand.IntN(64))
			if rand.IntN(2) == 0 {
				ttl := time.Duration(1+rand.IntN(100)) * time.Millisecond
				if err := e.Set(key, stormBlob(key, seq, 40+rand.IntN(200)), ttl); err != nil {
					bad("set %s: %v", key, err)
				}
			} else if v, found := get(key); found && !stormBlobOK(key, v) {
				bad("get %s: %q", key, v)
			}
		case r < 80: // large compressible values
			key := "storm:big:" + strconv.Itoa(rand.IntN(8))
			if rand.IntN(2) == 0 {
				if err := e.Set(key, stormBlob(key, seq, 20000+rand.IntN(100000)), 2*time.Second); err != nil {
					bad("set %s: %v", key, err)
				}
			} else if v, found := get(key); found && !stormBlobOK(key, v) {
				bad("get %s: %d bytes, not a value written for it", key, len(v))
			}
		case r < 85: // queue traffic: a kill leaves each job queued, delivered or gone
			tok := []byte(name + "-" + strconv.Itoa(seq))
			switch rand.IntN(3) {
			case 0:
				if _, err := kv.QueuePush(e, stormQueue, stormBlob(stormQueue, seq, 40+rand.IntN(100)), 0); err != nil {
					bad("queue push: %v", err)
				}
			default:
				j, ok, err := kv.QueuePop(e, stormQueue, tok, 200*time.Millisecond, 1000, 0)
				switch {
				case err != nil:
					bad("queue pop: %v", err)
				case ok && !stormBlobOK(stormQueue, j.Payload):
					bad("queue pop: job %d payload %q", j.ID, j.Payload)
				case ok && rand.IntN(4) > 0:
					if _, err := kv.QueueAck(e, stormQueue, j.ID, tok); err != nil {
						bad("queue ack: %v", err)
					}
				}
			}
		case r < 87: // a walk of a few buckets, killed mid-walk now and then
			if _, err := e.Scan(strconv.FormatUint(uint64(rand.IntN(1<<10)), 16), "storm:*", 16, func(k kv.KeyInfo) {
				if k.Key == stormHeld && k.TTL <= 0 {
					bad("scan: the held lock with ttl %v", k.TTL)
				}
			}); err != nil && !errors.Is(err, kv.ErrBadCursor) {
				bad("scan: %v", err)
			}
		case r < 90: // the lock held since before the storm is never free
			if ok, err := e.SetNX(stormHeld, []byte(name), time.Second); err != nil || ok {
				bad("setnx of the held lock: %v, %v", ok, err)
			}
		default: // the rest of the API on the TTL keys
			key := "storm:ttl:" + strconv.Itoa(rand.IntN(64))
			var err error
			switch rand.IntN(4) {
			case 0:
				_, err = e.Del(key)
			case 1:
				_, err = e.Exists(key)
			case 2:
				_, err = e.Expire(key, time.Duration(1+rand.IntN(100))*time.Millisecond)
			case 3:
				_, err = e.TTL(key)
			}
			if err != nil {
				bad("%s: %v", key, err)
			}
		}
		if d := time.Since(t0); d > maxDur {
			maxDur = d
			line("m %d %d", d, r)
		}
		if ops%1000 == 0 {
			line("n %d", ops)
		}
	}
}

// stormLog is what the logs say, summed.
type stormLog struct {
	acked, inflight, ops int
	maxDur               time.Duration
	maxOp                string // its log line: m <ns> <the mix's r>
	maxWait              time.Duration
	takeovers            int
	bad                  []string
}

func (s *stormLog) read(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return // killed before it opened its log
		}
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	pending, ops := 0, 0
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "i":
			pending++
		case l == "a":
			pending--
			s.acked++
		case strings.HasPrefix(l, "m "):
			f := strings.Fields(l)
			n, _ := strconv.ParseInt(f[1], 10, 64)
			if d := time.Duration(n); d > s.maxDur {
				s.maxDur, s.maxOp = d, l
			}
		case l == "d":
			s.takeovers++
		case strings.HasPrefix(l, "w "):
			n, _ := strconv.ParseInt(l[2:], 10, 64)
			s.maxWait = max(s.maxWait, time.Duration(n))
		case strings.HasPrefix(l, "n "):
			ops, _ = strconv.Atoi(l[2:])
		case strings.HasPrefix(l, "bad "):
			s.bad = append(s.bad, l[4:])
		case l == "":
			// a line cut by the kill
		default:
			s.bad = append(s.bad, "log line "+strconv.Quote(l))
		}
	}
	s.inflight += pending
	s.ops += ops
}

func TestKillStormFull(t *testing.T) {
	if testing.Short() {
		t.Skip("10 s kill storm")
	}
	storm := 10 * time.Second
	if s := os.Getenv("EPHPM_SHM_STORM"); s != "" {
		storm, _ = time.ParseDuration(s)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "seg")
	mem, err := MapFile(path, stormSegSize)
	if err != nil {
		t.Fatal(err)
	}
	stuck := false // a worker still inside an op: leave the segment mapped
	t.Cleanup(func() {
		if !stuck {
			Unmap(mem)
		}
	})
	e, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := e.SetNX(stormHeld, []byte(stormHeldTok), time.Hour); !ok || err != nil {
		t.Fatalf("setnx %s: %v, %v", stormHeld, ok, err)
	}

	// The parent's own worker is never killed: its longest operation is
	// what a survivor of the storm saw.
	plog, err := os.Create(filepath.Join(dir, "parent.log"))
	if err != nil {
		t.Fatal(err)
	}
	stormLockHook(plog)
	defer func() { testHookSlowLock = nil }()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		stormWorker(e, plog, "parent", stop)
	}()

	const procs = 4
	var logs []string
	start := func() *proc {
		l := filepath.Join(dir, fmt.Sprintf("child%d.log", len(logs)))
		logs = append(logs, l)
		return startProc(t, "storm", "EPHPM_SHM_FILE="+path, "EPHPM_SHM_LOG="+l)
	}
	cs := make([]*proc, procs)
	for i := range cs {
		cs[i] = start()
	}
	for _, c := range cs {
		c.expect("ready", 30*time.Second)
	}
	kills := 0
	end := time.Now().Add(storm)
	for time.Now().Before(end) {
		time.Sleep(time.Duration(10+rand.IntN(20)) * time.Millisecond)
		i := rand.IntN(procs)
		cs[i].cmd.Process.Kill()
		cs[i].cmd.Wait()
		cs[i].done = true
		kills++
		cs[i] = start()
	}
	for _, c := range cs {
		c.cmd.Process.Kill()
		c.cmd.Wait()
		c.done = true
	}
	close(stop)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		stuck = true
		t.Fatal("the parent's worker is still inside an operation 5 s after the storm")
	}
	plog.Close()

	var s stormLog
	var parent stormLog
	parent.read(t, plog.Name())
	for _, l := range logs {
		s.read(t, l)
	}
	t.Logf("longest: children %q, parent %q", s.maxOp, parent.maxOp)
	t.Logf("stripe locks: %d taken over from dead owners (children %d, parent %d); longest wait for one: children %v, parent %v",
		s.takeovers+parent.takeovers, s.takeovers, parent.takeovers, s.maxWait, parent.maxWait)
	t.Logf("storm %v: %d kills, %d child processes, ops logged: children %d, parent %d; longest op: children %v, parent %v",
		storm, kills, len(logs), s.ops, parent.ops, s.maxDur, parent.maxDur)
	if s.takeovers+parent.takeovers == 0 {
		t.Error("no stripe lock was taken over from a dead owner: no kill landed inside one, the storm tested no takeover")
	}
	for _, b := range append(parent.bad, s.bad...) {
		t.Error(b)
	}
	if parent.inflight != 0 {
		t.Errorf("parent: %d increments never acknowledged", parent.inflight)
	}
	if d := max(s.maxDur, parent.maxDur); d > stormMaxOpDur {
		t.Errorf("an operation took %v (limit %v)", d, stormMaxOpDur)
	}
	if err := e.Verify(); err != nil {
		t.Errorf("verify after the storm: %v", err)
	}
	// The queue: once the killed workers' deliveries ran out, every job
	// it counts comes out whole.
	time.Sleep(250 * time.Millisecond)
	size, err := kv.QueueSize(e, stormQueue, 1000)
	if err != nil {
		t.Errorf("queue size after the storm: %v", err)
	}
	drained := int64(0)
	for ; ; drained++ {
		j, ok, err := kv.QueuePop(e, stormQueue, []byte("drain"), time.Hour, 1000, 0)
		if err != nil || !ok {
			if err != nil {
				t.Errorf("queue pop after the storm: %v", err)
			}
			break
		}
		if !stormBlobOK(stormQueue, j.Payload) {
			t.Errorf("queue job %d after the storm: %q", j.ID, j.Payload)
		}
	}
	t.Logf("queue after the storm: %d jobs, %d popped", size, drained)
	if drained != size {
		t.Errorf("the queue counted %d jobs and gave %d", size, drained)
	}
	// A whole walk after the storm finds the lock held since before it.
	walked, cursor := map[string]bool{}, ""
	for {
		next, err := e.Scan(cursor, "", 100, func(k kv.KeyInfo) { walked[k.Key] = true })
		if err != nil {
			t.Fatalf("scan after the storm: %v", err)
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	if !walked[stormHeld] {
		t.Errorf("a walk after the storm did not find %s (%d keys walked)", stormHeld, len(walked))
	}
	if v, found, err := getString(e, stormHeld); err != nil || !found || v != stormHeldTok {
		t.Errorf("the lock taken before the storm: %q, %v, %v", v, found, err)
	}
	if d, err := e.TTLIfEq(stormHeld, []byte(stormHeldTok)); err != nil || d <= 0 {
		t.Errorf("ttl_if_eq of the lock taken before the storm: %v, %v", d, err)
	}
	v, found, err := getString(e, stormCounter)
	acked := s.acked + parent.acked
	n, _ := strconv.Atoi(v)
	if err != nil || !found || n < acked || n > acked+s.inflight {
		t.Errorf("counter %q (%v, %v): acknowledged %d, in flight when killed %d", v, found, err, acked, s.inflight)
	}
	t.Logf("counter %d: acknowledged %d (parent %d), in flight when killed %d", n, acked, parent.acked, s.inflight)
	if st, err := e.Stats(); err == nil {
		t.Logf("after the storm: %+v", st)
	}
}

func getString(e *Engine, key string) (string, bool, error) {
	buf := make([]byte, 1<<20)
	n, found, err := e.Get(key, buf)
	if n > len(buf) {
		return "", found, fmt.Errorf("%d bytes", n)
	}
	return string(buf[:n]), found, err
}

const fullStormSize = MinSize

func init() {
	childFuncs["fullstorm"] = func(t *testing.T) {
		mem := mapTestFile(t, os.Getenv("EPHPM_SHM_FILE"), fullStormSize)
		e, err := Attach(mem, Config{CompressMin: -1})
		if err != nil {
			t.Fatal(err)
		}
		seed, _ := strconv.Atoi(os.Getenv("EPHPM_SHM_SEED"))
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		stole := false
		testCrash = func(p int) {
			if p == crashStealUnlinked && !stole {
				stole = true
				say("stole")
			}
			if r.IntN(4) == 0 {
				runtime.Gosched()
			}
		}
		say("ready")
		buf := make([]byte, 4096)
		for i := 0; ; i++ {
			k := "fs" + strconv.Itoa(r.IntN(3000))
			switch r.IntN(6) {
			case 0, 1, 2:
				ttl := time.Duration(0)
				if r.IntN(10) != 0 {
					ttl = time.Duration(1+r.IntN(5)) * time.Millisecond
				}
				if err := e.Set(k, fullStormValue(k, r.IntN(3)), ttl); err != nil && !errors.Is(err, kv.ErrFull) {
					say("bad set %v", err)
				}
			case 3:
				e.Del(k)
			case 4:
				n, ok, err := e.Get(k, buf)
				if err != nil {
					say("bad get %v", err)
				} else if ok && n <= len(buf) && !fullStormValueOK(k, buf[:n]) {
					say("bad value of %s: %.40q", k, buf[:n])
				}
			case 5:
				if _, err := e.Incr("n"+strconv.Itoa(r.IntN(50)), 1, 0); err != nil && !errors.Is(err, kv.ErrFull) && !errors.Is(err, kv.ErrNotInteger) {
					say("bad incr %v", err)
				}
			}
		}
	}
}

// fullStormValue returns key's value in one of three sizes (three size
// classes).
func fullStormValue(key string, size int) []byte {
	n := []int{8, 150, 900}[size]
	return bytes.Repeat([]byte(key+";"), n/len(key)+1)[:n]
}

func fullStormValueOK(key string, v []byte) bool {
	return bytes.Equal(v, bytes.Repeat([]byte(key+";"), len(v)/len(key)+1)[:len(v)])
}

func TestKillStormOnFullSegment(t *testing.T) {
	if testing.Short() {
		t.Skip("kill storm")
	}
	path := testSegPath(t)
	mem := mapTestFile(t, path, fullStormSize)
	e, err := Attach(mem, Config{CompressMin: -1})
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	steals := 0 // children that stole a block from another stripe
	collect := func(p *proc) {
		for {
			select {
			case l, ok := <-p.lines:
				if !ok {
					return
				}
				switch l {
				case "ready":
				case "stole":
					steals++
				default:
					bad = append(bad, l)
				}
			default:
				return
			}
		}
	}
	seed := 0
	start := func() *proc {
		seed++
		p := startProc(t, "fullstorm", "EPHPM_SHM_FILE="+path, "EPHPM_SHM_SEED="+strconv.Itoa(seed))
		p.expect("ready", 30*time.Second)
		return p
	}
	const procs = 3
	ps := make([]*proc, procs)
	for i := range ps {
		ps[i] = start()
	}
	r := rand.New(rand.NewPCG(1, 2))
	kills := 0
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		time.Sleep(time.Duration(5+r.IntN(20)) * time.Millisecond)
		i := r.IntN(procs)
		ps[i].cmd.Process.Signal(syscall.SIGKILL)
		ps[i].cmd.Wait()
		ps[i].done = true
		collect(ps[i])
		kills++
		ps[i] = start()
	}
	for _, p := range ps {
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		p.done = true
		collect(p)
	}
	if len(bad) > 0 {
		t.Fatalf("%d problems, first: %q", len(bad), bad[:min(5, len(bad))])
	}
	if err := e.Verify(); err != nil {
		t.Fatal(err)
	}
	st, _ := e.Stats()
	t.Logf("%d kills, %d repairs, %d children stole, stats %+v", kills, e.Repairs(), steals, st)
	if e.Repairs() == 0 {
		t.Fatal("no kill landed in a critical section")
	}
}
