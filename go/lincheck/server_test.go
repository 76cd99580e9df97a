package lincheck

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/etcdkv"
	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
)

// The fault tests start processes and measure time: they run in `make
// test-lincheck`, without -race, not in `go test -short ./...`.

// dialers opens an engine for an ephpm.server URL, by scheme: how a new
// backend plugs into these tests (one line here, e.g. "redis" and "etcd").
var dialers = map[string]func(url string, timeout time.Duration) (kv.Engine, error){
	"unix":  func(url string, timeout time.Duration) (kv.Engine, error) { return remote.New(url, "", timeout) },
	"tcp":   func(url string, timeout time.Duration) (kv.Engine, error) { return remote.New(url, "", timeout) },
	"redis": func(url string, timeout time.Duration) (kv.Engine, error) { return remote.New(url, "", timeout) },
	"etcd":  func(url string, timeout time.Duration) (kv.Engine, error) { return etcdkv.NewFromURL(url, "", timeout) },
}

// openURL is an Opener giving each client its own engine for url.
func openURL(t *testing.T, url string, timeout time.Duration) Opener {
	scheme, _, ok := strings.Cut(url, "://")
	dial := dialers[scheme]
	if !ok || dial == nil {
		t.Fatalf("no engine for %q: add its scheme to dialers", url)
	}
	return func(int) (kv.Engine, error) { return dial(url, timeout) }
}

func faultTest(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test: make test-lincheck")
	}
}

// serverBinary is $EPHPM_KV_BIN (make passes build/ephpm-kv) or a fresh
// build of ./cmd/ephpm-kv.
func serverBinary(t *testing.T) string {
	if bin := os.Getenv("EPHPM_KV_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "ephpm-kv")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/ephpm-kv").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./cmd/ephpm-kv: %v\n%s", err, out)
	}
	return bin
}

// ephpmServer is an ephpm-kv server on a unix socket in a temp dir.
func ephpmServer(t *testing.T, args ...string) (*Proc, string) {
	sock := filepath.Join(t.TempDir(), "kv.sock")
	p := &Proc{
		Name: "ephpm-kv",
		Path: serverBinary(t),
		Args: append([]string{"--unix", sock, "--procs", "1"}, args...),
		Ready: func() error {
			c, err := net.Dial("unix", sock)
			if err == nil {
				c.Close()
			}
			return err
		},
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	return p, "unix://" + sock
}

// ephpmModel is what ephpm-kv promises: one engine-wide fence counter, TTLs
// in ms rounded up.
var ephpmModel = Config{FenceDomain: EngineWide, Slack: 5 * time.Millisecond, Guarantees: All}

// verify checks and logs; a failed part leaves porcupine's view of it in
// $EPHPM_LINCHECK_OUT (make: build/out/lincheck).
func verify(t *testing.T, name string, cfg Config, rec *Recorder, faults []string) Verdict {
	t.Helper()
	v := Verify(cfg, rec.History(), 20*time.Second)
	t.Logf("%s: %v", name, v)
	if v.Linearizable() {
		return v
	}
	locks, fences := cfg.Parts()
	for _, part := range []struct {
		name string
		cfg  Config
		r    Result
	}{{"locks", locks, v.Locks}, {"fences", fences, v.Fences}} {
		if dir := os.Getenv("EPHPM_LINCHECK_OUT"); dir != "" && !part.r.Linearizable() {
			file := strings.NewReplacer(" ", "-", "/", "-").Replace(t.Name() + "-" + name + "-" + part.name)
			if path, err := Visualize(part.cfg, part.r, dir, file); err == nil {
				t.Logf("view: %s", path)
			}
		}
	}
	for _, f := range faults {
		t.Log(f)
	}
	return v
}

func execute(t *testing.T, s Scenario) (*Recorder, []string) {
	t.Helper()
	rec := NewRecorder()
	log, err := s.Execute(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return rec, log
}

// TestServerStoppedIsLinearizable checks linearizability with the server
// SIGSTOPped for 300 ms every 800 ms under lock traffic; calls time out after
// 100 ms (maybe-happened), and some run when the server continues. TTLs of 3 s,
// long against the holds and short enough that a lock a maybe-happened
// acquisition left behind comes back within the run.
func TestServerStoppedIsLinearizable(t *testing.T) {
	faultTest(t)
	p, url := ephpmServer(t)
	rec, log := execute(t, Scenario{
		Open:     openURL(t, url, 100*time.Millisecond),
		Workload: Workload{Clients: 6, Duration: 4 * time.Second, TTL: 3 * time.Second, Idle: 5 * time.Millisecond},
		Faults:   []Fault{Pause(p, 800*time.Millisecond, 300*time.Millisecond)},
	})
	v := verify(t, "every guarantee", ephpmModel, rec, log)
	if !v.Linearizable() {
		t.Errorf("ephpm-kv under SIGSTOP: %v", v)
	}
	if v.Locks.Unknown == 0 || v.Locks.Granted < 100 {
		t.Errorf("the faults did not bite or the workload did not run: %v", v.Locks)
	}
}

// killed runs the workload while the server is kill -9ed every second and
// restarted 20 ms later. Holders keep their lock up to 300 ms, so some
// hold one over an outage without calling the server; the others' calls
// during it are maybe-happened (a refused connection looks like a timeout)
// and can explain a lock gone missing. A witness takes its own lock before
// and asks for it after: a lock that cannot be explained away.
func killed(t *testing.T, args ...string) (*Recorder, []string) {
	p, url := ephpmServer(t, args...)
	open := openURL(t, url, 100*time.Millisecond)
	rec := NewRecorder()
	e, err := open(99)
	if err != nil {
		t.Fatal(err)
	}
	witness := &Client{ID: 99, E: e, Rec: rec}
	if out, err := witness.Acquire("lock:witness", "w", time.Hour); err != nil || !out.OK {
		t.Fatalf("witness: %+v, %v", out, err)
	}
	log, err := Scenario{
		Open: open,
		Workload: Workload{Clients: 6, Duration: 3500 * time.Millisecond, TTL: 3 * time.Second, Hold: 300 * time.Millisecond,
			Idle: 5 * time.Millisecond},
		Faults: []Fault{KillRestart(p, time.Second, 20*time.Millisecond)},
	}.Execute(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := witness.Owner("lock:witness", "w"); err != nil || out.Unknown {
		t.Fatalf("witness: %+v, %v", out, err)
	}
	return rec, log
}

var fencesOnly = Config{FenceDomain: EngineWide, Slack: 5 * time.Millisecond, Guarantees: Guarantees{FenceOrder: true}}

// With --snapshot the fence mark file keeps fences increasing over kill -9;
// the locks themselves are only in the periodic snapshot, so the ones taken
// since are lost: the checker must say so.
func TestServerKilledWithSnapshotKeepsFenceOrder(t *testing.T) {
	faultTest(t)
	rec, log := killed(t, "--snapshot", filepath.Join(t.TempDir(), "kv.snap"))
	if v := verify(t, "fence order", fencesOnly, rec, log); !v.Linearizable() {
		t.Errorf("fences went backwards over kill -9 with --snapshot: %v", v)
	}
	if v := verify(t, "every guarantee", ephpmModel, rec, log); !v.Locks.Illegal() {
		t.Errorf("kill -9 lost no lock? The checker should report the locks taken since the last snapshot: %v", v)
	}
}

// Without --snapshot a kill -9 loses every lock (two holders after the
// restart); fences still increase, from the wall clock in microseconds.
func TestServerKilledWithoutSnapshotLosesLocks(t *testing.T) {
	faultTest(t)
	rec, log := killed(t)
	if v := verify(t, "fence order", fencesOnly, rec, log); !v.Linearizable() {
		t.Errorf("fences went backwards over kill -9 without --snapshot: %v", v)
	}
	if v := verify(t, "every guarantee", ephpmModel, rec, log); !v.Locks.Illegal() {
		t.Errorf("kill -9 of a server without snapshot lost no lock? %v", v)
	}
}

// ephpm_kv_fence's memory (the highest fence per resource) is in the
// snapshot, not in the fence mark file: a kill -9 forgets what it recorded
// since the last snapshot. The restarted server refuses every fence issued
// before it (the fence floor), so a stale fence is not accepted again, and
// a fence issued after the restart is.
func TestServerFenceChecksSurviveKill(t *testing.T) {
	faultTest(t)
	p, url := ephpmServer(t, "--snapshot", filepath.Join(t.TempDir(), "kv.snap"))
	rec := NewRecorder()
	open := openURL(t, url, time.Second)
	e, err := open(0)
	if err != nil {
		t.Fatal(err)
	}
	c := &Client{ID: 0, E: e, Rec: rec}
	must := func(out Output, err error) Output {
		t.Helper()
		if err != nil || out.Unknown {
			t.Fatalf("%+v, %v", out, err)
		}
		return out
	}
	a := must(c.Acquire("lock:r", "a", time.Hour))
	must(c.Release("lock:r", "a"))
	b := must(c.Acquire("lock:r", "b", time.Hour))
	if !must(c.Fence("r", b.Fence)).OK {
		t.Fatal("the newest fence refused")
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	if must(c.Fence("r", a.Fence)).OK {
		t.Error("a stale fence was accepted after kill -9: the fence check forgot b's")
	}
	// The lock was lost with the crash (no snapshot since it was taken).
	d := must(c.Acquire("lock:r", "d", time.Hour))
	if !d.OK || !must(c.Fence("r", d.Fence)).OK {
		t.Errorf("a fence issued after the restart: %+v", d)
	}
	if v := verify(t, "fence checks", Config{Guarantees: Guarantees{FenceChecks: true}}, rec, nil); !v.Linearizable() {
		t.Errorf("the checker: %v", v)
	}
}

// TestBackendFromEnv runs the workload against any backend someone else
// started: EPHPM_LINCHECK_SERVER=<ephpm.server URL> (its scheme must be in
// dialers), EPHPM_LINCHECK_FENCES=engine|key|hashtag (the fence domain it
// promises, default engine), EPHPM_LINCHECK_PAUSE=<pid> to SIGSTOP that
// process for 300 ms every 800 ms meanwhile (a Redis primary, an etcd
// leader).
func TestBackendFromEnv(t *testing.T) {
	url := os.Getenv("EPHPM_LINCHECK_SERVER")
	if url == "" {
		t.Skip("EPHPM_LINCHECK_SERVER not set")
	}
	cfg := ephpmModel
	switch os.Getenv("EPHPM_LINCHECK_FENCES") {
	case "", "engine":
	case "key":
		cfg.FenceDomain = PerKey
	case "hashtag":
		cfg.FenceDomain = HashTag
	default:
		t.Fatal("EPHPM_LINCHECK_FENCES: engine, key or hashtag")
	}
	s := Scenario{
		Open:     openURL(t, url, 100*time.Millisecond),
		Workload: Workload{Clients: 6, Duration: 4 * time.Second, TTL: 3 * time.Second, Idle: 5 * time.Millisecond},
	}
	if pid := os.Getenv("EPHPM_LINCHECK_PAUSE"); pid != "" {
		n, err := strconv.Atoi(pid)
		if err != nil {
			t.Fatal(err)
		}
		s.Faults = []Fault{Pause(&Proc{Name: "pid " + pid, pid: n}, 800*time.Millisecond, 300*time.Millisecond)}
	}
	rec, log := execute(t, s)
	if v := verify(t, url, cfg, rec, log); !v.Linearizable() {
		t.Errorf("%s: %v", url, v)
	}
}
