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
)

// Redis 7 (Debian's redis-server) through the same engine (remote speaks
// its dialect, with the Lua fallbacks), on unix sockets.

// redisModel is the model for Redis: one fence counter per server, TTLs in ms.
var redisModel = ephpmModel

func redisBinaries(t *testing.T) (server, cli string) {
	server, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (build/deps.sh redis)")
	}
	cli, err = exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli is not installed (apt-get install redis-tools)")
	}
	return server, cli
}

// redisProc is a redis-server on dir/name.sock, and on a loopback TCP port
// (replication needs one), not started.
func redisProc(t *testing.T, bin, dir, name string, args ...string) (*Proc, string, int) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	sock := filepath.Join(dir, name+".sock")
	base := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--unixsocket", sock,
		"--save", "", "--appendonly", "no", "--dir", dir, "--dbfilename", name + ".rdb", "--daemonize", "no",
		"--maxmemory-policy", "noeviction", "--loglevel", "warning"}
	p := &Proc{Name: name, Path: bin, Args: append(base, args...), Ready: func() error {
		c, err := net.Dial("unix", sock)
		if err == nil {
			c.Close()
		}
		return err
	}}
	t.Cleanup(func() { p.Kill() })
	return p, sock, port
}

func redisCLI(t *testing.T, cli, sock string, args ...string) string {
	t.Helper()
	out, err := exec.Command(cli, append([]string{"-s", sock}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestRedisStoppedIsLinearizable checks linearizability with one Redis,
// SIGSTOPped for 300 ms every 800 ms under lock traffic, as the ephpm-kv
// server.
func TestRedisStoppedIsLinearizable(t *testing.T) {
	faultTest(t)
	bin, _ := redisBinaries(t)
	p, sock, _ := redisProc(t, bin, t.TempDir(), "redis")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	rec, log := execute(t, Scenario{
		Open:     openURL(t, "unix://"+sock, 100*time.Millisecond),
		Workload: Workload{Clients: 6, Duration: 4 * time.Second, TTL: 3 * time.Second, Idle: 5 * time.Millisecond},
		Faults:   []Fault{Pause(p, 800*time.Millisecond, 300*time.Millisecond)},
	})
	v := verify(t, "every guarantee", redisModel, rec, log)
	if !v.Linearizable() {
		t.Errorf("Redis under SIGSTOP: %v", v)
	}
	if v.Locks.Unknown == 0 || v.Locks.Granted < 100 {
		t.Errorf("the faults did not bite or the workload did not run: %v", v.Locks)
	}
}

// TestRedisFailoverGrantsTwice is what a failover does: a replica that
// had not yet received the last writes is promoted, and the locks
// acquired on the old primary meanwhile are free again. The replica lags
// because it is cut off from the primary (as a partition or a slow link
// would leave it; a SIGSTOPped replica is no good: the stream waits in its
// socket and arrives before the promotion); clients reach "the primary" through a symlinked socket that
// the failover swings to the replica, as a sentinel or a DNS name would.
// A witness takes a lock on the old primary while the replica lags; after
// the failover another client is granted it too. The checker must report
// the double grant and the stale fence ephpm_kv_fence accepts again.
// Fences themselves keep rising here only because the script takes the
// larger of the counter and the clock, and both servers share one clock.
func TestRedisFailoverGrantsTwice(t *testing.T) {
	faultTest(t)
	bin, cli := redisBinaries(t)
	dir := t.TempDir()
	primary, psock, pport := redisProc(t, bin, dir, "primary")
	replica, rsock, _ := redisProc(t, bin, dir, "replica", "--replicaof", "127.0.0.1", strconv.Itoa(pport))
	for _, p := range []*Proc{primary, replica} {
		if err := p.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(redisCLI(t, cli, rsock, "INFO", "replication"), "master_link_status:up"); {
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not sync:\n%s\n%s", redisCLI(t, cli, rsock, "INFO", "replication"), replica.Output())
		}
		time.Sleep(20 * time.Millisecond)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadPort := l.Addr().(*net.TCPAddr).Port
	l.Close()
	link := filepath.Join(dir, "redis.sock")
	if err := os.Symlink(psock, link); err != nil {
		t.Fatal(err)
	}
	open := openURL(t, "unix://"+link, 100*time.Millisecond)
	rec := NewRecorder()
	witness := func(id int) *Client {
		e, err := open(id)
		if err != nil {
			t.Fatal(err)
		}
		return &Client{ID: id, E: e, Rec: rec}
	}
	a, b := witness(100), witness(101)
	must := func(out Output, err error) Output {
		t.Helper()
		if err != nil || out.Unknown {
			t.Fatalf("%+v, %v", out, err)
		}
		return out
	}
	before := must(a.Acquire("lock:before", "a0", time.Hour)) // replicated before the failover
	must(a.Fence("invoice", before.Fence))
	failover := Every("failover", 1200*time.Millisecond, func(ctx context.Context, note func(string, ...any)) error {
		// Cut the replica off: pointed at a port nobody listens on, it
		// keeps its data and receives nothing more.
		redisCLI(t, cli, rsock, "REPLICAOF", "127.0.0.1", strconv.Itoa(deadPort))
		note("replica cut off from the primary")
		if out := must(a.Acquire("lock:w", "a1", time.Hour)); !out.OK {
			t.Errorf("witness not granted lock:w")
		} else {
			must(a.Fence("invoice", out.Fence))
		}
		sleep(ctx, 300*time.Millisecond) // the workload writes to the primary only
		if err := primary.Kill(); err != nil {
			return err
		}
		note("SIGKILL primary")
		redisCLI(t, cli, rsock, "REPLICAOF", "NO", "ONE")
		tmp := link + ".new"
		if err := os.Symlink(rsock, tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, link); err != nil {
			return err
		}
		note("replica promoted, clients pointed at it")
		<-ctx.Done() // one failover
		return nil
	})
	log, err := Scenario{
		Open: open,
		Workload: Workload{Clients: 6, Duration: 2500 * time.Millisecond, TTL: 3 * time.Second, Hold: 300 * time.Millisecond,
			Idle: 5 * time.Millisecond},
		Faults: []Fault{failover},
	}.Execute(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	second := must(b.Acquire("lock:w", "b1", time.Hour))
	stale := must(b.Fence("invoice", before.Fence))
	t.Logf("after the failover: lock:w granted again: %v; a fence from before the lag accepted: %v", second.OK, stale.OK)

	if v := verify(t, "every guarantee", redisModel, rec, log); !v.Locks.Illegal() {
		t.Errorf("the checker missed the double grant: %v", v)
	}
	if v := verify(t, "fence order", fencesOnly, rec, log); !v.Linearizable() {
		t.Errorf("fences went backwards: %v", v)
	}
	if !second.OK || !stale.OK {
		t.Errorf("the promoted replica had the last writes after all (granted %v, stale fence accepted %v): the demo shows nothing", second.OK, stale.OK)
	}
}
