package lincheck

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"golang.org/x/sys/unix"

	"github.com/ephpm/ephpm-kv/kv"
)

// A 3-member etcd cluster (Debian's etcd-server, heartbeat 50 ms, election
// timeout 500 ms: build/etcd-cluster.sh) whose members are Procs of the
// test, so faults can stop, kill and restart them on their data dirs.

// etcdModel is what the etcd backend promises. Fences are create
// revisions: one counter for the whole cluster (EngineWide). Expiry has a
// lower bound only: a lease never ends before its TTL from the call (it is
// granted inside the call, and a new leader only lengthens leases), but a
// leader change gives every live lease its whole TTL again, plus an
// election timeout (etcd 3.4's lessor.Promote; lease checkpoints are off by
// default), so under leader changes a lock may outlive its TTL by any
// number of TTLs. A Slack longer than the runs says so: past its TTL a lock
// may be held or gone, never gone before. An acquisition whose outcome was
// unknown is taken back by its engine (go/etcdkv/undo.go): LostUndone.
var etcdModel = Config{FenceDomain: EngineWide, Slack: time.Hour, Guarantees: All, LostUndone: true}

// etcdTTL is every acquisition's and refresh's TTL. Longer than the cluster's
// shortest lease (1 s) and than the outages, so locks change hands by release,
// and by expiry only for the holders that overrun it.
const etcdTTL = 3 * time.Second

// etcdTimeout is each client's (ephpm.server_timeout): an acquisition is
// two commits (lease grant, txn); a loaded two-core machine needs room.
const etcdTimeout = 250 * time.Millisecond

type etcdCluster struct {
	url     string // etcd://host:port,...
	members []*Proc
	cl      *clientv3.Client // for Status only
	eps     []string
}

// etcdPort is the first of six free loopback ports (held while probed,
// then let go for the members), as etcd-cluster.sh's "auto" picks them;
// EPHPM_LINCHECK_ETCD_PORT fixes it.
func etcdPort(t *testing.T) int {
	if p, err := strconv.Atoi(os.Getenv("EPHPM_LINCHECK_ETCD_PORT")); err == nil {
		return p
	}
next:
	for range 200 {
		base := 20000 + 8*rand.IntN(1250)
		var held []net.Listener
		for p := base; p < base+6; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				for _, h := range held {
					h.Close()
				}
				continue next
			}
			held = append(held, l)
		}
		for _, h := range held {
			h.Close()
		}
		return base
	}
	t.Fatal("no six free ports in a row")
	return 0
}

func startEtcd(t *testing.T) *etcdCluster {
	t.Helper()
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Skip("etcd is not installed (build/deps.sh etcd)")
	}
	script, err := filepath.Abs("../../build/etcd-cluster.sh")
	if err != nil {
		t.Fatal(err)
	}
	tmp := "/dev/shm" // etcd fsyncs every commit: tmpfs keeps that cheap
	if _, err := os.Stat(tmp); err != nil {
		tmp = ""
	}
	dir, err := os.MkdirTemp(tmp, "ephpm-lincheck-etcd-")
	if err != nil {
		t.Fatal(err)
	}
	base := strconv.Itoa(etcdPort(t))
	out, err := exec.Command(script, "init", dir, base).Output()
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("etcd-cluster.sh init: %v", err)
	}
	c := &etcdCluster{eps: strings.Split(strings.TrimSpace(string(out)), ",")}
	c.url = "etcd://" + strings.Join(c.eps, ",")
	c.cl, err = clientv3.New(clientv3.Config{Endpoints: c.eps, DialTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	for i, ep := range c.eps {
		c.members = append(c.members, &Proc{
			Name: fmt.Sprintf("m%d", i+1),
			Path: script,
			Args: []string{"member", dir, strconv.Itoa(i + 1), base},
			// Serving: the member knows a leader.
			Ready: func() error {
				st, err := c.status(ep)
				if err == nil && st.Leader == 0 {
					err = errors.New("no leader")
				}
				return err
			},
		})
	}
	t.Cleanup(func() {
		for _, m := range c.members {
			m.Stop()
		}
		c.cl.Close()
		os.RemoveAll(dir)
	})
	// Together: a member alone has no leader to know.
	errs := make([]error, len(c.members))
	var wg sync.WaitGroup
	for i, m := range c.members {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = m.Start() }()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *etcdCluster) status(ep string) (*clientv3.StatusResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	return c.cl.Status(ctx, ep)
}

// leader is the member that says it leads, among those not in skip,
// waited for up to 5 s (an election may be under way).
func (c *etcdCluster) leader(skip ...*Proc) (*Proc, error) {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for i, ep := range c.eps {
			if containsProc(skip, c.members[i]) {
				continue
			}
			if st, err := c.status(ep); err == nil && st.Leader == st.Header.MemberId {
				return c.members[i], nil
			}
		}
	}
	return nil, errors.New("no member leads")
}

func containsProc(ps []*Proc, p *Proc) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// follower is a member other than l.
func (c *etcdCluster) follower(l *Proc, k int) *Proc {
	var others []*Proc
	for _, m := range c.members {
		if m != l {
			others = append(others, m)
		}
	}
	return others[k%len(others)]
}

// outages records when each fault struck and healed, on the history's
// clock, for the direct assertions.
type outages struct {
	clock      func() int64
	mu         sync.Mutex
	strikes    []int64
	heals      []int64 // one per strike, once healed
	quorumless []int   // the strikes that left no quorum
	elections  int     // leader SIGSTOPs during which another member took over
	leaders    int     // SIGKILLs that hit the leader
}

func (o *outages) strike() { o.mu.Lock(); o.strikes = append(o.strikes, o.clock()); o.mu.Unlock() }
func (o *outages) heal()   { o.mu.Lock(); o.heals = append(o.heals, o.clock()); o.mu.Unlock() }

type strike func(ctx context.Context, note func(string, ...any)) error

// stopLeader SIGSTOPs the leader for length (over the election timeout),
// and longer if need be, until another member is elected.
func (c *etcdCluster) stopLeader(o *outages, length time.Duration) strike {
	return func(ctx context.Context, note func(string, ...any)) error {
		l, err := c.leader()
		if err != nil {
			return err
		}
		if err := l.Pause(); err != nil {
			return err
		}
		o.strike()
		note("SIGSTOP %s, the leader", l.Name)
		sleep(ctx, length)
		if ctx.Err() == nil {
			if n, err := c.leader(l); err == nil {
				o.mu.Lock()
				o.elections++
				o.mu.Unlock()
				note("%s elected", n.Name)
			}
		}
		o.heal()
		if err := l.Resume(); err != nil {
			return err
		}
		note("SIGCONT %s", l.Name)
		return nil
	}
}

// killMember kill -9s the leader, then a follower, alternately, and
// restarts it on its data dir after down.
func (c *etcdCluster) killMember(o *outages, down time.Duration) strike {
	k := 0
	return func(ctx context.Context, note func(string, ...any)) error {
		l, err := c.leader()
		if err != nil {
			return err
		}
		victim, role := l, "the leader"
		if k++; k%2 == 0 {
			victim, role = c.follower(l, k/2), "a follower"
		} else {
			o.mu.Lock()
			o.leaders++
			o.mu.Unlock()
		}
		if err := victim.Kill(); err != nil {
			return err
		}
		o.strike()
		note("SIGKILL %s, %s", victim.Name, role)
		time.Sleep(down) // not cut short: the member must come back
		if err := victim.Start(); err != nil {
			return err
		}
		o.heal()
		note("restarted %s on its data dir (pid %d), serving", victim.Name, victim.Pid())
		return nil
	}
}

// noQuorum SIGSTOPs two members (the leader and a follower, then both
// followers, alternately) for length.
func (c *etcdCluster) noQuorum(o *outages, length time.Duration) strike {
	k := 0
	return func(ctx context.Context, note func(string, ...any)) error {
		l, err := c.leader()
		if err != nil {
			return err
		}
		stopped := []*Proc{l, c.follower(l, k)}
		if k%2 == 1 {
			stopped = []*Proc{c.follower(l, 0), c.follower(l, 1)}
		}
		k++
		for _, m := range stopped {
			if err := m.Pause(); err != nil {
				return err
			}
		}
		o.strike()
		o.mu.Lock()
		o.quorumless = append(o.quorumless, len(o.strikes)-1)
		o.mu.Unlock()
		note("SIGSTOP %s and %s: no quorum", stopped[0].Name, stopped[1].Name)
		sleep(ctx, length)
		o.heal()
		for _, m := range stopped {
			if err := m.Resume(); err != nil {
				return err
			}
		}
		note("SIGCONT %s and %s", stopped[0].Name, stopped[1].Name)
		return nil
	}
}

// sequence runs the strikes one after the other, gap before each, once.
func sequence(name string, gap time.Duration, strikes ...strike) Fault {
	return Fault{Name: name, Inject: func(ctx context.Context, note func(string, ...any)) error {
		for _, s := range strikes {
			if sleep(ctx, gap); ctx.Err() != nil {
				return nil
			}
			if err := s(ctx, note); err != nil {
				return err
			}
		}
		return nil
	}}
}

// grants are the acquisitions known to be granted.
func grants(h []porcupine.Operation) []porcupine.Operation {
	var g []porcupine.Operation
	for _, op := range h {
		if in, out := op.Input.(Input), op.Output.(Output); in.Kind == Acquire && !out.Unknown && out.OK {
			g = append(g, op)
		}
	}
	return g
}

// fencesRiseAcross asserts directly what the model checks among the rest:
// every fence granted after a fault struck is above every fence granted
// before it. It returns how many grants came after a strike.
func fencesRiseAcross(t *testing.T, h []porcupine.Operation, strikes []int64) int {
	t.Helper()
	g := grants(h)
	after := 0
	for i, s := range strikes {
		var before int64
		for _, op := range g {
			if op.Return < s {
				before = max(before, op.Output.(Output).Fence)
			}
		}
		n, low := 0, int64(math.MaxInt64)
		for _, op := range g {
			if op.Call > s {
				n++
				low = min(low, op.Output.(Output).Fence)
			}
		}
		if n > 0 && low <= before {
			t.Errorf("fault %d: fence %d granted after it, %d before it", i+1, low, before)
		}
		if n == 0 && i == 0 {
			t.Errorf("no grant after the first fault: the cluster did not serve again")
		}
		after += n
	}
	return after
}

// answeredWithoutQuorum returns the operations called after two members
// were stopped that returned an answer before they resumed: none may
// (every operation, reads too, needs the quorum).
func answeredWithoutQuorum(h []porcupine.Operation, o *outages) []porcupine.Operation {
	var bad []porcupine.Operation
	for _, i := range o.quorumless {
		if i >= len(o.heals) {
			continue
		}
		for _, op := range h {
			if !op.Output.(Output).Unknown && op.Call > o.strikes[i] && op.Return < o.heals[i] {
				bad = append(bad, op)
			}
		}
	}
	return bad
}

// reader reads keys all along, with a client of its own: the workload
// reads only after a refusal it knows of, which an outage never gives.
// It runs beside the faults, until the run ends.
func reader(open Opener, rec *Recorder, keys ...string) Fault {
	return Fault{Name: "reader", Inject: func(ctx context.Context, _ func(string, ...any)) error {
		e, err := open(100)
		if err != nil {
			return err
		}
		defer closeEngine(e)
		c := &Client{ID: 100, E: e, Rec: rec}
		for i := 0; ctx.Err() == nil; i++ {
			if _, err := c.Get(keys[i%len(keys)]); err != nil {
				return err
			}
			sleep(ctx, 20*time.Millisecond)
		}
		return nil
	}}
}

// etcdRun runs the Go workload (each client its own engine and
// connection) on c under faults and checks it.
func etcdRun(t *testing.T, c *etcdCluster, w Workload, faults func(*outages, *Recorder) []Fault) (Verdict, *Recorder, *outages) {
	t.Helper()
	rec := NewRecorder()
	o := &outages{clock: rec.Now}
	log, err := Scenario{Open: openURL(t, c.url, etcdTimeout), Workload: w, Faults: faults(o, rec)}.Execute(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range log {
		t.Log(l)
	}
	return verify(t, "every guarantee", etcdModel, rec, nil), rec, o
}

var etcdWorkload = Workload{Clients: 6, TTL: etcdTTL, Hold: 20 * time.Millisecond, Overrun: 0.01, Idle: 5 * time.Millisecond}

// etcdLinearizable asserts zero violations, and that the run granted at
// least minGrants locks and had calls time out.
func etcdLinearizable(t *testing.T, v Verdict, rec *Recorder, o *outages, minGrants int) {
	t.Helper()
	if !v.Linearizable() {
		t.Errorf("etcd: %v", v)
	}
	if v.Locks.Unknown == 0 || v.Locks.Granted < minGrants {
		t.Errorf("the faults did not bite or the workload did not run: %v", v.Locks)
	}
	after := fencesRiseAcross(t, rec.History(), o.strikes)
	t.Logf("%d faults; fences of the %d grants after a fault checked against those before it", len(o.strikes), after)
}

// TestEtcdLeaderStoppedIsLinearizable checks linearizability with the leader
// SIGSTOPped every 2.5 s for 1 s (twice the election timeout) and until another
// member is elected; the old one rejoins as a follower when it continues.
func TestEtcdLeaderStoppedIsLinearizable(t *testing.T) {
	faultTest(t)
	c := startEtcd(t)
	w := etcdWorkload
	w.Duration = 6 * time.Second
	v, rec, o := etcdRun(t, c, w, func(o *outages, _ *Recorder) []Fault {
		return []Fault{Every("SIGSTOP the leader", 1500*time.Millisecond, c.stopLeader(o, time.Second))}
	})
	etcdLinearizable(t, v, rec, o, 100)
	if o.elections < 2 {
		t.Errorf("%d leader elections during %d SIGSTOPs: the fault did not force them", o.elections, len(o.strikes))
	}
}

// TestEtcdMemberKilledIsLinearizable checks linearizability under kill -9 of
// the leader, then of a follower, every 2.5 s; each restarts on its data dir
// 0.5 s later.
func TestEtcdMemberKilledIsLinearizable(t *testing.T) {
	faultTest(t)
	c := startEtcd(t)
	w := etcdWorkload
	w.Duration = 7500 * time.Millisecond
	v, rec, o := etcdRun(t, c, w, func(o *outages, _ *Recorder) []Fault {
		return []Fault{Every("SIGKILL a member", 2*time.Second, c.killMember(o, 500*time.Millisecond))}
	})
	etcdLinearizable(t, v, rec, o, 100)
	if len(o.strikes) < 2 || o.leaders < 1 {
		t.Errorf("%d kills, %d of the leader: want 2, 1", len(o.strikes), o.leaders)
	}
}

// TestEtcdNoQuorumIsLinearizable checks linearizability with two members of
// three SIGSTOPped for 1.5 s, every 3 s. Meanwhile every call times out
// (maybe-happened), none is answered. An acquisition that timed out may commit
// once the members continue, after its client gave up on it: its lock is held
// until its lease runs out (renewed by the new leader), so six keys, and a run
// that lasts past such leases.
func TestEtcdNoQuorumIsLinearizable(t *testing.T) {
	faultTest(t)
	c := startEtcd(t)
	w := etcdWorkload
	w.Duration = 8 * time.Second
	w.Keys = []string{"lock:a", "lock:b", "lock:c", "lock:d", "lock:e", "lock:f"}
	v, rec, o := etcdRun(t, c, w, func(o *outages, rec *Recorder) []Fault {
		return []Fault{Every("no quorum", 1500*time.Millisecond, c.noQuorum(o, 1500*time.Millisecond)),
			reader(openURL(t, c.url, etcdTimeout), rec, w.Keys...)}
	})
	etcdLinearizable(t, v, rec, o, 100)
	if len(o.quorumless) < 1 {
		t.Fatal("no outage ran")
	}
	for _, op := range answeredWithoutQuorum(rec.History(), o) {
		in := op.Input.(Input)
		t.Errorf("answered without a quorum: %s", describe(in, op.Output.(Output)))
	}
}

// monotonicNow is CLOCK_MONOTONIC in ns, the clock of PHP's hrtime() and
// so of the workers' logs.
func monotonicNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(err)
	}
	return ts.Nano()
}

// TestEtcdPHPProcessesAreLinearizable checks linearizability of 4 PHP processes
// through the extension (Ephpm\Lock, ephpm_kv_fence, ephpm_kv_get with
// ephpm.server=etcd://...) for 9 s, while the leader is SIGSTOPped for 1.5 s,
// then the leader is kill -9ed and restarted, then two members are stopped for
// 1.5 s. 5% of the holders overrun their 3 s TTL. An acquisition that threw has
// no token to give back (worker.php): only its lease ends it.
func TestEtcdPHPProcessesAreLinearizable(t *testing.T) {
	faultTest(t)
	c := startEtcd(t)
	o := &outages{clock: monotonicNow}
	f := sequence("leader SIGSTOP, leader kill -9, no quorum", 1500*time.Millisecond,
		c.stopLeader(o, time.Second), c.killMember(o, 500*time.Millisecond), c.noQuorum(o, 1500*time.Millisecond))
	rec, faults := phpWorkersFor(t, phpRun{seconds: "9", timeout: "0.25"}, c.url, 4, "3", "5", "del_if_eq", &f)
	for _, l := range faults {
		t.Log(l)
	}
	v := verify(t, "every guarantee", etcdModel, rec, nil)
	etcdLinearizable(t, v, rec, o, 40) // 4 processes, some holding 3-6 s
	if len(o.strikes) != 3 || o.elections != 1 || o.leaders != 1 {
		t.Errorf("%d faults, %d elections, %d leader kills: want 3, 1, 1", len(o.strikes), o.elections, o.leaders)
	}
	for _, op := range answeredWithoutQuorum(rec.History(), o) {
		t.Errorf("answered without a quorum: %s", describe(op.Input.(Input), op.Output.(Output)))
	}
}

// TestEtcdBrokenLocksAreCaught checks that the checker reports wrappers of the
// etcd engine that each get one thing wrong (broken_test.go's), under the same
// faults.
func TestEtcdBrokenLocksAreCaught(t *testing.T) {
	faultTest(t)
	c := startEtcd(t)
	var fences atomic.Int64
	for _, b := range []struct {
		name string
		w    Workload
		wrap func(kv.Engine) kv.Engine
		// fault, given the outages to record into
		fault func(*outages) Fault
	}{
		// Holders overrunning their TTL, then deleting the next holder's
		// lock; the leader killed meanwhile.
		{"release with a plain Delete",
			Workload{Clients: 6, Duration: 6 * time.Second, TTL: etcdTTL, Hold: 20 * time.Millisecond, Overrun: 0.3, Idle: 5 * time.Millisecond},
			func(e kv.Engine) kv.Engine { return blindRelease{e} },
			func(o *outages) Fault {
				return sequence("SIGKILL the leader", 1500*time.Millisecond, c.killMember(o, 500*time.Millisecond))
			}},
		// Two clients see the key absent and both put it; the leader
		// stopped meanwhile.
		{"acquire with a Get then a Put", Workload{Clients: 6, Duration: 3 * time.Second, TTL: etcdTTL, Idle: 5 * time.Millisecond},
			func(e kv.Engine) kv.Engine { return getThenSet{e, &fences} },
			func(o *outages) Fault {
				return sequence("SIGSTOP the leader", time.Second, c.stopLeader(o, time.Second))
			}},
	} {
		t.Run(b.name, func(t *testing.T) {
			open := openURL(t, c.url, etcdTimeout)
			var mu sync.Mutex
			var engines []kv.Engine
			defer func() {
				for _, e := range engines {
					closeEngine(e)
				}
			}()
			rec := NewRecorder()
			o := &outages{clock: rec.Now}
			log, err := Scenario{
				Open: func(i int) (kv.Engine, error) {
					e, err := open(i)
					if err != nil {
						return nil, err
					}
					mu.Lock()
					engines = append(engines, e)
					mu.Unlock()
					return b.wrap(e), nil
				},
				Workload: b.w,
				Faults:   []Fault{b.fault(o)},
			}.Execute(context.Background(), rec)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range log {
				t.Log(l)
			}
			if len(o.heals) != 1 {
				t.Errorf("the fault did not run: %v", log)
			}
			if v := verify(t, "every guarantee", etcdModel, rec, nil); !v.Illegal() {
				t.Errorf("a broken lock on etcd passed: %v", v)
			}
		})
	}
}
