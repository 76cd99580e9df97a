package remote

import (
	"errors"
	"fmt"
	"math/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
)

// One 3-master Redis Cluster per test binary, on loopback ports picked
// free (each node also on a unix socket, for the test's own commands),
// nothing persisted; stopped by TestMain.
var clusterOnce struct {
	sync.Once
	dir   string
	ports []int
	socks []string
	cmds  []*exec.Cmd
	err   error
}

// freePort is a loopback port free now, whose cluster bus port (+10000)
// is free too.
func freePort() (int, error) {
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if p+10000 > 65535 {
			continue
		}
		if b, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p+10000)); err == nil {
			b.Close()
			return p, nil
		}
	}
	return 0, errors.New("no free port pair")
}

// redisCluster returns the cluster's URL and its nodes' sockets, starting
// it on first use; it skips only when redis-server or redis-cli is missing.
func redisCluster(t *testing.T) (string, []string) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	cli, err2 := exec.LookPath("redis-cli")
	if err != nil || err2 != nil {
		t.Skip("redis-server or redis-cli is not installed (build/deps.sh server-tests): the Redis Cluster backend is untested here")
	}
	o := &clusterOnce
	o.Do(func() {
		if o.dir, o.err = os.MkdirTemp("", "ephpm-cluster-"); o.err != nil {
			return
		}
		var addrs []string
		for i := range 3 {
			dir := filepath.Join(o.dir, strconv.Itoa(i))
			port, err := freePort()
			if err == nil {
				err = os.Mkdir(dir, 0o700)
			}
			if err != nil {
				o.err = err
				return
			}
			sock := filepath.Join(dir, "redis.sock")
			cmd, err := startRedis(bin, dir, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
				"--unixsocket", sock, "--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"))
			if err != nil {
				o.err = err
				return
			}
			o.cmds = append(o.cmds, cmd)
			o.ports, o.socks = append(o.ports, port), append(o.socks, sock)
			addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", port))
		}
		out, err := exec.Command(cli, append(append([]string{"--cluster", "create"}, addrs...),
			"--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput()
		if err != nil {
			o.err = fmt.Errorf("redis-cli --cluster create: %v\n%s", err, out)
			return
		}
		o.err = waitClusterOK(o.socks)
	})
	if o.err != nil {
		t.Fatal(o.err)
	}
	var addrs []string
	for _, p := range o.ports {
		addrs = append(addrs, fmt.Sprintf("127.0.0.1:%d", p))
	}
	return "redis-cluster://" + strings.Join(addrs, ","), o.socks
}

// waitClusterOK waits until every node says cluster_state:ok.
func waitClusterOK(socks []string) error {
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		ok := 0
		for _, s := range socks {
			if info, err := redisTry(s, "CLUSTER", "INFO"); err == nil && strings.Contains(info, "cluster_state:ok") {
				ok++
			}
		}
		if ok == len(socks) {
			return nil
		}
		if time.Since(start) > 20*time.Second {
			return errors.New("the Redis Cluster did not reach cluster_state:ok in 20 s")
		}
	}
}

func stopCluster() {
	for _, c := range clusterOnce.cmds {
		c.Process.Kill()
		c.Wait()
	}
	if clusterOnce.dir != "" {
		os.RemoveAll(clusterOnce.dir)
	}
}

func newCluster(t *testing.T, url string) *Cluster {
	t.Helper()
	c, err := NewCluster(url, "", 5*time.Second, TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// The semantic suite on a 3-master cluster. Each master gets a third of
// the room (keys spread evenly enough over 16384 slots); fences rise per
// hash tag.
func TestRedisClusterConformance(t *testing.T) {
	url, socks := redisCluster(t)
	var limits kvtest.Config
	kvtest.Run(t, kvtest.Target{
		Open: func(t *testing.T, cfg kvtest.Config) (kv.Engine, func() kv.Engine) {
			limits = kvtest.Config{}
			for _, s := range socks {
				l := openRedisWarm(t, s, kvtest.Config{MemoryLimit: cfg.MemoryLimit / 3}, servedKey(t, s))
				limits.MemoryLimit += l.MemoryLimit
				limits.MaxValueSize = l.MaxValueSize
			}
			return newCluster(t, url), func() kv.Engine { return newCluster(t, url) }
		},
		TTLResolution: 2 * time.Millisecond,
		Limits:        func(kvtest.Config) kvtest.Config { return limits },
		ReclaimExpired: func(t *testing.T) {
			for _, s := range socks {
				reclaimRedis(t, s)
			}
		},
		MemorySlack:      3 * (256 << 10),
		FencesAreKeys:    true,
		FencesPerHashTag: true,
		FullPerSlot:      true,
	})
}

// Keys of many hash tags land on all three masters: routing is exercised,
// not one node serving everything.
func TestRedisClusterSpreadsKeys(t *testing.T) {
	url, socks := redisCluster(t)
	for _, s := range socks {
		redisCmd(t, s, "FLUSHALL")
	}
	e := newCluster(t, url)
	for i := range 30 {
		key := fmt.Sprintf("{user%d}:profile", i)
		if err := e.Set(key, []byte(key), 0); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for i, s := range socks {
		n, _ := strconv.Atoi(redisCmd(t, s, "DBSIZE"))
		if n == 0 {
			t.Fatalf("master %d holds none of 30 keys of 30 hash tags", i)
		}
		total += n
	}
	if total != 30 {
		t.Fatalf("%d keys over the masters, want 30", total)
	}
	for i := range 30 {
		key := fmt.Sprintf("{user%d}:profile", i)
		buf := make([]byte, 64)
		if n, ok, err := e.Get(key, buf); err != nil || !ok || string(buf[:n]) != key {
			t.Fatalf("Get %s: %q, %v, %v", key, buf[:n], ok, err)
		}
	}
}

// nodeID is a node's cluster id.
func nodeID(t *testing.T, sock string) string {
	return redisCmd(t, sock, "CLUSTER", "MYID")
}

// owner is the index of the socket whose node serves slot.
func owner(t *testing.T, socks []string, slot int) int {
	t.Helper()
	for i, s := range socks {
		if serves(t, s, slot) {
			return i
		}
	}
	t.Fatalf("no node serves slot %d", slot)
	return -1
}

// serves reports whether the node at sock serves slot, by its own slot map.
func serves(t *testing.T, sock string, slot int) bool {
	t.Helper()
	for _, line := range strings.Split(redisCmd(t, sock, "CLUSTER", "NODES"), "\n") {
		if !strings.Contains(line, "myself") {
			continue
		}
		for _, r := range strings.Fields(line)[8:] {
			lo, hi, found := strings.Cut(r, "-")
			if !found {
				hi = lo
			}
			l, err1 := strconv.Atoi(lo)
			h, err2 := strconv.Atoi(hi)
			if err1 == nil && err2 == nil && l <= slot && slot <= h {
				return true
			}
		}
	}
	return false
}

// servedKey is a key the node at sock serves.
func servedKey(t *testing.T, sock string) string {
	t.Helper()
	for i := 0; ; i++ {
		if k := fmt.Sprintf("warm-up-%d", i); serves(t, sock, int(slotOf(k))) {
			return k
		}
	}
}

// A slot moved to another master while in use (CLUSTER SETSLOT MIGRATING /
// IMPORTING, MIGRATE, SETSLOT NODE): the engine follows ASK during the
// move and MOVED after it, without an error, and the lock keeps its owner.
func TestRedisClusterFollowsReshard(t *testing.T) {
	url, socks := redisCluster(t)
	for _, s := range socks {
		redisCmd(t, s, "FLUSHALL")
	}
	e := newCluster(t, url)
	const lock = "{moving}lock"
	slot, _ := strconv.Atoi(redisCmd(t, socks[0], "CLUSTER", "KEYSLOT", lock))
	src := owner(t, socks, slot)
	dst := (src + 1) % 3
	srcID, dstID := nodeID(t, socks[src]), nodeID(t, socks[dst])
	f1, ok, err := e.SetNXFenced(lock, []byte("A"), time.Minute)
	if err != nil || !ok {
		t.Fatalf("SetNXFenced: %v, %v", ok, err)
	}
	sl := strconv.Itoa(slot)
	redisCmd(t, socks[dst], "CLUSTER", "SETSLOT", sl, "IMPORTING", srcID)
	redisCmd(t, socks[src], "CLUSTER", "SETSLOT", sl, "MIGRATING", dstID)
	// Migrating: a new key of the slot is created on the target (ASK).
	if ok, err := e.SetNX("{moving}new", []byte("n"), 0); err != nil || !ok {
		t.Fatalf("SetNX during migration: %v, %v", ok, err)
	}
	keys := strings.Split(redisCmd(t, socks[src], "CLUSTER", "GETKEYSINSLOT", sl, "100"), "\n")
	args := []string{"MIGRATE", "127.0.0.1", strconv.Itoa(clusterOnce.ports[dst]), "", "0", "5000", "KEYS"}
	redisCmd(t, socks[src], append(args, keys...)...)
	// Moved but the slot not yet handed over: the source answers ASK.
	if ttl, err := e.TTLIfEq(lock, []byte("A")); err != nil || ttl <= 0 {
		t.Fatalf("TTLIfEq after MIGRATE: %v, %v", ttl, err)
	}
	for _, s := range socks {
		redisCmd(t, s, "CLUSTER", "SETSLOT", sl, "NODE", dstID)
	}
	if err := waitClusterOK(socks); err != nil {
		t.Fatal(err)
	}
	// Handed over: the old owner answers MOVED, the engine follows.
	if f, ok, err := e.SetNXFenced(lock, []byte("B"), time.Minute); err != nil || ok || f != 0 {
		t.Fatalf("SetNXFenced of the held, moved lock: %d, %v, %v", f, ok, err)
	}
	if ok, err := e.DelIfEq(lock, []byte("A")); err != nil || !ok {
		t.Fatalf("DelIfEq of the moved lock: %v, %v", ok, err)
	}
	f2, ok, err := e.SetNXFenced(lock, []byte("B"), time.Minute)
	if err != nil || !ok || f2 <= f1 {
		t.Fatalf("SetNXFenced after the move: %d (before %d), %v, %v", f2, f1, ok, err)
	}
	if got := redisCmd(t, socks[dst], "GET", lock); got != "B" {
		t.Fatalf("the lock on the new owner: %q", got)
	}
}

// Nothing listening: kv.ErrUnavailable, never false from SetNX.
func TestRedisClusterUnreachable(t *testing.T) {
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	e := newCluster(t, fmt.Sprintf("redis-cluster://127.0.0.1:%d", port))
	if ok, err := e.SetNX("k", []byte("v"), time.Second); !errors.Is(err, kv.ErrUnavailable) || ok {
		t.Fatalf("SetNX with no cluster: %v, %v", ok, err)
	}
}

// A master whose maxmemory-policy evicts keys is refused, on the cluster
// and on a single node alike.
func TestRedisEvictingPolicyRefused(t *testing.T) {
	url, socks := redisCluster(t)
	redisCmd(t, socks[1], "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	defer redisCmd(t, socks[1], "CONFIG", "SET", "maxmemory-policy", "noeviction")
	if _, err := newCluster(t, url).SetNX("k", []byte("v"), time.Second); !errors.Is(err, ErrEvicting) {
		t.Fatalf("cluster with an allkeys-lru master: %v", err)
	}
	sock := redisSocket(t)
	redisCmd(t, sock, "CONFIG", "SET", "maxmemory-policy", "volatile-ttl")
	defer redisCmd(t, sock, "CONFIG", "SET", "maxmemory-policy", "noeviction")
	if _, err := newEngine(t, "unix://"+sock, "", 5*time.Second).SetNX("k", []byte("v"), time.Second); !errors.Is(err, ErrEvicting) {
		t.Fatalf("single node with volatile-ttl: %v", err)
	}
}

// Session data and lock in different slots (session:<id>, session_lock:<id>)
// and in one (a shared tag): the write lands only while the lock is ours.
func TestRedisClusterSetIfLocked(t *testing.T) {
	url, _ := redisCluster(t)
	e := newCluster(t, url)
	for _, names := range [][2]string{{"session:abc", "session_lock:abc"}, {"session:{abc}", "session_lock:{abc}"}} {
		data, lock := names[0], names[1]
		if sameSlot(data, lock) != strings.Contains(data, "{") {
			t.Fatalf("slots of %s and %s", data, lock)
		}
		e.Del(data)
		e.Del(lock)
		if ok, err := e.SetIfLocked(data, []byte("x"), 0, lock, []byte("T"), time.Minute, false); ok || err != nil {
			t.Fatalf("%s: written without the lock: %v, %v", data, ok, err)
		}
		if ok, _, _, err := kv.LockAndGet(e, lock, []byte("T"), time.Minute, data, nil); !ok || err != nil {
			t.Fatalf("LockAndGet: %v, %v", ok, err)
		}
		if ok, err := e.SetIfLocked(data, []byte("y"), 0, lock, []byte("T"), time.Minute, true); !ok || err != nil {
			t.Fatalf("%s: not written with the lock: %v, %v", data, ok, err)
		}
		buf := make([]byte, 8)
		if n, ok, _ := e.Get(data, buf); !ok || string(buf[:n]) != "y" {
			t.Fatalf("%s: %q after the write", data, buf[:n])
		}
		if ok, _ := e.Exists(lock); ok {
			t.Fatalf("%s: lock not released", lock)
		}
	}
}

// A node that lost a slot answers CLUSTERDOWN: kv.ErrUnavailable (nothing
// ran), never false from SetNX; served again, the same call works.
func TestRedisClusterDownIsUnavailable(t *testing.T) {
	url, socks := redisCluster(t)
	e := newCluster(t, url)
	const key = "{down}lock"
	if _, err := e.Del(key); err != nil { // routes, learns the slot map
		t.Fatal(err)
	}
	slot := int(slotOf(key))
	i := owner(t, socks, slot)
	redisCmd(t, socks[i], "CLUSTER", "DELSLOTS", strconv.Itoa(slot))
	restored := false
	restore := func() {
		if !restored {
			restored = true
			redisCmd(t, socks[i], "CLUSTER", "ADDSLOTS", strconv.Itoa(slot))
			if err := waitClusterOK(socks); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer restore()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if info := redisCmd(t, socks[i], "CLUSTER", "INFO"); strings.Contains(info, "cluster_state:fail") {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the node never said cluster_state:fail")
		}
	}
	ok, err := e.SetNX(key, []byte("v"), time.Minute)
	if !errors.Is(err, kv.ErrUnavailable) || ok || !strings.Contains(err.Error(), "CLUSTERDOWN") {
		t.Fatalf("SetNX on a cluster that is down: %v, %v", ok, err)
	}
	restore()
	if ok, err := e.SetNX(key, []byte("v"), time.Minute); err != nil || !ok {
		t.Fatalf("SetNX once served again: %v, %v", ok, err)
	}
}

// Addresses: a list of host:port seeds; anything else is refused.
func TestNewClusterAddress(t *testing.T) {
	for _, bad := range []string{"redis-cluster://", "redis-cluster://h", "redis-cluster://127.0.0.1:1,,127.0.0.1:2",
		"redis-cluster://127.0.0.1:0", "redis-cluster://::1:7000", "redis://127.0.0.1:7000"} {
		if _, err := NewCluster(bad, "", time.Second, TLSFiles{}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := NewCluster("redis-cluster://127.0.0.1:7000", "", time.Second, TLSFiles{CAFile: "/x"}); err == nil {
		t.Error("TLS settings accepted without rediss-cluster://")
	}
	for _, good := range []string{"redis-cluster://127.0.0.1:7000", "redis-cluster://a:1,[::1]:2,b.example:3"} {
		if _, err := NewCluster(good, "", time.Second, TLSFiles{}); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	if !IsClusterAddress("rediss-cluster://a:1") || IsClusterAddress("redis://a:1") {
		t.Error("IsClusterAddress")
	}
}

// rediss-cluster://: a 3-master cluster that speaks only TLS (clients and
// its bus), verified against the test's CA; the wrong CA is unavailable.
func TestRedisClusterTLS(t *testing.T) {
	certs := makeCerts(t)
	bin, err := exec.LookPath("redis-server")
	cli, err2 := exec.LookPath("redis-cli")
	if err != nil || err2 != nil {
		t.Skip("redis-server or redis-cli is not installed: the Redis Cluster backend is untested here")
	}
	var addrs, socks []string
	for i := range 3 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		sock := filepath.Join(dir, "admin.sock")
		cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock, "--tls-port", strconv.Itoa(port),
			"--bind", "127.0.0.1", "--tls-cert-file", certs["server.crt"], "--tls-key-file", certs["server.key"],
			"--tls-ca-cert-file", certs["ca"], "--tls-auth-clients", "no", "--tls-cluster", "yes",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"))
		if err != nil {
			t.Fatal(i, err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		addrs, socks = append(addrs, fmt.Sprintf("127.0.0.1:%d", port)), append(socks, sock)
	}
	args := append([]string{"--tls", "--cacert", certs["ca"], "--cluster", "create"}, addrs...)
	if out, err := exec.Command(cli, append(args, "--cluster-replicas", "0", "--cluster-yes")...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create over TLS: %v\n%s", err, out)
	}
	if err := waitClusterOK(socks); err != nil {
		t.Fatal(err)
	}
	url := "rediss-cluster://" + strings.Join(addrs, ",")
	e, err := NewCluster(url, "", 5*time.Second, TLSFiles{CAFile: certs["ca"]})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := range 10 {
		key := fmt.Sprintf("{tls%d}lock", i)
		if f, ok, err := e.SetNXFenced(key, []byte("A"), time.Minute); err != nil || !ok || f <= 0 {
			t.Fatalf("SetNXFenced %s over TLS: %d, %v, %v", key, f, ok, err)
		}
		if ok, err := e.DelIfEq(key, []byte("A")); err != nil || !ok {
			t.Fatalf("DelIfEq %s over TLS: %v, %v", key, ok, err)
		}
	}
	wrong, err := NewCluster(url, "", 5*time.Second, TLSFiles{CAFile: certs["other-ca"]})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if ok, err := wrong.SetNX("k", []byte("v"), time.Minute); !errors.Is(err, kv.ErrUnavailable) || ok {
		t.Fatalf("SetNX against a cluster whose certificate the CA did not sign: %v, %v", ok, err)
	}
}

// A SET NX that timed out (its node SIGSTOPped) is not sent again: the
// node, resumed, ran it once, and the caller got kv.ErrUnavailable (it may
// have happened: it did), not a "held" from its own second attempt.
func TestRedisClusterSendsOnce(t *testing.T) {
	url, socks := redisCluster(t)
	c, err := NewCluster(url, "", 300*time.Millisecond, TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const key = "{once}lock"
	// Several pooled connections to the node (concurrent calls), so a
	// resend would not need a new one (whose own setup would time out
	// first and hide it).
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				c.Exists(key)
			}
		})
	}
	wg.Wait()
	i := owner(t, socks, int(slotOf(key)))
	redisCmd(t, socks[i], "CONFIG", "RESETSTAT")
	pid := clusterOnce.cmds[i].Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	ok, err := c.SetNX(key, []byte("v"), time.Minute)
	syscall.Kill(pid, syscall.SIGCONT)
	resumed = true
	if !errors.Is(err, kv.ErrUnavailable) || ok {
		t.Fatalf("SetNX on a stopped node: %v, %v", ok, err)
	}
	var calls int
	for start := time.Now(); time.Since(start) < time.Second; time.Sleep(50 * time.Millisecond) {
		calls = commandStats(t, socks[i])["set"]
	}
	if calls != 1 {
		t.Fatalf("the stopped node ran SET %d times, want once", calls)
	}
	if got := redisCmd(t, socks[i], "GET", key); got != "v" {
		t.Fatalf("the lock after the timed-out SetNX: %q", got)
	}
}

// A Redis that does not allow CONFIG (renamed away, as managed services
// do) cannot say its policy: it is used as it is, not refused.
func TestRedisWithoutConfigAllowed(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "r.sock")
	cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock,
		"--maxmemory-policy", "allkeys-lru", "--rename-command", "CONFIG", "HIDDEN-CONFIG")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if _, err := redisTry(sock, "CONFIG", "GET", "maxmemory-policy"); err == nil {
		t.Fatal("CONFIG still answers")
	}
	if p := redisCmd(t, sock, "HIDDEN-CONFIG", "GET", "maxmemory-policy"); p != "maxmemory-policy\nallkeys-lru" {
		t.Fatalf("policy %q", p)
	}
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	if ok, err := e.SetNX("k", []byte("v"), time.Minute); err != nil || !ok {
		t.Fatalf("SetNX on a Redis without CONFIG: %v, %v", ok, err)
	}
}

// A lock name with a '}' and no hash tag cannot share its fence counter's
// slot: refused (ErrNoSlot), nothing taken; a plain SetNX of it works.
func TestRedisClusterFenceNameWithoutSlot(t *testing.T) {
	url, _ := redisCluster(t)
	e := newCluster(t, url)
	for _, name := range []string{"a}b", "x{}y"} {
		e.Del(name)
		if f, ok, err := e.SetNXFenced(name, []byte("A"), time.Minute); !errors.Is(err, ErrNoSlot) || ok || f != 0 {
			t.Fatalf("SetNXFenced %q: %d, %v, %v", name, f, ok, err)
		}
		if f, ok, err := e.LeaseAcquire(name, []byte("A"), kv.LeaseShared, 0, time.Minute, 0); !errors.Is(err, ErrNoSlot) || ok || f != 0 {
			t.Fatalf("LeaseAcquire %q: %d, %v, %v", name, f, ok, err)
		}
		if found, _ := e.Exists(name); found {
			t.Fatalf("%q taken by a refused SetNXFenced or LeaseAcquire", name)
		}
		if ok, err := e.SetNX(name, []byte("A"), time.Minute); !ok || err != nil {
			t.Fatalf("SetNX %q: %v, %v", name, ok, err)
		}
	}
	if f, ok, err := e.SetNXFenced("{t}a}b", []byte("A"), time.Minute); err != nil || !ok || f <= 0 {
		t.Fatalf("SetNXFenced with a tag and a '}': %d, %v, %v", f, ok, err)
	}
	if f, ok, err := e.LeaseAcquire("{t}c}d", []byte("A"), kv.LeaseShared, 0, time.Minute, 0); err != nil || !ok || f <= 0 {
		t.Fatalf("LeaseAcquire with a tag and a '}': %d, %v, %v", f, ok, err)
	}
}

// A value kept for Get's second call (the first one's buffer was too
// small) does not outlive a Flush: read again, the key is gone.
func TestRedisClusterFlushDropsKeptValue(t *testing.T) {
	url, _ := redisCluster(t)
	e := newCluster(t, url)
	if err := e.Set("{kept}big", []byte("0123456789"), 0); err != nil {
		t.Fatal(err)
	}
	if n, found, err := e.Get("{kept}big", make([]byte, 2)); n != 10 || !found || err != nil {
		t.Fatalf("Get with a small buffer: %d, %v, %v", n, found, err)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, found, err := e.Get("{kept}big", buf); found || err != nil {
		t.Fatalf("Get after Flush: %q, %v, %v", buf[:n], found, err)
	}
}

// The slot the engine computes for a name, and its fence counter's slot,
// are the server's (CLUSTER KEYSLOT) for names made of '{', '}' and a
// letter: empty tags, nested and unclosed braces, tags at either end. A
// name whose counter cannot share its slot is refused, never sent.
func TestRedisClusterSlotsMatchServer(t *testing.T) {
	_, socks := redisCluster(t)
	r := rand.New(rand.NewSource(1))
	const alpha = "{}a"
	for range 1000 {
		b := make([]byte, 1+r.Intn(7))
		for j := range b {
			b[j] = alpha[r.Intn(len(alpha))]
		}
		lock := string(b)
		want := redisCmd(t, socks[0], "CLUSTER", "KEYSLOT", lock)
		if got := strconv.Itoa(int(slotOf(lock))); got != want {
			t.Errorf("slot of %q: %s, the server says %s", lock, got, want)
		}
		if counter, ok := clusterFenceCounter(lock); ok {
			if got := redisCmd(t, socks[0], "CLUSTER", "KEYSLOT", counter); got != want {
				t.Errorf("%q in slot %s, its counter %q in %s", lock, want, counter, got)
			}
		}
	}
}
