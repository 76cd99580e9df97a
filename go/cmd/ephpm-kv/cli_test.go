package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/etcdkv"
	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
	"github.com/ephpm/ephpm-kv/shm"
)

// The operator's commands (cli.go), run as the real binary: the test
// binary doubles as ephpm-kv (TestMain, EPHPM_KV_AS_SERVER=1), and
// TestCLIChild as the PHP workers writing into a named segment meanwhile.

const segSize = 4 << 20

// runCLI runs ephpm-kv with args and returns its stdout, stderr and exit
// status.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	c := exec.Command(os.Args[0], args...)
	// Under -race a process waits 1 s at exit for late reports: not here,
	// where each command is a process.
	c.Env = append(os.Environ(), "EPHPM_KV_AS_SERVER=1", "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	var out, errb bytes.Buffer
	c.Stdout, c.Stderr = &out, &errb
	err := runBriefly(c)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("ephpm-kv %s: %v", strings.Join(args, " "), err)
	}
	if strings.Contains(errb.String(), "goroutine ") {
		t.Errorf("ephpm-kv %s panicked:\n%s", strings.Join(args, " "), errb.String())
	}
	return out.String(), errb.String(), code
}

// runIn is runCLI in this process (the commands' entry, cli.run), with
// the exit status main would give and its message.
func runIn(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := (&cli{stdout: &out, stderr: &errb}).run(args)
	var u usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, &u):
		code = 2
		if !u.printed {
			t.Errorf("ephpm-kv %s: a usage error not printed: %v", strings.Join(args, " "), err)
		}
	default:
		code = 1
		fmt.Fprintln(&errb, "ephpm-kv:", err)
	}
	return out.String(), errb.String(), code
}

// mustCLI is runCLI that wants exit status 0.
func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("ephpm-kv %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

// wantExit runs args and wants exit status code with every want in stderr.
func wantExit(t *testing.T, code int, args []string, want ...string) string {
	t.Helper()
	return wantExitOf(t, runCLI, code, args, want...)
}

func wantExitOf(t *testing.T, run func(*testing.T, ...string) (string, string, int), code int, args []string, want ...string) string {
	t.Helper()
	_, errs, got := run(t, args...)
	if got != code {
		t.Errorf("ephpm-kv %s: exit %d, want %d\n%s", strings.Join(args, " "), got, code, errs)
	}
	for _, w := range want {
		if !strings.Contains(errs, w) {
			t.Errorf("ephpm-kv %s: the message does not say %q:\n%s", strings.Join(args, " "), w, errs)
		}
	}
	return errs
}

type keyJSON struct {
	Key     string `json:"key"`
	Kind    string `json:"kind"`
	TTL     *int64 `json:"ttl_ms"`
	Size    int64  `json:"size"`
	Holders int64  `json:"holders"`
	Token   string `json:"token"`
	Fence   *int64 `json:"fence"`
}

func parseList(t *testing.T, out string) map[string]keyJSON {
	t.Helper()
	var rows []keyJSON
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("not one JSON array: %v\n%.2000s", err, out)
	}
	m := map[string]keyJSON{}
	for _, r := range rows {
		m[r.Key] = r
	}
	return m
}

var segments atomic.Int64

// newSegment creates a named segment in /dev/shm, as the extension would
// (mode 0600, formatted by the first attach), and returns its name and
// this process's engine on it.
func newSegment(t *testing.T) (string, string, *shm.Engine) {
	t.Helper()
	name := fmt.Sprintf("/ephpm-kv-cli-test-%d-%d", os.Getpid(), segments.Add(1))
	path := shmDir + name
	os.Remove(path)
	t.Cleanup(func() { os.Remove(path) })
	mem, err := shm.MapFile(path, segSize)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shm.Unmap(mem) })
	e, err := shm.Attach(mem, shm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return name, path, e
}

// TestCLIChild is a PHP worker in another process: it attaches the
// segment at EPHPM_KV_CLI_SEGMENT and, until its stdin closes, writes and
// deletes keys of its own (values with and without a ttl, a lease set),
// saying READY once it has.
func TestCLIChild(t *testing.T) {
	path := os.Getenv("EPHPM_KV_CLI_SEGMENT")
	if path == "" {
		t.Skip("run by TestCLIShmWalkBesideWriters")
	}
	mem, err := shm.MapFile(path, segSize) // of that size already: neither created nor grown
	if err != nil {
		t.Fatal(err)
	}
	e, err := shm.Attach(mem, shm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	id := os.Getenv("EPHPM_KV_CLI_ID")
	var stop atomic.Bool
	go func() {
		io.Copy(io.Discard, os.Stdin)
		stop.Store(true)
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; !stop.Load() && time.Now().Before(deadline); i++ {
		k := fmt.Sprintf("churn:%s:%d", id, i%500)
		switch i % 5 {
		case 0, 3:
			e.Del(k)
		case 1:
			e.Set(k, []byte("churning"), 0)
		case 2:
			e.SetNX(k, []byte("token"), time.Minute)
		case 4:
			tok := []byte(strconv.Itoa(i))
			e.LeaseAcquire("churn:rw:"+id, tok, kv.LeaseShared, 0, time.Minute, 0)
			e.LeaseRelease("churn:rw:"+id, tok)
		}
		if i == 2000 {
			fmt.Println("READY")
		}
		if i%64 == 0 {
			time.Sleep(time.Millisecond) // writing all along, leaving the walk a core on a small machine
		}
	}
}

// startWriter starts a TestCLIChild on the segment at path; closing the
// returned writer stops it, and wait waits for its end.
func startWriter(t *testing.T, path string, id int) (stop io.Closer, wait func() error) {
	t.Helper()
	c := exec.Command(os.Args[0], "-test.run=^TestCLIChild$", "-test.count=1", "-test.timeout=5m")
	c.Env = append(os.Environ(), "EPHPM_KV_CLI_SEGMENT="+path, "EPHPM_KV_CLI_ID="+strconv.Itoa(id))
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = os.Stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	ready := make(chan bool, 1)
	go func() {
		s := bufio.NewScanner(out)
		for s.Scan() {
			if s.Text() == "READY" {
				ready <- true
			}
		}
		io.Copy(io.Discard, out)
		close(ready)
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("a writer ended before it was ready")
		}
	case <-time.After(time.Minute):
		t.Fatal("a writer was not ready after a minute")
	}
	return in, c.Wait
}

// The CLI on a named segment that two other processes write into and
// delete from all along: every key that was there for the whole walk is
// listed, whatever page size, each with its kind, time left and size;
// locks lists the locks and lease sets; get, del and stats.
func TestCLIShmWalkBesideWriters(t *testing.T) {
	name, path, e := newSegment(t)
	for i := range 300 {
		if err := e.Set(fmt.Sprintf("stable:%03d", i), []byte(fmt.Sprint("value-", i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	// lock:0 to lock:2 taken as Ephpm\Lock takes them, with a fence;
	// lock:3 and lock:4 by a plain setnx, with none.
	fences := map[string]int64{}
	for i := range 5 {
		k, tok := fmt.Sprintf("lock:%d", i), []byte(fmt.Sprint("token-", i))
		ok, err := false, error(nil)
		if i < 3 {
			fences[k], ok, err = e.SetNXFenced(k, tok, time.Hour)
		} else {
			ok, err = e.SetNX(k, tok, time.Hour)
		}
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	for _, tok := range []string{"reader-1", "reader-2"} {
		f, ok, err := e.LeaseAcquire("rw", []byte(tok), kv.LeaseShared, 0, time.Hour, 0)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		fences["rw"] = f
	}
	for _, tok := range []string{"permit-1", "permit-2"} {
		f, ok, err := e.LeaseAcquire("sem", []byte(tok), kv.LeasePermit, 3, time.Hour, 0)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		fences["sem"] = f
	}
	if _, _, _, err := e.RateLimit("rate", 10, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := kv.SetEvictable(e, "cache:1", []byte("cached"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Incr("counter", 5, 0); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(path)

	var stops []io.Closer
	var waits []func() error
	for id := range 2 {
		stop, wait := startWriter(t, path, id)
		stops, waits = append(stops, stop), append(waits, wait)
	}
	for _, count := range []string{"7", "10000"} {
		keys := parseList(t, mustCLI(t, "keys", "--shm", name, "--json", "--count", count))
		for i := range 300 {
			k := fmt.Sprintf("stable:%03d", i)
			if got, ok := keys[k]; !ok || got.Kind != "value" || got.TTL != nil || got.Size != int64(len(fmt.Sprint("value-", i))) {
				t.Errorf("--count %s: %s: %+v (listed: %t), there all along", count, k, got, ok)
			}
		}
		for k, kind := range map[string]string{"lock:0": "value", "rw": "leases", "sem": "leases", "rate": "ratelog", "cache:1": "evictable", "counter": "value"} {
			if got := keys[k]; got.Kind != kind {
				t.Errorf("--count %s: %s: %+v, want kind %s", count, k, got, kind)
			}
		}
		churn := 0
		for k := range keys {
			if strings.HasPrefix(k, "churn:") {
				churn++
			}
		}
		if churn == 0 {
			t.Errorf("--count %s: no key of the writers listed: were they writing?", count)
		}
		if got := keys["lock:3"]; got.TTL == nil || *got.TTL <= 0 || *got.TTL > time.Hour.Milliseconds() {
			t.Errorf("lock:3's time left: %+v", got)
		}
	}

	// A pattern, a limit, the table.
	if keys := parseList(t, mustCLI(t, "keys", "stable:1*", "--shm", name, "--json", "--count", "13")); len(keys) != 100 {
		t.Errorf("stable:1*: %d keys, want 100", len(keys))
	}
	if keys := parseList(t, mustCLI(t, "keys", "--shm", name, "--json", "--limit", "5")); len(keys) != 5 {
		t.Errorf("--limit 5: %d keys", len(keys))
	}
	table := mustCLI(t, "keys", "--shm", name, "stable:00?")
	if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 11 || !strings.HasPrefix(lines[0], "KIND") ||
		!strings.Contains(table, "value") || !strings.Contains(table, "stable:007") {
		t.Errorf("the table of stable:00?:\n%s", table)
	}

	// The locks: plain ones with their tokens, lease sets with their holders.
	locks := parseList(t, mustCLI(t, "locks", "--shm", name, "--json", "--show-tokens", "--count", "50"))
	for i := range 5 {
		k := fmt.Sprintf("lock:%d", i)
		got := locks[k]
		if got.Kind != "lock" || got.Holders != 1 || got.Token != fmt.Sprint("token-", i) || got.TTL == nil || *got.TTL <= 0 {
			t.Errorf("locks: %s: %+v", k, got)
		}
		if f, fenced := fences[k]; fenced != (got.Fence != nil) || fenced && *got.Fence != f {
			t.Errorf("locks: %s: fence %v, want %d (fenced: %v)", k, got.Fence, f, fenced)
		}
	}
	for k, n := range map[string]int64{"rw": 2, "sem": 2} {
		if got := locks[k]; got.Kind != "leases" || got.Holders != n || got.TTL == nil || got.Fence == nil || *got.Fence != fences[k] {
			t.Errorf("locks: %s: %+v, want %d holders and the newest one's fence %d", k, got, n, fences[k])
		}
	}
	for _, k := range []string{"stable:001", "rate", "cache:1", "counter"} {
		if got, ok := locks[k]; ok {
			t.Errorf("locks listed %s, which is no lock: %+v", k, got)
		}
	}
	out := mustCLI(t, "locks", "lock:*", "--shm", name)
	if strings.Contains(out, "token-") || !strings.Contains(out, "lock:4") || !strings.Contains(out, "FENCE") ||
		!strings.Contains(out, fmt.Sprintf(" %d  lock:1\n", fences["lock:1"])) || !strings.Contains(out, " -  lock:4\n") {
		t.Errorf("locks without --show-tokens:\n%s", out)
	}

	var st map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "stats", "--shm", name, "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st["engine"] != "shm" || st["target"] != name || st["keys"].(float64) < 300 || st["bytes_limit"].(float64) <= 0 {
		t.Errorf("stats: %v", st)
	}
	for _, f := range kv.StatsFields {
		if _, ok := st[f.Name]; !ok {
			t.Errorf("stats --json has no %s", f.Name)
		}
	}
	if out := mustCLI(t, "stats", "--shm", name); !strings.Contains(out, "bytes_used") {
		t.Errorf("stats:\n%s", out)
	}

	for _, stop := range stops {
		stop.Close()
	}
	for _, wait := range waits {
		if err := wait(); err != nil {
			t.Errorf("a writer: %v", err)
		}
	}

	if out := mustCLI(t, "get", "--shm", name, "stable:042"); out != "value-42" {
		t.Errorf("get stable:042: %q", out)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "get", "lock:1", "--shm", name, "--json")), &got); err != nil ||
		got["value"] != "token-1" || got["ttl_ms"].(float64) <= 0 {
		t.Errorf("get --json lock:1: %v %v", got, err)
	}
	if out := mustCLI(t, "del", "--shm", name, "stable:042"); !strings.Contains(out, "deleted") {
		t.Errorf("del: %q", out)
	}
	wantExit(t, 1, []string{"get", "--shm", name, "stable:042"}, "no such key")
	if out := mustCLI(t, "del", "--shm", name, "--json", "stable:042"); strings.TrimSpace(out) != `{"key": "stable:042", "deleted": false}` {
		t.Errorf("del --json of a key not there: %q", out)
	}
	if after, err := os.Stat(path); err != nil || after.Size() != before.Size() || after.Mode() != before.Mode() {
		t.Errorf("the segment changed: %v %v, was %v", after, err, before)
	}
}

// A segment the extension would refuse, the CLI refuses: another user's,
// one others may read or write, no such segment, a name that is no
// segment name, a symbolic link, an empty file. None is created, sized
// or changed.
func TestCLIShmRefusals(t *testing.T) {
	wantExit(t, 1, []string{"stats", "--shm", "/ephpm-kv-cli-no-such-segment"}, "no shared memory segment /ephpm-kv-cli-no-such-segment", "never")
	if _, err := os.Stat(shmDir + "/ephpm-kv-cli-no-such-segment"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unknown segment was created: %v", err)
	}
	wantExit(t, 2, []string{"keys", "--shm", "app"}, "--shm", "/app")
	wantExit(t, 2, []string{"keys", "--shm", "/dev/shm/app"}, "/app")
	wantExit(t, 2, []string{"keys", "--shm", "/.."}, "--shm")

	name, path, e := newSegment(t)
	e.Set("k", []byte("v"), 0)
	if os.Geteuid() == 0 {
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		wantExit(t, 1, []string{"keys", "--shm", name}, "belongs to uid 65534", "runs as uid 0")
		os.Chown(path, 0, 0)
	} else {
		t.Log("not root: another user's segment is not tried")
	}
	os.Chmod(path, 0o640)
	wantExit(t, 1, []string{"get", "--shm", name, "k"}, "mode 0640", "other users")
	os.Chmod(path, 0o606)
	wantExit(t, 1, []string{"del", "--shm", name, "k"}, "mode 0606")
	os.Chmod(path, 0o600)
	if out := mustCLI(t, "get", "--shm", name, "k"); out != "v" {
		t.Errorf("get k after the mode was put back: %q", out)
	}

	link := fmt.Sprintf("/ephpm-kv-cli-link-%d", os.Getpid())
	if err := os.Symlink(path, shmDir+link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(shmDir + link) })
	wantExit(t, 1, []string{"stats", "--shm", link}, "symbolic link")

	empty := fmt.Sprintf("/ephpm-kv-cli-empty-%d", os.Getpid())
	if err := os.WriteFile(shmDir+empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(shmDir + empty) })
	wantExit(t, 1, []string{"stats", "--shm", empty}, "empty (0 bytes)")
	small := fmt.Sprintf("/ephpm-kv-cli-small-%d", os.Getpid())
	if err := os.WriteFile(shmDir+small, []byte("not a segment"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(shmDir + small) })
	wantExit(t, 1, []string{"stats", "--shm", small}, "not an ephpm-kv segment")
	for _, p := range []string{empty, small} {
		if fi, _ := os.Stat(shmDir + p); fi.Size() > 13 {
			t.Errorf("%s was resized to %d", p, fi.Size())
		}
	}
}

// --server: any ephpm.server address, here an ephpm-kv server this test
// starts, on a unix socket.
func TestCLIServer(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "kv.sock")
	start(t, sock)
	c := mustDial(t, sock)
	mustDo(t, c, "SET", "plain", "hello")
	mustDo(t, c, "SET", "lock:job", "tok-1", "PX", "60000")
	mustDo(t, c, "EPHPM.LEASEACQUIRE", "rw", "reader", "SHARED", "0", "60000", "0")
	url := "unix://" + sock

	var st map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "stats", "--server", url, "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st["engine"] != "server" || st["keys"].(float64) != 3 {
		t.Errorf("stats: %v", st)
	}
	if out := mustCLI(t, "get", "--server", url, "plain"); out != "hello" {
		t.Errorf("get plain: %q", out)
	}
	wantExit(t, 1, []string{"get", "--server", url, "nothing"}, "no such key")

	if _, ok := any(&remote.Engine{}).(kv.Scanner); ok {
		keys := parseList(t, mustCLI(t, "keys", "--server", url, "--json", "--count", "1"))
		if len(keys) != 3 || keys["plain"].Kind != "value" || keys["plain"].Size != 5 || keys["rw"].Kind != "leases" ||
			keys["lock:job"].TTL == nil || *keys["lock:job"].TTL <= 0 {
			t.Errorf("keys --server: %+v", keys)
		}
		locks := parseList(t, mustCLI(t, "locks", "--server", url, "--json", "--show-tokens"))
		if len(locks) != 2 || locks["lock:job"].Token != "tok-1" || locks["rw"].Holders != 1 {
			t.Errorf("locks --server: %+v", locks)
		}
	} else {
		t.Log("remote.Engine has no Scan yet: keys and locks over --server are not tried")
		wantExit(t, 1, []string{"keys", "--server", url}, "cannot list its keys")
	}

	if out := mustCLI(t, "del", "--server", url, "plain"); !strings.Contains(out, "deleted") {
		t.Errorf("del: %q", out)
	}
	if r := mustDo(t, c, "EXISTS", "plain"); r != "0" {
		t.Errorf("plain after del: EXISTS %s", r)
	}
	wantExit(t, 1, []string{"stats", "--server", "unix://" + filepath.Join(t.TempDir(), "none.sock"), "--timeout", "1s"}, "stats:")
}

// Bad command lines: exit status 2 and a message that says what is wrong;
// help and --help: 0, on stdout.
func TestCLIUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"frob"}, []string{`unknown command "frob"`, "stats, keys, locks, get, del, help"}},
		{[]string{"keys", "--shm", "/x", "--limit", "0"}, []string{"--limit 0", "ephpm-kv keys --help"}},
		{[]string{"keys", "--shm", "/x", "--limit=-3"}, []string{"--limit -3"}},
		{[]string{"locks", "--shm", "/x", "--count", "0"}, []string{"--count 0"}},
		{[]string{"keys", "--shm", "/x", "--count", "10001"}, []string{"--count 10001"}},
		{[]string{"keys", "--shm", "/x", strings.Repeat("a", kv.MaxKeySize+1)}, []string{"PATTERN of 65537 bytes"}},
		{[]string{"keys", "--shm", "/x", "a*", "b*"}, []string{`unexpected argument "b*"`}},
		{[]string{"keys"}, []string{"--shm /NAME", "--server URL"}},
		{[]string{"keys", "--shm", "/x", "--server", "unix:///x"}, []string{"give one"}},
		{[]string{"get", "--shm", "/x"}, []string{"want KEY"}},
		{[]string{"get", "--shm", "/x", ""}, []string{"KEY"}},
		{[]string{"del", "--shm", "/x", strings.Repeat("k", kv.MaxKeySize+1)}, []string{"KEY"}},
		{[]string{"stats", "--shm", "/x", "--no-such-flag"}, []string{"no-such-flag"}},
		{[]string{"stats", "--shm", "/x", "--password", "pw"}, []string{"for --server"}},
		{[]string{"stats", "--server", "nonsense://x"}, []string{"nonsense"}},
		{[]string{"help", "frob"}, []string{"frob"}},
	} {
		wantExitOf(t, runIn, 2, tc.args, tc.want...)
	}
	// The binary: the dispatch in main, its exit statuses.
	wantExit(t, 2, []string{"frob"}, `unknown command "frob"`)
	wantExit(t, 2, []string{"keys", "--shm", "/x", "--limit", "0"}, "--limit 0")

	out := mustCLI(t, "help")
	for _, w := range []string{"stats", "keys [PATTERN]", "locks [PATTERN]", "get KEY", "del KEY", "--shm /NAME", "--server URL", "Exit status"} {
		if !strings.Contains(out, w) {
			t.Errorf("help does not mention %q:\n%s", w, out)
		}
	}
	for _, args := range [][]string{{"keys", "--help"}, {"help", "keys"}, {"keys", "-h"}} {
		if out, _, _ := runIn(t, args...); !strings.Contains(out, "-limit") || !strings.Contains(out, "Redis glob") {
			t.Errorf("%v:\n%s", args, out)
		}
	}
	if out, _, _ := runIn(t, "locks", "--help"); !strings.Contains(out, "fence is not stored") || !strings.Contains(out, "-show-tokens") {
		t.Errorf("locks --help:\n%s", out)
	}
	// "--" ends the flags: a key that looks like one.
	name, _, e := newSegment(t)
	e.Set("--json", []byte("dashes"), 0)
	if out, _, _ := runIn(t, "get", "--shm", name, "--", "--json"); out != "dashes" {
		t.Errorf("get -- --json: %q", out)
	}
}

// --server etcd://: the etcd engine's Scan through the CLI, on a 3-member
// cluster (build/etcd-cluster.sh, as go/etcdkv's tests): kinds, whole
// seconds, the locks with their holders, nothing of the fence records or
// lease holders, which live outside the data prefix.
func TestCLIEtcd(t *testing.T) {
	if _, err := exec.LookPath("etcd"); err != nil {
		t.Skip("etcd is not installed (build/deps.sh etcd)")
	}
	script, _ := filepath.Abs("../../../build/etcd-cluster.sh")
	dir, err := os.MkdirTemp("/dev/shm", "ephpm-kv-cli-etcd-")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(script, "start", dir, "auto").Output()
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("etcd-cluster.sh start: %v", err)
	}
	t.Cleanup(func() {
		exec.Command(script, "stop", dir).Run()
		os.RemoveAll(dir)
	})
	endpoints := strings.TrimSpace(string(out))
	url := "etcd://" + endpoints
	e, err := etcdkv.NewFromURL(url, "", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := range 30 {
		if err := e.Set(fmt.Sprintf("plain:%02d", i), []byte("value"), 0); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := e.SetNX("lock:job", []byte("tok-1"), time.Minute); err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, tok := range []string{"r1", "r2"} {
		if _, ok, err := e.LeaseAcquire("rw", []byte(tok), kv.LeaseShared, 0, time.Minute, 0); err != nil || !ok {
			t.Fatal(ok, err)
		}
	}
	if _, _, _, err := e.RateLimit("rate", 5, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Fence("resource", 7); err != nil {
		t.Fatal(err)
	}
	keys := parseList(t, mustCLI(t, "keys", "--server", url, "--json", "--count", "4"))
	if len(keys) != 33 {
		t.Errorf("keys: %d, want 33 (30 values, a lock, a lease set, a rate log): %v", len(keys), keys)
	}
	for k, kind := range map[string]string{"plain:07": "value", "lock:job": "value", "rw": "leases", "rate": "ratelog"} {
		if got := keys[k]; got.Kind != kind {
			t.Errorf("%s: %+v, want kind %s", k, got, kind)
		}
	}
	if got := keys["lock:job"]; got.TTL == nil || *got.TTL <= 0 || *got.TTL > 60000 || *got.TTL%1000 != 0 {
		t.Errorf("lock:job: %+v, want whole seconds up to a minute", got)
	}
	if got := parseList(t, mustCLI(t, "keys", "plain:1*", "--server", url, "--json")); len(got) != 10 {
		t.Errorf("plain:1*: %d keys", len(got))
	}
	locks := parseList(t, mustCLI(t, "locks", "--server", url, "--json", "--show-tokens"))
	if len(locks) != 2 || locks["lock:job"].Token != "tok-1" || locks["rw"].Holders != 2 {
		t.Errorf("locks: %+v", locks)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(mustCLI(t, "stats", "--server", url, "--json")), &st); err != nil || st["keys"].(float64) != 33 {
		t.Errorf("stats: %v %v", st, err)
	}
	if out := mustCLI(t, "get", "--server", url, "plain:03"); out != "value" {
		t.Errorf("get: %q", out)
	}
	mustCLI(t, "del", "--server", url, "lock:job")
	if ok, err := e.Exists("lock:job"); err != nil || ok {
		t.Errorf("lock:job after del: %t %v", ok, err)
	}
}
