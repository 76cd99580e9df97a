package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
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

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
	"github.com/ephpm/ephpm-kv/server"
)

// One Debian redis-server (7) per test binary, on a unix socket in a temp
// dir, with nothing persisted; build/deps.sh installs it for make test.
var redisOnce struct {
	sync.Once
	sock, dir string
	cmd       *exec.Cmd
	err       error
}

// redisSocket returns the shared redis-server's socket, starting it on
// first use; it skips the test only when redis-server is not installed.
func redisSocket(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed (apt-get install redis-server, or build/deps.sh server-tests): the Redis backend is untested here")
	}
	redisOnce.Do(func() {
		redisOnce.dir, redisOnce.err = os.MkdirTemp("", "ephpm-redis-")
		if redisOnce.err != nil {
			return
		}
		redisOnce.sock = filepath.Join(redisOnce.dir, "redis.sock")
		redisOnce.cmd, redisOnce.err = startRedis(bin, redisOnce.dir, "--unixsocket", redisOnce.sock, "--port", "0")
	})
	if redisOnce.err != nil {
		t.Fatal(redisOnce.err)
	}
	return redisOnce.sock
}

// startRedis starts redis-server in dir with args and waits until it
// answers PING on its first listener (a unix socket or a TLS/TCP port is
// the caller's to wait for otherwise).
func startRedis(bin, dir string, args ...string) (*exec.Cmd, error) {
	base := []string{"--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no",
		"--enable-debug-command", "local", // DEBUG SET-ACTIVE-EXPIRE: see openRedis
		"--maxmemory-policy", "noeviction", "--proto-max-bulk-len", "1mb", "--loglevel", "warning"}
	cmd := exec.Command(bin, append(base, args...)...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sock := ""
	for i, a := range args {
		if a == "--unixsocket" {
			sock = args[i+1]
		}
	}
	for start := time.Now(); sock != ""; {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 10*time.Second {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("redis-server did not start: %s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cmd, nil
}

func stopRedis() {
	if redisOnce.cmd != nil {
		redisOnce.cmd.Process.Kill()
		redisOnce.cmd.Wait()
	}
	if redisOnce.dir != "" {
		os.RemoveAll(redisOnce.dir)
	}
}

// redisCmd runs one command on a connection of its own and returns the
// reply as text (an array's elements joined by newlines, nested ones
// flattened); an error reply fails the test.
func redisCmd(t testing.TB, sock string, args ...string) string {
	t.Helper()
	out, err := redisTry(sock, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// redisTry is redisCmd that returns an error reply (or a failure to
// connect) as an error.
func redisTry(sock string, args ...string) (string, error) {
	nc, err := net.Dial("unix", sock)
	if err != nil {
		return "", err
	}
	defer nc.Close()
	c := newClient(nc)
	c.command(len(args))
	for _, a := range args {
		c.arg(a)
	}
	if err := c.flush(); err != nil {
		return "", err
	}
	var out []string
	var read func() error
	read = func() error {
		r, err := c.read()
		if err != nil {
			return err
		}
		switch r.kind {
		case '-':
			return fmt.Errorf("%s: %s", strings.Join(args, " "), r.data)
		case '*':
			for i := int64(0); i < r.n; i++ {
				if err := read(); err != nil {
					return err
				}
			}
		case ':':
			out = append(out, strconv.FormatInt(r.n, 10))
		default:
			out = append(out, string(r.data))
		}
		return nil
	}
	err = read()
	return strings.Join(out, "\n"), err
}

// infoField is one field of INFO's text, "" when absent.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

// openRedis empties the shared server and resets its counters for a new
// engine of cfg's limits: maxmemory is what an empty server uses plus
// cfg.MemoryLimit. Active expiry is off, as the suite asks (it counts what
// a write reclaims); reclaimRedis turns it on where expected. It returns
// the limits the server really has.
func openRedis(t *testing.T, sock string, cfg kvtest.Config) kvtest.Config {
	return openRedisWarm(t, sock, cfg, "warm-up")
}

// openRedisWarm is openRedis with warm, a key the node serves (a cluster
// node serves only its slots), for the script's first error.
func openRedisWarm(t *testing.T, sock string, cfg kvtest.Config, warm string) kvtest.Config {
	t.Helper()
	redisCmd(t, sock, "FLUSHALL")
	// The scripts are loaded before memory is measured, which a full
	// store would otherwise never give back.
	redisCmd(t, sock, "SCRIPT", "FLUSH")
	for _, s := range scripts {
		redisCmd(t, sock, "SCRIPT", "LOAD", s.src)
	}
	// So is a script's first error (over 100 KiB more, once).
	redisCmd(t, sock, "SET", warm, "x")
	if _, err := redisTry(sock, "EVALSHA", scriptIncr.sha, "1", warm, "1", "0"); err == nil {
		t.Fatal("INCR of x in a script did not fail")
	}
	redisCmd(t, sock, "DEL", warm)
	redisCmd(t, sock, "CONFIG", "SET", "maxmemory", "0")
	redisCmd(t, sock, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	used, err := strconv.ParseInt(infoField(redisCmd(t, sock, "INFO", "memory"), "used_memory"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	// Four times the room asked for: a Redis's used_memory moves by up to
	// MemorySlack besides its entries (client buffers, a script's first
	// run on a connection costs over 100 KiB), which must stay small next
	// to the room.
	limit := used + 4*cfg.MemoryLimit
	redisCmd(t, sock, "CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10))
	redisCmd(t, sock, "CONFIG", "RESETSTAT")
	return kvtest.Config{MemoryLimit: limit, MaxValueSize: 1 << 20, CompressMin: 0}
}

// reclaimRedis lets active expiry run until no key with a TTL is left.
func reclaimRedis(t *testing.T, sock string) {
	redisCmd(t, sock, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
	defer redisCmd(t, sock, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if !strings.Contains(redisCmd(t, sock, "INFO", "keyspace"), "expires=") {
			return
		}
		if time.Since(start) > 30*time.Second {
			t.Fatal("active expiry left keys with a TTL for 30 s")
		}
	}
}

// The semantic suite against a Redis 7, through the Lua scripts: this
// client, not knowing what answers, finds out at its first ephpm-kv
// command. Each peer is its own connection.
func TestRedisConformance(t *testing.T) {
	sock := redisSocket(t)
	url := "unix://" + sock
	var limits kvtest.Config
	kvtest.Run(t, kvtest.Target{
		Open: func(t *testing.T, cfg kvtest.Config) (kv.Engine, func() kv.Engine) {
			limits = openRedis(t, sock, cfg)
			return newEngine(t, url, "", 5*time.Second), func() kv.Engine { return newEngine(t, url, "", 5*time.Second) }
		},
		TTLResolution:  2 * time.Millisecond,
		Limits:         func(kvtest.Config) kvtest.Config { return limits },
		ReclaimExpired: func(t *testing.T) { reclaimRedis(t, sock) },
		MemorySlack:    256 << 10,
		FencesAreKeys:  true,
		EvictableHeld:  true,
	})
}

// commandStats is INFO commandstats and errorstats as name -> calls
// ("evalsha", "script", ...) and "error:NAME" -> count.
func commandStats(t *testing.T, sock string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, line := range strings.Split(redisCmd(t, sock, "INFO", "commandstats", "errorstats"), "\r\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var key, field string
		switch {
		case strings.HasPrefix(name, "cmdstat_"):
			key, field = strings.TrimPrefix(name, "cmdstat_"), "calls="
		case strings.HasPrefix(name, "errorstat_"):
			key, field = "error:"+strings.TrimPrefix(name, "errorstat_"), "count="
		default:
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, field); ok {
				out[key], _ = strconv.Atoi(v)
			}
		}
	}
	return out
}

// On a Redis 7 every operation it has no command for runs as a script
// (EVALSHA), each script loaded once on the connection, and only the
// first ephpm-kv command the client tried was unknown.
func TestRedisUsesScripts(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	redisCmd(t, sock, "SCRIPT", "FLUSH")
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	tok := []byte("tok")
	ops := []struct {
		name string
		run  func() error
	}{
		{"DelIfEq", func() error { _, err := e.DelIfEq("k", tok); return err }},
		{"Set", func() error { return e.Set("k", tok, 0) }},
		{"ExpireIfEq", func() error { _, err := e.ExpireIfEq("k", tok, time.Minute); return err }},
		{"TTLIfEq", func() error { _, err := e.TTLIfEq("k", tok); return err }},
		{"Expire 0", func() error { _, err := e.Expire("k", 0); return err }},
		{"Incr", func() error { _, err := e.Incr("n", 1, time.Minute); return err }},
		{"SetNXFenced", func() error { _, _, err := e.SetNXFenced("lock", tok, time.Minute); return err }},
		{"Fence", func() error { _, err := e.Fence("db", 5); return err }},
		{"SetIfLocked", func() error { _, err := e.SetIfLocked("data", tok, 0, "lock", tok, time.Minute, true); return err }},
		{"DelIfEq again", func() error { _, err := e.DelIfEq("k", tok); return err }},
		{"Incr again", func() error { _, err := e.Incr("n", 1, time.Minute); return err }},
		{"LeaseAcquire", func() error { _, _, err := e.LeaseAcquire("rw", tok, kv.LeaseShared, 0, time.Minute, 0); return err }},
		{"LeaseRenew", func() error { _, err := e.LeaseRenew("rw", tok, time.Minute); return err }},
		{"LeaseCount", func() error { _, err := e.LeaseCount("rw"); return err }},
		{"LeaseRelease", func() error { _, err := e.LeaseRelease("rw", tok); return err }},
		{"RateLimit", func() error { _, _, _, err := e.RateLimit("rate", 5, time.Minute); return err }},
	}
	redisCmd(t, sock, "CONFIG", "RESETSTAT")
	for _, op := range ops {
		if err := op.run(); err != nil {
			t.Fatalf("%s: %v", op.name, err)
		}
	}
	st := commandStats(t, sock)
	// All but Set: 15 scripts run, 13 distinct ones loaded.
	if st["evalsha"] != 15 || st["script|load"] != 13 {
		t.Errorf("EVALSHA %d times (want 15), SCRIPT LOAD %d (want 13): %v", st["evalsha"], st["script|load"], st)
	}
	// DELIFEQ was tried once, at the first operation; then the dialect
	// was learned (COMMAND INFO, CONFIG GET) and kept.
	if st["error:ERR"] != 1 || st["command|info"] != 1 || st["config|get"] != 1 {
		t.Errorf("unknown commands %d (want 1), COMMAND INFO %d, CONFIG GET %d (want 1 each): %v",
			st["error:ERR"], st["command|info"], st["config|get"], st)
	}
	for name := range st {
		if strings.HasPrefix(name, "ephpm") || name == "delex" {
			t.Errorf("%s was sent to a Redis 7", name)
		}
	}
}

// A script the server lost (SCRIPT FLUSH here; a restart or a promoted
// replica in production) is loaded again: the NOSCRIPT reply means it did
// not run, so the operation is sent once more, and its result is right.
func TestRedisNoScriptRecovered(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	if err := e.Set("lock", []byte("A"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if ok, err := e.DelIfEq("lock", []byte("B")); ok || err != nil {
		t.Fatalf("DelIfEq with another token: %v, %v", ok, err)
	}
	redisCmd(t, sock, "SCRIPT", "FLUSH")
	redisCmd(t, sock, "CONFIG", "RESETSTAT")
	if ok, err := e.DelIfEq("lock", []byte("A")); !ok || err != nil {
		t.Fatalf("DelIfEq after SCRIPT FLUSH: %v, %v", ok, err)
	}
	if v, _ := redisTry(sock, "EXISTS", "lock"); v != "0" {
		t.Fatal("the lock is still there")
	}
	st := commandStats(t, sock)
	if st["error:NOSCRIPT"] != 1 || st["script|load"] != 1 || st["evalsha"] != 2 {
		t.Errorf("NOSCRIPT %d, SCRIPT LOAD %d, EVALSHA %d: want 1, 1, 2 (%v)", st["error:NOSCRIPT"], st["script|load"], st["evalsha"], st)
	}
	// Flushed again, with a script the connection never loaded next to
	// one it did: each comes back.
	redisCmd(t, sock, "SCRIPT", "FLUSH")
	if n, err := e.Incr("n", 2, 0); n != 2 || err != nil {
		t.Fatalf("Incr after another flush: %d, %v", n, err)
	}
	if ok, err := e.DelIfEq("lock", []byte("A")); ok || err != nil {
		t.Fatalf("DelIfEq of a deleted lock after another flush: %v, %v", ok, err)
	}
}

// The fence counter of a Redis Cluster shares its lock's slot (a script
// may touch one slot only), by hash tag: CRC16 of the tag, or of the whole
// name when it has none.
func TestClusterFenceCounterSharesSlot(t *testing.T) {
	slot := func(key string) int {
		if tag, ok := hashTag(key); ok {
			key = tag
		}
		var crc uint16
		for i := 0; i < len(key); i++ {
			crc ^= uint16(key[i]) << 8
			for b := 0; b < 8; b++ {
				if crc&0x8000 != 0 {
					crc = crc<<1 ^ 0x1021
				} else {
					crc <<= 1
				}
			}
		}
		return int(crc) % 16384
	}
	if slot("123456789") != 0x31c3%16384 {
		t.Fatalf("CRC16 of 123456789: %x", slot("123456789"))
	}
	for _, lock := range []string{"lock:report", "sess_abc", "{user:1}:lock", "a{b}c{d}", "x{y", "{y"} {
		counter, ok := clusterFenceCounter(lock)
		if !ok {
			t.Errorf("%q: refused", lock)
			continue
		}
		if slot(counter) != slot(lock) {
			t.Errorf("%q in slot %d, its counter %q in %d", lock, slot(lock), counter, slot(counter))
		}
	}
	for _, lock := range []string{"a}b", "x{}y", "{}{x}"} {
		if c, ok := clusterFenceCounter(lock); ok {
			t.Errorf("%q: counter %q, but no name shares its slot by tag", lock, c)
		}
	}
}

// A managed Redis often renames CONFIG (and may hide COMMAND): the client
// then assumes Redis's default bulk limit and no native compare commands,
// and everything still runs through the scripts.
func TestRedisWithoutConfigCommand(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Redis backend is untested here")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "r.sock")
	cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock,
		"--rename-command", "CONFIG", "", "--rename-command", "COMMAND", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	if ok, err := e.SetNX("lock", []byte("A"), time.Minute); !ok || err != nil {
		t.Fatalf("SetNX: %v, %v", ok, err)
	}
	if ok, err := e.DelIfEq("lock", []byte("A")); !ok || err != nil {
		t.Fatalf("DelIfEq: %v, %v", ok, err)
	}
	if f, ok, err := e.SetNXFenced("lock", []byte("A"), time.Minute); !ok || f <= 0 || err != nil {
		t.Fatalf("SetNXFenced: %d, %v, %v", f, ok, err)
	}
	st, err := e.Stats()
	if err != nil || st.MaxValueSize != defaultMaxBulk || st.Keys != 3 {
		t.Fatalf("Stats: %+v, %v (want max_value_size %d, 3 keys: the lock, the fence counter and the lock's fence record)", st, err, defaultMaxBulk)
	}
}

// A replica refuses writes (READONLY: what the old master says after a
// failover demoted it): unavailable, never a false setnx or a bug report,
// and the connection is dropped so the next call dials again.
func TestRedisReplicaIsUnavailable(t *testing.T) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Redis backend is untested here")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "r.sock")
	// The replica of a master that is not there: it still answers reads.
	cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock, "--replicaof", "127.0.0.1", "1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	writes := map[string]func() error{
		"SetNX": func() error {
			ok, err := e.SetNX("lock", []byte("A"), time.Minute)
			if err == nil && !ok {
				return errors.New("false (held)")
			}
			return err
		},
		"SetNXFenced": func() error { _, _, err := e.SetNXFenced("lock", []byte("A"), time.Minute); return err },
		"Incr":        func() error { _, err := e.Incr("n", 1, 0); return err },
	}
	for name, w := range writes {
		if err := w(); !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "READONLY") {
			t.Errorf("%s on a replica: %v, want kv.ErrUnavailable (READONLY)", name, err)
		}
		if e.cl != nil {
			t.Errorf("%s on a replica kept the connection", name)
		}
	}
	if found, err := e.Exists("lock"); found || err != nil {
		t.Fatalf("a read on the replica: %v, %v", found, err)
	}
}

// Flush empties the database the engine uses, never the other databases of a
// Redis that other software shares (FLUSHALL would).
func TestRedisFlushKeepsOtherDatabases(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	redisCmd(t, sock, "SET", "other-app", "v")
	redisCmd(t, sock, "MOVE", "other-app", "1")
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	if err := e.Set("mine", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if ok, err := e.Exists("mine"); err != nil || ok {
		t.Fatalf("Exists(mine) after Flush = %v, %v; want false", ok, err)
	}
	if info := redisCmd(t, sock, "INFO", "keyspace"); !strings.Contains(info, "db1:keys=1") {
		t.Fatalf("Flush emptied another database: INFO keyspace = %q", info)
	}
}

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
