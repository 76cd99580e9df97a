package remote

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
	"github.com/ephpm/ephpm-kv/server"
	"github.com/ephpm/ephpm-kv/store"
)

// scanWalk walks sc's keyspace, count keys a page, and returns every key
// seen with its last KeyInfo, and the cursors it went through.
func scanWalk(t *testing.T, sc kv.Scanner, match string, count int) (map[string]kv.KeyInfo, []string) {
	t.Helper()
	seen := map[string]kv.KeyInfo{}
	var cursors []string
	cursor := ""
	for calls := 0; ; calls++ {
		if calls > 100000 {
			t.Fatal("the walk never ended")
		}
		next, err := sc.Scan(cursor, match, count, func(k kv.KeyInfo) { seen[k.Key] = k })
		if err != nil {
			t.Fatalf("Scan(%q): %v", cursor, err)
		}
		if next == "" {
			return seen, cursors
		}
		cursors = append(cursors, next)
		cursor = next
	}
}

func keysOf(seen map[string]kv.KeyInfo) []string {
	var keys []string
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Cursors that no engine returns are kv.ErrBadCursor, before anything is
// sent.
func checkBadCursors(t *testing.T, sc kv.Scanner, bad ...string) {
	t.Helper()
	for _, c := range append(bad, "not a cursor", "-1", "1.5", "0x10", "18446744073709551616") {
		if _, err := sc.Scan(c, "", 10, func(kv.KeyInfo) {}); !errors.Is(err, kv.ErrBadCursor) {
			t.Errorf("Scan from %q: %v, want kv.ErrBadCursor", c, err)
		}
	}
}

// On an ephpm-kv server: the cursor is the server's, decimal; a page has
// at most count keys (EPHPM.SCAN's count is exact).
func TestServerScan(t *testing.T) {
	url := startServer(t, server.Config{Store: store.Config{SweepInterval: time.Hour}})
	e := newEngine(t, url, "", 5*time.Second)
	// The first call of a connection may be a Scan.
	if next, err := e.Scan("", "", 10, func(k kv.KeyInfo) { t.Errorf("an empty store reported %+v", k) }); err != nil || next != "" {
		t.Fatalf("Scan of an empty store: %q %v", next, err)
	}
	for i := range 50 {
		if err := e.Set(fmt.Sprintf("k:%02d", i), []byte("v"), 0); err != nil {
			t.Fatal(err)
		}
	}
	seen, cursors := scanWalk(t, e, "", 7)
	if len(seen) != 50 || len(cursors) < 50/7-1 {
		t.Errorf("%d keys in %d pages", len(seen), len(cursors)+1)
	}
	for _, c := range cursors {
		if _, ok := wireCursor(c); !ok {
			t.Errorf("cursor %q is not a decimal number", c)
		}
	}
	n := 0
	if _, err := e.Scan("", "k:1*", 10000, func(kv.KeyInfo) { n++ }); err != nil || n != 10 {
		t.Errorf("k:1*: %d keys, %v", n, err)
	}
	checkBadCursors(t, e, "0", "007")
}

// On a Redis: the scripts' fence counter and records are left out, as are
// keys of other Redis types; lease sets and rate logs are told by their
// header.
func TestRedisScan(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	// A new engine whose first call is a Scan learns that a Redis answers.
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	if _, err := e.Scan("", "", 10, func(kv.KeyInfo) {}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.SetNXFenced("lock:a", []byte("t"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Fence("db", 5); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.LeaseAcquire("lock:rw", []byte("t"), kv.LeaseExclusive, 0, time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := e.RateLimit("rate", 3, time.Minute); err != nil {
		t.Fatal(err)
	}
	redisCmd(t, sock, "HSET", "other:hash", "f", "v")
	redisCmd(t, sock, "RPUSH", "other:list", "x")
	redisCmd(t, sock, "SET", "plain", "L")
	redisCmd(t, sock, "SET", "r-like", "R\x01xyz") // a rate log's header, not its length

	seen, _ := scanWalk(t, e, "", 1)
	if got, want := keysOf(seen), []string{"lock:a", "lock:rw", "plain", "r-like", "rate"}; !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v (the fence keys %s* are the scripts', the hash and list not ours)", got, want, "ephpm:")
	}
	for key, want := range map[string]kv.KeyKind{"lock:a": kv.KindValue, "lock:rw": kv.KindLeases, "rate": kv.KindRateLog, "plain": kv.KindValue, "r-like": kv.KindValue} {
		if seen[key].Kind != want {
			t.Errorf("%s: %+v, want kind %v", key, seen[key], want)
		}
	}
	if got := seen["lock:a"]; got.Size != 1 || got.TTL <= 59*time.Second || got.TTL > time.Minute {
		t.Errorf("lock:a: %+v", got)
	}
	// A pattern the user asks for does not bring them back either.
	if seen, _ := scanWalk(t, e, "ephpm:*", 100); len(seen) != 0 {
		t.Errorf("ephpm:* listed %v", keysOf(seen))
	}
	if seen, _ := scanWalk(t, e, "lock:*", 100); !slices.Equal(keysOf(seen), []string{"lock:a", "lock:rw"}) {
		t.Errorf("lock:* listed %v", keysOf(seen))
	}
	checkBadCursors(t, e, "0")
}

// On a Redis Cluster: every master in turn, the cursor naming it.
func TestRedisClusterScan(t *testing.T) {
	url, socks := redisCluster(t)
	for _, s := range socks {
		redisCmd(t, s, "FLUSHALL")
	}
	c := newCluster(t, url)
	var want []string
	for i := range 60 {
		k := fmt.Sprintf("{user%d}:profile", i)
		want = append(want, k)
		if _, _, err := c.SetNXFenced(k, []byte("t"), time.Minute); err != nil { // a fence counter per hash tag
			t.Fatal(err)
		}
	}
	slices.Sort(want)
	seen, cursors := scanWalk(t, c, "", 5)
	if got := keysOf(seen); !slices.Equal(got, want) {
		t.Errorf("%d keys, want the %d locks (no fence counter): %v", len(got), len(want), got)
	}
	masters := map[string]bool{}
	for _, cur := range cursors {
		addr, _, ok := clusterCursor(cur)
		if !ok || !strings.HasPrefix(addr, "127.0.0.1:") {
			t.Errorf("cursor %q", cur)
		}
		masters[addr] = true
	}
	if len(masters) != 3 {
		t.Errorf("the walk went through %d masters, want 3: %v", len(masters), cursors)
	}
	// A cursor past every master's address ends the walk.
	if next, err := c.Scan("255.255.255.255:1/0", "", 10, func(k kv.KeyInfo) { t.Errorf("reported %s", k.Key) }); err != nil || next != "" {
		t.Errorf("Scan past the last master: %q %v", next, err)
	}
	checkBadCursors(t, c, "127.0.0.1", "/5", "127.0.0.1:1/x", "127.0.0.1:1/-1")
}

// A lock's fence record (lockFenceKey) shares its lock's slot, and no two
// lock names share one.
func TestLockFenceKeySharesSlot(t *testing.T) {
	seen := map[string]string{}
	for _, lock := range []string{"lock:report", "sess_abc", "{user:1}:lock", "a{b}c{d}", "x{y", "{y", "x", "{x}", "=x", "{{x}}"} {
		record, ok := lockFenceKey(lock)
		if !ok {
			t.Errorf("%q: no record", lock)
			continue
		}
		if slotOf(record) != slotOf(lock) || !internalKey(record) {
			t.Errorf("%q in slot %d, its record %q in %d (internal %v)", lock, slotOf(lock), record, slotOf(record), internalKey(record))
		}
		if other, dup := seen[record]; dup {
			t.Errorf("%q and %q share the record %q", lock, other, record)
		}
		seen[record] = lock
		if serverLockFenceKey(lock) != record {
			t.Errorf("%q: %q on one server, %q in a cluster", lock, serverLockFenceKey(lock), record)
		}
	}
	for _, lock := range []string{"a}b", "x{}y", "{}{x}"} {
		if r, ok := lockFenceKey(lock); ok {
			t.Errorf("%q: record %q, but no name shares its slot by tag", lock, r)
		}
		if r := serverLockFenceKey(lock); !internalKey(r) || seen[r] != "" {
			t.Errorf("%q: record %q on one server", lock, r)
		}
	}
}

// scanFence is the fence a walk reports for key (-1: not reported).
func scanFence(t *testing.T, sc kv.Scanner, key string) int64 {
	t.Helper()
	seen, _ := scanWalk(t, sc, "", 3)
	if info, ok := seen[key]; ok {
		return info.Fence
	}
	return -1
}

// checkRedisScanFence: on a Valkey or Redis (or a cluster of them), a
// fenced lock's fence record is renewed with it (ExpireIfEq, SetIfLocked),
// so Scan still reports the fence after the TTL it was taken with; a
// record left by a released lock is not the fence of the name taken again
// by a plain SetNX; a lease set's fence is its live holders' highest,
// never a writer's intent's; a value that only looks like a lease set has
// none; and a server that lost the script is given it again.
func checkRedisScanFence(t *testing.T, e kv.Engine, sc kv.Scanner, rawSet func(key, value string), flushScripts func()) {
	t.Helper()
	tok := []byte("tok-1")
	short, long := 300*time.Millisecond, 5*time.Second
	f1, ok, err := e.SetNXFenced("sf:lock", tok, short)
	if !ok || err != nil {
		t.Fatalf("SetNXFenced: %v, %v", ok, err)
	}
	// Renewed by SetIfLocked: data in the lock's slot (one script), and not.
	f2, ok, err := e.SetNXFenced("{sf}:lock", tok, short)
	if !ok || err != nil {
		t.Fatalf("SetNXFenced: %v, %v", ok, err)
	}
	f3, ok, err := e.SetNXFenced("sf:lock3", tok, short)
	if !ok || err != nil {
		t.Fatalf("SetNXFenced: %v, %v", ok, err)
	}
	if renewed, err := e.ExpireIfEq("sf:lock", tok, long); !renewed || err != nil {
		t.Fatalf("ExpireIfEq: %v, %v", renewed, err)
	}
	ls := e.(kv.LockedSetter)
	if ok, err := ls.SetIfLocked("{sf}:data", []byte("d"), 0, "{sf}:lock", tok, long, false); !ok || err != nil {
		t.Fatalf("SetIfLocked in the lock's slot: %v, %v", ok, err)
	}
	if ok, err := ls.SetIfLocked("other:data", []byte("d"), 0, "sf:lock3", tok, long, false); !ok || err != nil {
		t.Fatalf("SetIfLocked: %v, %v", ok, err)
	}
	time.Sleep(short + 200*time.Millisecond)
	for lock, want := range map[string]int64{"sf:lock": f1, "{sf}:lock": f2, "sf:lock3": f3} {
		if got := scanFence(t, sc, lock); got != want {
			t.Errorf("%s renewed past its first TTL: fence %d, want %d", lock, got, want)
		}
	}

	// Released, its record left behind, then taken by a plain SetNX.
	if ok, err := e.DelIfEq("sf:lock", tok); !ok || err != nil {
		t.Fatalf("DelIfEq: %v, %v", ok, err)
	}
	if ok, err := e.SetNX("sf:lock", []byte("tok-2"), long); !ok || err != nil {
		t.Fatalf("SetNX: %v, %v", ok, err)
	}
	if got := scanFence(t, sc, "sf:lock"); got != 0 {
		t.Errorf("taken by SetNX after a fenced holder released it: fence %d, want 0", got)
	}
	// Not renewed by another token: the record goes at its own TTL.
	if renewed, err := e.ExpireIfEq("sf:lock", tok, long); renewed || err != nil {
		t.Fatalf("ExpireIfEq with the old token: %v, %v", renewed, err)
	}

	// A lease set: its highest live holder's fence, not a writer's intent.
	l1, ok1, err1 := e.LeaseAcquire("sf:rw", []byte("r1"), kv.LeaseShared, 0, long, 0)
	l2, ok2, err2 := e.LeaseAcquire("sf:rw", []byte("r2"), kv.LeaseShared, 0, long, 0)
	_, ok3, err3 := e.LeaseAcquire("sf:rw", []byte("w"), kv.LeaseExclusive, 0, long, long)
	if !ok1 || !ok2 || ok3 || errors.Join(err1, err2, err3) != nil {
		t.Fatalf("LeaseAcquire: %v %v %v, %v", ok1, ok2, ok3, errors.Join(err1, err2, err3))
	}
	if got := scanFence(t, sc, "sf:rw"); got != max(l1, l2) {
		t.Errorf("a lease set with fences %d and %d and an intent: %d", l1, l2, got)
	}
	rawSet("sf:fake", "L\x01cut") // a lease set's header, cut short
	if seen, _ := scanWalk(t, sc, "sf:fake", 10); seen["sf:fake"].Kind != kv.KindLeases || seen["sf:fake"].Fence != 0 {
		t.Errorf("a cut-short lease set: %+v", seen["sf:fake"])
	}

	flushScripts()
	if got := scanFence(t, sc, "{sf}:lock"); got != f2 {
		t.Errorf("after SCRIPT FLUSH: fence %d, want %d", got, f2)
	}
	if seen, _ := scanWalk(t, sc, "ephpm:*", 100); len(seen) != 0 {
		t.Errorf("ephpm:* listed %v", keysOf(seen))
	}
}

func TestRedisScanFence(t *testing.T) {
	sock := redisSocket(t)
	openRedis(t, sock, kvtest.DefaultConfig)
	e := newEngine(t, "unix://"+sock, "", 5*time.Second)
	checkRedisScanFence(t, e, e,
		func(k, v string) { redisCmd(t, sock, "SET", k, v) },
		func() { redisCmd(t, sock, "SCRIPT", "FLUSH") })
	// A lock name that cannot share a slot by tag has a record on one
	// server all the same.
	f, ok, err := e.SetNXFenced("a}b", []byte("t"), time.Minute)
	if !ok || err != nil {
		t.Fatalf("SetNXFenced a}b: %v, %v", ok, err)
	}
	if got := scanFence(t, e, "a}b"); got != f {
		t.Errorf("a}b: fence %d, want %d", got, f)
	}
}

func TestRedisClusterScanFence(t *testing.T) {
	url, socks := redisCluster(t)
	for _, s := range socks {
		redisCmd(t, s, "FLUSHALL")
	}
	c := newCluster(t, url)
	checkRedisScanFence(t, c, c,
		func(k, v string) {
			if _, err := c.raw("set", k, v); err != nil {
				t.Fatal(err)
			}
		},
		func() {
			for _, s := range socks {
				redisCmd(t, s, "SCRIPT", "FLUSH")
			}
		})
}
