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
