package shm

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A kill storm on a segment that is full all the time: every write goes
// through reclaim, larger classes and steals between stripes, the paths
// the 16 MiB storms never reach. Children dawdle at crash points so that
// kills land inside those steps.

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

// fullStormValue: key's value in one of three sizes (three size classes).
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
