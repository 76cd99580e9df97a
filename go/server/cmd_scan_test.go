package server

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// respErr is an error reply, as value reads it.
type respErr string

// value sends args and reads the reply as Go values: string (status or
// bulk), int64, nil, []any or respErr.
func (rc *respConn) value(args ...string) any {
	rc.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := rc.c.Write([]byte(b.String())); err != nil {
		rc.t.Fatal(err)
	}
	rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	return readValue(rc.t, rc.r)
}

func readValue(t testing.TB, r *bufio.Reader) any {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+':
		return line[1:]
	case '-':
		return respErr(line[1:])
	case ':':
		n, err := strconv.ParseInt(line[1:], 10, 64)
		if err != nil {
			t.Fatalf("bad integer %q", line)
		}
		return n
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
		return string(buf[:n])
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil
		}
		out := make([]any, n)
		for i := range out {
			out[i] = readValue(t, r)
		}
		return out
	}
	t.Fatalf("unknown reply %q", line)
	return nil
}

// scanPage splits a SCAN or EPHPM.SCAN reply into its cursor and items.
func scanPage(t testing.TB, v any) (string, []any) {
	t.Helper()
	page, ok := v.([]any)
	if !ok || len(page) != 2 {
		t.Fatalf("reply %#v, want [cursor, items]", v)
	}
	cursor, ok1 := page[0].(string)
	items, ok2 := page[1].([]any)
	if !ok1 || !ok2 {
		t.Fatalf("reply %#v, want [cursor, items]", v)
	}
	return cursor, items
}

// scanKeys walks the keyspace with SCAN and args (MATCH, COUNT, TYPE),
// counting how often each key came.
func scanKeys(t *testing.T, rc *respConn, args ...string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 10000 {
			t.Fatal("the walk never ended")
		}
		next, items := scanPage(t, rc.value(append([]string{"SCAN", cursor}, args...)...))
		for _, it := range items {
			seen[it.(string)]++
		}
		if next == "0" {
			return seen
		}
		if _, err := strconv.ParseUint(next, 10, 64); err != nil {
			t.Fatalf("cursor %q is not a decimal number (redis-cli reads it with strtoull)", next)
		}
		cursor = next
	}
}

// fillKinds stores every kind of key: n plain values a:0.., a lease set, a
// rate log, an evictable entry and one with a TTL.
func fillKinds(t *testing.T, rc *respConn, n int) {
	t.Helper()
	for i := range n {
		if got := rc.do("SET", fmt.Sprintf("a:%04d", i), "v"); got != "OK" {
			t.Fatal(got)
		}
	}
	runSteps(t, rc, []step{
		cmd("*", "EPHPM.LEASEACQUIRE", "rw", "reader", "SHARED", "0", "60000", "0"),
		cmd("[1 4 0]", "EPHPM.RATELIMIT", "rate", "5", "60000"),
		cmd("OK", "EPHPM.SETEVICTABLE", "cache", "cached", "0"),
		cmd("OK", "SET", "ttl", "short-lived", "PX", "60000"),
		cmd("OK", "SET", "gone", "x", "PX", "1"),
	})
	time.Sleep(5 * time.Millisecond)
}

func TestScan(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(16<<20, 1<<20)})
	rc := dial(t, "unix", addr)
	fillKinds(t, rc, 2500)

	all := scanKeys(t, rc)
	if len(all) != 2500+4 {
		t.Errorf("SCAN found %d keys, want %d", len(all), 2500+4)
	}
	for _, k := range []string{"a:0000", "a:2499", "rw", "rate", "cache", "ttl"} {
		if all[k] == 0 {
			t.Errorf("SCAN did not report %s", k)
		}
	}
	if all["gone"] != 0 {
		t.Error("SCAN reported an expired key")
	}
	// Several pages, each at least scanMinVisit keys visited: all reported
	// but "gone", expired, when the page visits it.
	if _, items := scanPage(t, rc.value("SCAN", "0", "COUNT", "1")); len(items) < scanMinVisit-1 || len(items) > 2504 {
		t.Errorf("a page of %d keys for COUNT 1: the server visits at least %d", len(items), scanMinVisit)
	}
	matched := scanKeys(t, rc, "MATCH", "a:00?5", "COUNT", "100")
	if len(matched) != 10 || matched["a:0015"] != 1 {
		t.Errorf("MATCH a:00?5: %v", matched)
	}
	for typ, want := range map[string][]string{
		"string":        nil, // checked by count below
		"ephpm-leases":  {"rw"},
		"EPHPM-RATELOG": {"rate"},
		"hash":          {},
	} {
		got := scanKeys(t, rc, "TYPE", typ)
		if typ == "string" {
			if len(got) != 2500+2 || got["cache"] == 0 || got["ttl"] == 0 {
				t.Errorf("TYPE string: %d keys", len(got))
			}
			continue
		}
		keys := []string{}
		for k := range got {
			keys = append(keys, k)
		}
		if !slices.Equal(keys, want) {
			t.Errorf("TYPE %s: %v, want %v", typ, keys, want)
		}
	}

	runSteps(t, rc, []step{
		cmd("string", "TYPE", "a:0001"), cmd("string", "TYPE", "cache"), cmd("string", "TYPE", "ttl"),
		cmd("ephpm-leases", "TYPE", "rw"), cmd("ephpm-ratelog", "TYPE", "rate"),
		cmd("none", "TYPE", "gone"), cmd("none", "TYPE", "nope"),
		// a plain value of some other form than a rate log's record
		cmd("OK", "SET", "r", "R\x01short"), cmd("string", "TYPE", "r"),
		cmd("ERR wrong number of arguments for 'type' command", "TYPE"),
	})
}

func TestScanRefuses(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(16<<20, 1<<20)})
	rc := dial(t, "unix", addr)
	long := strings.Repeat("*", kv.MaxKeySize+1)
	runSteps(t, rc, []step{
		// As Redis 7 answers.
		cmd("ERR syntax error", "SCAN", "0", "COUNT", "0"),
		cmd("ERR syntax error", "SCAN", "0", "COUNT", "-1"),
		cmd("ERR value is not an integer or out of range", "SCAN", "0", "COUNT", "ten"),
		cmd("ERR syntax error", "SCAN", "0", "MATCH"),
		cmd("ERR syntax error", "SCAN", "0", "BOGUS", "x"),
		cmd("ERR invalid cursor", "SCAN", "abc"),
		cmd("ERR invalid cursor", "SCAN", "-1"),
		cmd("ERR invalid cursor", "SCAN", "18446744073709551616"),
		cmd("ERR wrong number of arguments for 'scan' command", "SCAN"),
		// A pattern longer than a key can be.
		cmd("ERR key is too large: a pattern of 65537 bytes, at most 65536", "SCAN", "0", "MATCH", long),
		cmd("ERR key is too large: a pattern of 65537 bytes, at most 65536", "EPHPM.SCAN", "0", "10", "MATCH", long),
		cmd("ERR bad lease or rate-limit argument: count must be 1 to 10000, got 0", "EPHPM.SCAN", "0", "0"),
		cmd("ERR bad lease or rate-limit argument: count must be 1 to 10000, got 10001", "EPHPM.SCAN", "0", "99999999999999999"),
		cmd("ERR value is not an integer or out of range", "EPHPM.SCAN", "0", "x"),
		cmd("ERR invalid cursor", "EPHPM.SCAN", "not a cursor", "10"),
		cmd("ERR syntax error", "EPHPM.SCAN", "0", "10", "MATCH"),
		cmd("ERR syntax error", "EPHPM.SCAN", "0", "10", "COUNT", "5"),
		cmd("ERR wrong number of arguments for 'ephpm.scan' command", "EPHPM.SCAN", "0"),
	})
	// A cursor the server never gave is a position like any other (the
	// store's walk goes in hash order): the largest ends the walk.
	if next, items := scanPage(t, rc.value("SCAN", "18446744073709551615")); next != "0" || len(items) != 0 {
		t.Errorf("SCAN from the last position: %s %v", next, items)
	}
}

// EPHPM.SCAN: exactly count keys visited a page, each with kind, ttl (ms,
// -1 for none), size and fence.
func TestEphpmScan(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(16<<20, 1<<20)})
	rc := dial(t, "unix", addr)
	fillKinds(t, rc, 20)
	fence, ok := rc.value("EPHPM.SETNXFENCED", "lock", "token", "60000").(int64)
	if !ok || fence < 1 {
		t.Fatalf("EPHPM.SETNXFENCED: %v", fence)
	}
	type info struct {
		kind             string
		ttl, size, fence int64
	}
	seen := map[string]info{}
	cursor, pages := "0", 0
	for ; ; pages++ {
		next, items := scanPage(t, rc.value("EPHPM.SCAN", cursor, "3"))
		if len(items)%5 != 0 || len(items) > 5*3 {
			t.Fatalf("a page of %d items for count 3", len(items))
		}
		for i := 0; i < len(items); i += 5 {
			k, kind := items[i].(string), items[i+1].(string)
			seen[k] = info{kind, items[i+2].(int64), items[i+3].(int64), items[i+4].(int64)}
		}
		if next == "0" {
			break
		}
		cursor = next
	}
	if pages < 25/3-1 {
		t.Errorf("%d pages of 3 for 25 keys", pages)
	}
	if len(seen) != 25 {
		t.Errorf("%d keys, want 25: %v", len(seen), seen)
	}
	if got := seen["a:0007"]; got != (info{"value", -1, 1, 0}) {
		t.Errorf("a:0007: %+v", got)
	}
	if got := seen["lock"]; got.kind != "value" || got.ttl < 59000 || got.size != 5 || got.fence != fence {
		t.Errorf("lock: %+v, want fence %d", got, fence)
	}
	if got := seen["ttl"]; got.kind != "value" || got.ttl < 59000 || got.ttl > 60000 || got.size != 11 {
		t.Errorf("ttl: %+v", got)
	}
	if got := seen["cache"]; got.kind != "evictable" || got.ttl != -1 || got.size != 6 {
		t.Errorf("cache: %+v", got)
	}
	if got := seen["rw"]; got.kind != "leases" || got.ttl < 59000 || got.size <= 0 || got.fence < 1 || got.fence >= fence {
		t.Errorf("rw: %+v", got)
	}
	if got := seen["rate"]; got.kind != "ratelog" || got.ttl < 59000 || got.size <= 0 {
		t.Errorf("rate: %+v", got)
	}
	next, items := scanPage(t, rc.value("EPHPM.SCAN", "0", "10000", "MATCH", "a:001*"))
	if next != "0" || len(items) != 5*10 {
		t.Errorf("MATCH a:001*: cursor %s, %d items", next, len(items))
	}
}

func TestClient(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(16<<20, 1<<20)})
	rc := dial(t, "unix", addr)
	other := dial(t, "unix", addr)
	other.do("GET", "k")
	id := rc.value("CLIENT", "ID").(int64)
	otherID := other.value("CLIENT", "ID").(int64)
	if otherID == id || id < 1 || otherID < 1 {
		t.Errorf("ids %d and %d", id, otherID)
	}
	other.do("GET", "k")
	runSteps(t, rc, []step{
		cmd("(nil)", "CLIENT", "GETNAME"),
		cmd("OK", "CLIENT", "SETNAME", "worker-1"), cmd(`"worker-1"`, "CLIENT", "GETNAME"),
		cmd(errClientName, "CLIENT", "SETNAME", "a b"), cmd(`"worker-1"`, "CLIENT", "GETNAME"),
		cmd("ERR unknown subcommand 'BOGUS'. Try CLIENT HELP.", "CLIENT", "BOGUS"),
		cmd("ERR wrong number of arguments for 'client|id' command", "CLIENT", "ID", "x"),
		cmd("ERR Invalid client ID", "CLIENT", "LIST", "ID", "x"),
		cmd("ERR syntax error", "CLIENT", "LIST", "BOGUS"),
		cmd(`""`, "CLIENT", "LIST", "TYPE", "pubsub"),
	})
	list := rc.value("CLIENT", "LIST").(string)
	lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("CLIENT LIST with 2 clients:\n%s", list)
	}
	fields := func(line string) map[string]string {
		m := map[string]string{}
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			m[k] = v
		}
		return m
	}
	mine, theirs := fields(lines[0]), fields(lines[1])
	if mine["id"] != strconv.FormatInt(id, 10) {
		mine, theirs = theirs, mine
		lines[0], lines[1] = lines[1], lines[0]
	}
	if (id < otherID) != (lines[0] == list[:len(lines[0])]) {
		t.Errorf("CLIENT LIST not in the order of ids:\n%s", list)
	}
	want := map[string]string{"id": strconv.FormatInt(id, 10), "addr": addr + ":0", "name": "worker-1", "age": "0", "idle": "0",
		"flags": "U", "db": "0", "cmd": "client", "user": "default", "resp": "2"}
	for k, v := range want {
		if mine[k] != v {
			t.Errorf("%s=%q, want %q in %s", k, mine[k], v, lines[0])
		}
	}
	if theirs["id"] != strconv.FormatInt(otherID, 10) || theirs["cmd"] != "get" || theirs["name"] != "" {
		t.Errorf("the other client: %s", lines[1])
	}
	if n, err := strconv.Atoi(mine["tot-mem"]); err != nil || n <= 0 {
		t.Errorf("tot-mem=%q", mine["tot-mem"])
	}
	only := rc.value("CLIENT", "LIST", "ID", strconv.FormatInt(otherID, 10)).(string)
	if !strings.HasPrefix(only, "id="+strconv.FormatInt(otherID, 10)+" ") || strings.Count(only, "\n") != 1 {
		t.Errorf("CLIENT LIST ID %d: %q", otherID, only)
	}
	if info := rc.value("CLIENT", "INFO").(string); !strings.HasPrefix(info, lines[0][:strings.Index(lines[0], " age=")]) {
		t.Errorf("CLIENT INFO %q, CLIENT LIST's line %q", info, lines[0])
	}
	// An unknown command leaves cmd=NULL, as in Redis; HELLO names too.
	other.do("NOPE")
	runSteps(t, other, []step{cmd(`["server"*`, "HELLO", "2", "SETNAME", "hello-name")})
	if got := other.value("CLIENT", "GETNAME"); got != "hello-name" {
		t.Errorf("after HELLO SETNAME: %v", got)
	}
	other.do("NOPE")
	if got := fields(rc.value("CLIENT", "LIST", "ID", strconv.FormatInt(otherID, 10)).(string)); got["cmd"] != "NULL" {
		t.Errorf("after an unknown command: cmd=%s", got["cmd"])
	}

	// idle counts from the last command, age from the connection.
	_, tcpAddr := startServer(t, Config{TCP: "127.0.0.1:0", Store: storeCfg(16<<20, 1<<20)})
	idler := dial(t, "tcp", tcpAddr)
	idler.do("PING")
	time.Sleep(1100 * time.Millisecond)
	watcher := dial(t, "tcp", tcpAddr)
	lines = strings.Split(strings.TrimSpace(watcher.value("CLIENT", "LIST").(string)), "\n")
	f := fields(lines[0])
	if (f["idle"] != "1" && f["idle"] != "2") || (f["age"] != "1" && f["age"] != "2") || f["flags"] != "N" || f["addr"] != idler.c.LocalAddr().String() || f["laddr"] != tcpAddr {
		t.Errorf("an idle TCP client: %s", lines[0])
	}
}

// redis-cli --scan --pattern lists exactly the server's keys that match,
// over pages (its cursor goes through strtoull: it must be decimal).
func TestRedisCliScan(t *testing.T) {
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli is not installed (apt-get install redis-tools): SCAN is untested with it")
	}
	sock := filepath.Join(t.TempDir(), "kv.sock")
	_, addr := startServer(t, Config{Unix: sock, Store: storeCfg(16<<20, 1<<20)})
	rc := dial(t, "unix", addr)
	var want []string
	for i := range 3000 {
		k := fmt.Sprintf("cache:%d", i)
		if i%100 == 0 {
			k = fmt.Sprintf("lock:%d", i)
			want = append(want, k)
		}
		rc.do("SET", k, "v")
	}
	runSteps(t, rc, []step{cmd("*", "EPHPM.LEASEACQUIRE", "lock:rw", "t", "SHARED", "0", "60000", "0"), cmd("OK", "SET", "xlock:1", "v")})
	want = append(want, "lock:rw")
	out, err := exec.Command(cli, "-s", sock, "--scan", "--pattern", "lock:*").CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli: %v\n%s", err, out)
	}
	got := strings.Fields(string(out))
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("redis-cli --scan --pattern 'lock:*' listed %d keys:\n%v\nwant %d:\n%v", len(got), got, len(want), want)
	}
	if out, err := exec.Command(cli, "-s", sock, "TYPE", "lock:rw").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "ephpm-leases" {
		t.Errorf("redis-cli TYPE lock:rw: %q %v", out, err)
	}
}
