package remote

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
	"github.com/ephpm/ephpm-kv/server"
)

// The fence counter is a key another client can write. A value the
// script's doubles cannot carry exactly (not a decimal integer, or 2^53
// and up) must be refused before the lock is taken: taken anyway, the
// lock would be held by a caller told it failed, and the fence would not
// rise (2^53 + 1 is 2^53 in a double) or would not parse.
func TestRedisFenceCounterClobbered(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	for _, bad := range []string{"1e300", "9007199254740993", "9223372036854775807", "abc", "0x10", " 5", "-3", "1.5"} {
		redisCmd(t, sock, "SET", fenceCounterKey, bad)
		f, ok, err := e.SetNXFenced("lock", []byte("A"), time.Minute)
		if ok || err == nil || !errors.Is(err, kv.ErrNotInteger) || !strings.Contains(err.Error(), fenceCounterKey) {
			t.Errorf("counter %q: SetNXFenced = %d, %v, %v; want kv.ErrNotInteger naming %s", bad, f, ok, err, fenceCounterKey)
		}
		if v, _ := redisTry(sock, "EXISTS", "lock"); v != "0" {
			t.Errorf("counter %q: the lock was taken by a call that failed", bad)
			redisCmd(t, sock, "DEL", "lock")
		}
	}
	// A counter just under 2^53 still works, and the next is higher.
	redisCmd(t, sock, "SET", fenceCounterKey, "9007199254740990")
	f, ok, err := e.SetNXFenced("lock", []byte("A"), time.Minute)
	if !ok || err != nil || f != 9007199254740991 {
		t.Fatalf("counter 2^53-2: %d, %v, %v; want 2^53-1", f, ok, err)
	}
	// The next would be 2^53, where a double stops counting by one.
	if f, ok, err := e.SetNXFenced("lock2", []byte("A"), time.Minute); ok || !errors.Is(err, kv.ErrNotInteger) {
		t.Fatalf("counter 2^53-1: %d, %v, %v; want kv.ErrNotInteger", f, ok, err)
	}
}

// A live key's TTL is never 0 (which, given back to Expire, means "no
// expiry"): the store says a positive time until the key is gone. Redis
// answers PTTL 0 in the last millisecond (the key lives while now is at
// its deadline); the client rounds that up to one millisecond.
func TestRedisTTLOfLiveKeyNeverZero(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	checkTTLNeverZero(t, newEngine(t, "unix://"+sock, "", 5*time.Second))
}

// The same on an ephpm-kv server, whose PTTL rounds to the nearest
// millisecond: 0 in the last half.
func TestServerTTLOfLiveKeyNeverZero(t *testing.T) {
	checkTTLNeverZero(t, newEngine(t, startServer(t, server.Config{}), "", 5*time.Second))
}

func checkTTLNeverZero(t *testing.T, e *Engine) {
	tok := []byte("A")
	zeros := 0
	for round := 0; round < 20; round++ {
		if err := e.Set("k", tok, 2*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			ttl, err := e.TTL("k")
			if err != nil {
				t.Fatal(err)
			}
			if ttl == 0 {
				zeros++
			}
			ttlEq, err := e.TTLIfEq("k", tok)
			if err != nil {
				t.Fatal(err)
			}
			if ttlEq == 0 {
				zeros++
			}
			if ttl == kv.TTLMissing && ttlEq == kv.TTLMissing {
				break
			}
			if i > 100000 {
				t.Fatal("a key of TTL 2 ms still there")
			}
		}
	}
	if zeros > 0 {
		t.Fatalf("a live key's TTL read as 0 (no expiry) %d times", zeros)
	}
}

const luaSetIfEq = `
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return false end
return redis.call('SET', KEYS[1], ARGV[1], unpack(ARGV, 3))`

// valkeyLike is a proxy to the Redis at sock that also runs DELIFEQ (as
// Valkey 9 does), so the client meets a server that knows DELIFEQ but not
// the EPHPM.* commands; it returns its socket and how many DELIFEQs ran.
func valkeyLike(t *testing.T, sock string) (string, *atomic.Int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "valkey.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var delIfEqs atomic.Int64
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				upc, err := net.Dial("unix", sock)
				if err != nil {
					return
				}
				defer upc.Close()
				in, up := newClient(nc), newClient(upc)
				for {
					h, err := in.read()
					if err != nil || h.kind != '*' {
						return
					}
					var args [][]byte
					for i := int64(0); i < h.n; i++ {
						a, err := in.read()
						if err != nil {
							return
						}
						args = append(args, bytes.Clone(a.data))
					}
					if len(args) == 3 && strings.EqualFold(string(args[0]), "DELIFEQ") {
						delIfEqs.Add(1)
						args = [][]byte{[]byte("EVAL"), []byte(scriptDelIfEq.src), []byte("1"), args[1], args[2]}
					}
					if len(args) >= 5 && strings.EqualFold(string(args[0]), "SET") && strings.EqualFold(string(args[3]), "IFEQ") {
						// SET key value IFEQ cmp [options]: Valkey's SET, so
						// refused over maxmemory (denyoom) as any SET is.
						args = append([][]byte{[]byte("EVAL"), []byte(luaSetIfEq), []byte("1"), args[1], args[2], args[4]}, args[5:]...)
					}
					up.command(len(args))
					for _, a := range args {
						up.argBytes(a)
					}
					if up.flush() != nil {
						return
					}
					var out []byte
					var relay func() error
					relay = func() error {
						r, err := up.read()
						if err != nil {
							return err
						}
						out = append(out, r.kind)
						switch r.kind {
						case '+', '-':
							out = append(out, r.data...)
						default:
							out = strconv.AppendInt(out, r.n, 10)
						}
						out = append(out, "\r\n"...)
						if r.kind == '$' && r.n >= 0 {
							out = append(append(out, r.data...), "\r\n"...)
						}
						for i := int64(0); r.kind == '*' && i < r.n; i++ {
							if err := relay(); err != nil {
								return err
							}
						}
						return nil
					}
					if relay() != nil {
						return
					}
					if _, err := nc.Write(out); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "unix://" + path, &delIfEqs
}

// A session's write with release, the first dialect-dependent command on a
// new connection (the last one was dropped after a failure: the value limit
// is still known, so nothing was asked first). Its ephpm-kv pipeline
// (EPHPM.SETIFLOCKED, then DELIFEQ) must not reach a server that runs the
// DELIFEQ but not the write: that released the lock, then the retry in the
// server's dialect found it gone and wrote nothing.
func TestSetIfLockedReleaseOnNewConnectionToValkey(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	url, delIfEqs := valkeyLike(t, sock)
	e := newEngine(t, url, "", 5*time.Second)
	tok := []byte("tok")
	if ok, err := e.SetNX("lock", tok, time.Minute); !ok || err != nil {
		t.Fatalf("SetNX: %v, %v", ok, err)
	}
	e.Close() // as after a timeout: the next call dials
	written, err := e.SetIfLocked("data", []byte("v"), 0, "lock", tok, time.Minute, true)
	if !written || err != nil {
		t.Errorf("SetIfLocked: %v, %v (DELIFEQs run: %d)", written, err, delIfEqs.Load())
	}
	if v, _ := redisTry(sock, "GET", "data"); v != "v" {
		t.Errorf("data = %q, want v", v)
	}
	if v, _ := redisTry(sock, "EXISTS", "lock"); v != "0" {
		t.Error("the lock was not released")
	}
}

// The same on an ephpm-kv server: the release still follows the write.
func TestSetIfLockedReleaseOnNewConnectionToServer(t *testing.T) {
	e := newEngine(t, startServer(t, server.Config{}), "", 5*time.Second)
	tok := []byte("tok")
	if ok, err := e.SetNX("lock", tok, time.Minute); !ok || err != nil {
		t.Fatalf("SetNX: %v, %v", ok, err)
	}
	e.Close()
	if written, err := e.SetIfLocked("data", []byte("v"), 0, "lock", tok, time.Minute, true); !written || err != nil {
		t.Fatalf("SetIfLocked: %v, %v", written, err)
	}
	buf := make([]byte, 8)
	if n, found, err := e.Get("data", buf); !found || err != nil || string(buf[:n]) != "v" {
		t.Errorf("data: %q, %v, %v", buf[:n], found, err)
	}
	if found, err := e.Exists("lock"); found || err != nil {
		t.Errorf("the lock is still held: %v, %v", found, err)
	}
}

// A Redis stopped (SIGSTOP) mid-call: the call ends at the timeout as
// kv.ErrUnavailable (never a false setnx), its connection is dropped (its
// late reply must not answer the next call), and once the server runs
// again the next calls get their own, right answers.
func TestRedisStoppedMidCall(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Redis backend is untested here")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "r.sock")
	cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGCONT); cmd.Process.Kill(); cmd.Wait() })
	e := newEngine(t, "unix://"+sock, "", 200*time.Millisecond)
	if err := e.Set("a", []byte("value of a"), 0); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := e.SetNXFenced("lock0", []byte("A"), time.Minute); !ok || err != nil {
		t.Fatalf("SetNXFenced: %v, %v", ok, err)
	}
	cmd.Process.Signal(syscall.SIGSTOP)
	ok, err := e.SetNX("lock", []byte("A"), time.Minute)
	if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "in time") {
		t.Errorf("SetNX on a stopped Redis: %v, %v; want kv.ErrUnavailable (no answer in time)", ok, err)
	}
	if _, _, err := e.SetNXFenced("lock2", []byte("A"), time.Minute); !errors.Is(err, kv.ErrUnavailable) {
		t.Errorf("SetNXFenced on a stopped Redis: %v", err)
	}
	if e.cl != nil {
		t.Error("the connection of a timed-out call was kept")
	}
	cmd.Process.Signal(syscall.SIGCONT)
	buf := make([]byte, 64)
	if n, found, err := e.Get("a", buf); !found || err != nil || string(buf[:n]) != "value of a" {
		t.Fatalf("Get after SIGCONT: %q, %v, %v", buf[:n], found, err)
	}
	// The timed-out SetNX may have landed (Redis runs what it had read):
	// either way the lock is A's, never an error now.
	if v, _ := redisTry(sock, "GET", "lock"); v != "" && v != "A" {
		t.Fatalf("lock = %q", v)
	}
	if f, ok, err := e.SetNXFenced("lock3", []byte("A"), time.Minute); !ok || err != nil || f <= 0 {
		t.Fatalf("SetNXFenced after SIGCONT: %d, %v, %v", f, ok, err)
	}
}

// A key another client made a hash: Incr says NOT_INTEGER, as the store
// does for any value that is not an integer (it was INTERNAL, "a bug");
// the other operations say what the key holds, and none takes a lock.
func TestRedisKeyOfAnotherType(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	redisCmd(t, sock, "HSET", "h", "f", "v")
	if n, err := e.Incr("h", 1, 0); !errors.Is(err, kv.ErrNotInteger) {
		t.Errorf("Incr of a hash: %d, %v; want kv.ErrNotInteger", n, err)
	}
	if _, err := e.Incr("h", 1, time.Minute); !errors.Is(err, kv.ErrNotInteger) {
		t.Errorf("Incr with a TTL of a hash: %v; want kv.ErrNotInteger", err)
	}
	if ok, err := e.SetNX("h", []byte("A"), time.Minute); ok || err != nil {
		t.Errorf("SetNX on a hash: %v, %v; want false (the key is taken)", ok, err)
	}
	if _, ok, err := e.SetNXFenced("h", []byte("A"), time.Minute); ok || err != nil {
		t.Errorf("SetNXFenced on a hash: %v, %v; want false (the key is taken)", ok, err)
	}
	buf := make([]byte, 8)
	if _, _, err := e.Get("h", buf); err == nil || !strings.Contains(err.Error(), "another Redis type") {
		t.Errorf("Get of a hash: %v", err)
	}
	if ok, err := e.DelIfEq("h", []byte("v")); ok || err == nil || !strings.Contains(err.Error(), "another Redis type") {
		t.Errorf("DelIfEq of a hash: %v, %v", ok, err)
	}
	if v, _ := redisTry(sock, "TYPE", "h"); v != "hash" {
		t.Errorf("the hash is now %q", v)
	}
}

// One address, the server behind it replaced by another kind (an ephpm-kv
// server by a Redis, and back): each new connection learns again what
// answers, and every answer is right.
func TestServerKindChangesAtOneAddress(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Redis backend is untested here")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "kv.sock")
	cfg := server.Config{Unix: sock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	e := newEngine(t, "unix://"+sock, "", 2*time.Second)
	tok := []byte("tok")
	round := func(kind string) {
		t.Helper()
		if f, ok, err := e.SetNXFenced("lock", tok, time.Minute); !ok || err != nil || f <= 0 {
			t.Fatalf("%s: SetNXFenced: %d, %v, %v", kind, f, ok, err)
		}
		if ttl, err := e.TTLIfEq("lock", tok); err != nil || ttl <= 59*time.Second || ttl > time.Minute {
			t.Fatalf("%s: TTLIfEq: %v, %v", kind, ttl, err)
		}
		if n, err := e.Incr("n", 5, 0); n != 5 || err != nil {
			t.Fatalf("%s: Incr: %d, %v", kind, n, err)
		}
		if ok, err := e.DelIfEq("lock", tok); !ok || err != nil {
			t.Fatalf("%s: DelIfEq: %v, %v", kind, ok, err)
		}
	}
	for i := 0; i < 2; i++ {
		s := must(server.New(cfg))
		must(s.Listen())
		round("ephpm-kv")
		s.Close()
		os.Remove(sock)
		cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock)
		if err != nil {
			t.Fatal(err)
		}
		round("Redis")
		cmd.Process.Kill()
		cmd.Wait()
		os.Remove(sock)
	}
}

// A master configured to refuse writes without replicas (min-replicas-to-
// write, the usual guard against a split brain under Sentinel) answers
// NOREPLICAS, having run nothing: unavailable (never a false setnx, nor
// INTERNAL, "a bug"), and the connection is dropped so the next call may
// reach the new master.
func TestRedisNoReplicasIsUnavailable(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Redis backend is untested here")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "r.sock")
	cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock, "--min-replicas-to-write", "1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	ok, err := e.SetNX("lock", []byte("A"), time.Minute)
	if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "NOREPLICAS") {
		t.Errorf("SetNX without replicas: %v, %v; want kv.ErrUnavailable (NOREPLICAS)", ok, err)
	}
	if e.cl != nil {
		t.Error("the connection was kept")
	}
	if _, _, err := e.SetNXFenced("lock", []byte("A"), time.Minute); !errors.Is(err, kv.ErrUnavailable) {
		t.Errorf("SetNXFenced without replicas: %v", err)
	}
}

// A session's read whose data key another client made a hash: the lock it
// took is given back with the error, not left held for its TTL (the next
// request for the session would wait that long). When the lock is held by
// another, nothing was read: false, not the dropped GET's error.
func TestRedisLockAndGetReleasesOnReadError(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	redisCmd(t, sock, "HSET", "data", "f", "v")
	ok, _, _, err := kv.LockAndGet(e, "lock", []byte("tok"), time.Minute, "data", make([]byte, 8))
	if ok || err == nil {
		t.Fatalf("LockAndGet of a hash: %v, %v; want an error", ok, err)
	}
	if v, _ := redisTry(sock, "EXISTS", "lock"); v != "0" {
		t.Fatal("the lock is still held after a read that failed")
	}
	// A lock someone else holds is left alone.
	redisCmd(t, sock, "SET", "lock", "other")
	if ok, _, _, err := kv.LockAndGet(e, "lock", []byte("tok"), time.Minute, "data", make([]byte, 8)); ok || err != nil {
		t.Fatalf("LockAndGet of a held lock: %v, %v", ok, err)
	}
	if v, _ := redisTry(sock, "GET", "lock"); v != "other" {
		t.Fatalf("the other holder's lock: %q", v)
	}
}

// A lock renewal needs no room, so it works on a Valkey at maxmemory: a
// holder that cannot renew loses its lock. Valkey's SET IFEQ, like any
// SET, is refused there (OOM), so ExpireIfEq runs as the script, whose
// PEXPIRE is not, even where SET IFEQ exists.
func TestValkeyExpireIfEqAtMaxMemory(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.Config{MemoryLimit: 256 << 10, MaxValueSize: 1 << 20})
	url, _ := valkeyLike(t, sock)
	e := newEngine(t, url, "", 5*time.Second)
	tok := []byte("tok")
	if ok, err := e.SetNX("lock", tok, time.Minute); !ok || err != nil {
		t.Fatalf("SetNX: %v, %v", ok, err)
	}
	e.mu.Lock()
	e.cl.dialect = dialect{kind: dialectRedis, delIfEq: true} // what a Valkey 9 says it has
	e.mu.Unlock()
	if ok, err := e.ExpireIfEq("lock", tok, 2*time.Minute); !ok || err != nil {
		t.Fatalf("ExpireIfEq with room: %v, %v", ok, err)
	}
	// Over maxmemory, whatever a connection's buffers weigh meanwhile.
	redisCmd(t, sock, "CONFIG", "SET", "maxmemory", "1")
	t.Cleanup(func() { redisCmd(t, sock, "CONFIG", "SET", "maxmemory", "0") })
	if err := e.Set("x", tok, 0); !errors.Is(err, kv.ErrFull) {
		t.Fatalf("Set over maxmemory: %v", err)
	}
	if ok, err := e.ExpireIfEq("lock", tok, 3*time.Minute); !ok || err != nil {
		t.Fatalf("ExpireIfEq at maxmemory: %v, %v", ok, err)
	}
	if ttl, err := e.TTL("lock"); ttl <= 2*time.Minute || err != nil {
		t.Fatalf("TTL after the renewal: %v, %v", ttl, err)
	}
	if ok, err := e.ExpireIfEq("lock", tok, 0); !ok || err != nil {
		t.Fatalf("ExpireIfEq to none at maxmemory: %v, %v", ok, err)
	}
	if ok, err := e.DelIfEq("lock", tok); !ok || err != nil {
		t.Fatalf("DelIfEq at maxmemory: %v, %v", ok, err)
	}
}
