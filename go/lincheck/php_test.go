package lincheck

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// phpOp is one line of testdata/worker.php's log.
type phpOp struct {
	Client  int    `json:"client"`
	Kind    string `json:"kind"`
	Call    int64  `json:"call"`
	Return  int64  `json:"return"`
	Key     string `json:"key"`
	Token   string `json:"token"`
	TTL     int64  `json:"ttl"`
	Fence   int64  `json:"fence"`
	OK      bool   `json:"ok"`
	Unknown bool   `json:"unknown"`
	Value   string `json:"value"`
}

var phpKinds = map[string]Kind{"acquire": Acquire, "release": Release, "refresh": Refresh, "get": Get, "owner": Owner, "fence": Fence}

// readPHPLog adds a worker's log to rec. The times are hrtime's, one clock
// for every process of the host, so the workers' logs merge as they are.
func readPHPLog(path string, rec *Recorder) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var o phpOp
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			return n, fmt.Errorf("%s: %q: %w", path, sc.Text(), err)
		}
		kind, ok := phpKinds[o.Kind]
		if !ok {
			return n, fmt.Errorf("%s: unknown operation %q", path, o.Kind)
		}
		in := Input{Kind: kind, Key: o.Key, Token: o.Token, TTL: time.Duration(o.TTL), Call: o.Call, Return: o.Return}
		out := Output{Unknown: o.Unknown, OK: o.OK, Value: o.Value}
		if kind == Fence {
			in.Fence = o.Fence
		} else {
			out.Fence = o.Fence
		}
		rec.Add(o.Client, in, out)
		n++
	}
	return n, sc.Err()
}

// phpRun is how long the workers run and ephpm.server_timeout.
type phpRun struct{ seconds, timeout string }

// phpWorkers runs testdata/worker.php in n PHP processes on the server at
// url for 4 s, while fault (if any) runs, and returns their merged history.
func phpWorkers(t *testing.T, url string, n int, ttl, overrun, release string, fault *Fault) (*Recorder, []string) {
	return phpWorkersFor(t, phpRun{"4", "0.1"}, url, n, ttl, overrun, release, fault)
}

func phpWorkersFor(t *testing.T, run phpRun, url string, n int, ttl, overrun, release string, fault *Fault) (*Recorder, []string) {
	ext := os.Getenv("EPHPM_EXT")
	if ext == "" {
		t.Skip("EPHPM_EXT (build/ephpm.so) not set: make test-lincheck")
	}
	dir := t.TempDir()
	if d := os.Getenv("EPHPM_LINCHECK_KEEP"); d != "" {
		dir = d // keep the workers' logs
	}
	logs := make([]string, n)
	outs := make([][]byte, n)
	errs := make([]error, n)
	ctx, stop := context.WithCancel(context.Background())
	var mu sync.Mutex
	var faults []string
	faultDone := make(chan struct{})
	go func() {
		defer close(faultDone)
		if fault != nil {
			fault.Inject(ctx, func(format string, args ...any) {
				mu.Lock()
				faults = append(faults, fmt.Sprintf(format, args...))
				mu.Unlock()
			})
		}
	}()
	var wg sync.WaitGroup
	for i := range n {
		logs[i] = filepath.Join(dir, fmt.Sprintf("worker-%d.log", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("php", "-n", "-d", "extension="+ext, "-d", "ephpm.server="+url,
				"-d", "ephpm.server_timeout="+run.timeout, "testdata/worker.php",
				strconv.Itoa(i), logs[i], run.seconds, ttl, overrun, release, "lock:a", "lock:b", "lock:c")
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	stop()
	<-faultDone
	rec := NewRecorder()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("worker %d: %v\n%s", i, errs[i], outs[i])
		}
		ops, err := readPHPLog(logs[i], rec)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("worker %d: %d operations", i, ops)
	}
	return rec, faults
}

// TestPHPProcessesStoppedServerIsLinearizable checks linearizability of 4 PHP
// processes through the extension (Ephpm\Lock, ephpm_kv_fence, ephpm_kv_get) on
// a server that is SIGSTOPped for 300 ms every 800 ms, ephpm.server_timeout 0.1
// s; 5% of the holders overrun a 0.2 s TTL, so locks also change hands by
// expiry.
func TestPHPProcessesStoppedServerIsLinearizable(t *testing.T) {
	faultTest(t)
	p, url := ephpmServer(t)
	pause := Pause(p, 800*time.Millisecond, 300*time.Millisecond)
	rec, faults := phpWorkers(t, url, 4, "0.2", "5", "del_if_eq", &pause)
	v := verify(t, "every guarantee", ephpmModel, rec, faults)
	if !v.Linearizable() {
		t.Errorf("PHP processes on ephpm-kv under SIGSTOP: %v", v)
	}
	if v.Locks.Unknown == 0 || v.Locks.Granted < 100 {
		t.Errorf("the faults did not bite or the workload did not run: %v", v.Locks)
	}
}

// The same PHP processes releasing with ephpm_kv_del: an overrunning holder
// deletes the next holder's lock, and the checker must say so.
func TestPHPProcessesReleasingWithDelAreCaught(t *testing.T) {
	faultTest(t)
	_, url := ephpmServer(t)
	rec, _ := phpWorkers(t, url, 4, "0.05", "20", "del", nil)
	if v := verify(t, "every guarantee", ephpmModel, rec, nil); !v.Illegal() {
		t.Errorf("blind DEL releases passed: %v", v)
	}
}
