package server

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// startServer runs a server on a unix socket in a temp dir.
func startServer(t testing.TB, cfg Config) (*Server, string) {
	t.Helper()
	if cfg.Unix == "" && cfg.TCP == "" {
		cfg.Unix = filepath.Join(t.TempDir(), "kv.sock")
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, addrs[0].String()
}

// respConn is a minimal RESP client that renders replies as text:
// +OK -> OK, :1 -> 1, $-1 -> (nil), bulk -> "v", -ERR x -> ERR x, arrays -> [a b].
type respConn struct {
	t testing.TB
	c net.Conn
	r *bufio.Reader
}

func dial(t testing.TB, network, addr string) *respConn {
	t.Helper()
	c, err := net.Dial(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &respConn{t: t, c: c, r: bufio.NewReader(c)}
}

func (rc *respConn) do(args ...string) string {
	rc.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := rc.c.Write([]byte(b.String())); err != nil {
		rc.t.Fatal(err)
	}
	return rc.read()
}

func (rc *respConn) read() string {
	rc.t.Helper()
	rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return "EOF"
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+', ':':
		return line[1:]
	case '-':
		return line[1:]
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)"
		}
		buf := make([]byte, n+2)
		io.ReadFull(rc.r, buf)
		return strconv.Quote(string(buf[:n]))
	case '*':
		n, _ := strconv.Atoi(line[1:])
		parts := make([]string, n)
		for i := range parts {
			parts[i] = rc.read()
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return "?" + line
}

type step struct {
	args []string
	want string
}

func cmd(want string, args ...string) step { return step{args, want} }

func runSteps(t *testing.T, rc *respConn, steps []step) {
	t.Helper()
	for _, s := range steps {
		if got := rc.do(s.args...); got != s.want && !(strings.HasSuffix(s.want, "*") && strings.HasPrefix(got, strings.TrimSuffix(s.want, "*"))) {
			t.Errorf("%v = %s, want %s", s.args, got, s.want)
		}
	}
}

func TestCommands(t *testing.T) {
	cases := map[string][]step{
		"ping echo select": {
			cmd("PONG", "PING"), cmd(`"hi"`, "PING", "hi"), cmd(`"x y"`, "ECHO", "x y"),
			cmd("OK", "SELECT", "0"), cmd("ERR DB index is out of range", "SELECT", "1"),
		},
		"get set del exists": {
			cmd("(nil)", "GET", "k"), cmd("OK", "SET", "k", "v"), cmd(`"v"`, "GET", "k"),
			cmd("2", "EXISTS", "k", "k", "nope"), cmd("1", "DEL", "k", "nope"), cmd("0", "DEL", "k"),
		},
		"set nx xx get": {
			cmd("OK", "SET", "k", "a", "NX"), cmd("(nil)", "SET", "k", "b", "NX"), cmd(`"a"`, "GET", "k"),
			cmd("OK", "SET", "k", "b", "XX"), cmd("(nil)", "SET", "other", "b", "XX"), cmd("0", "EXISTS", "other"),
			cmd(`"b"`, "SET", "k", "c", "GET"), cmd("(nil)", "SET", "new", "c", "GET"), cmd(`"c"`, "GET", "new"),
			cmd(`"c"`, "SET", "k", "d", "NX", "GET"), cmd(`"c"`, "GET", "k"),
		},
		"set ifeq": {
			cmd("OK", "SET", "k", "a"), cmd("(nil)", "SET", "k", "b", "IFEQ", "x"), cmd(`"a"`, "GET", "k"),
			cmd("OK", "SET", "k", "b", "IFEQ", "a"), cmd(`"b"`, "GET", "k"), cmd("(nil)", "SET", "missing", "b", "IFEQ", "a"),
		},
		"set expiry options": {
			cmd("OK", "SET", "k", "v", "EX", "100"), cmd("100", "TTL", "k"),
			cmd("OK", "SET", "k", "v", "PX", "5000"), cmd("5", "TTL", "k"),
			cmd("OK", "SET", "k", "w", "KEEPTTL"), cmd("5", "TTL", "k"),
			cmd("OK", "SET", "k", "v"), cmd("-1", "TTL", "k"),
			cmd("OK", "SET", "k", "v", "EXAT", strconv.FormatInt(time.Now().Unix()+51, 10)), cmd("5*", "TTL", "k"),
			cmd("OK", "SET", "k", "v", "PXAT", strconv.FormatInt(time.Now().UnixMilli()+20000, 10)), cmd("20", "TTL", "k"),
			cmd("OK", "SET", "past", "v", "EXAT", "1"), cmd("(nil)", "GET", "past"),
			cmd("ERR invalid expire time in 'set' command", "SET", "k", "v", "EX", "0"),
			cmd("ERR value is not an integer or out of range", "SET", "k", "v", "EX", "soon"),
			cmd("ERR syntax error", "SET", "k", "v", "EX", "1", "PX", "1"),
			cmd("ERR syntax error", "SET", "k", "v", "NX", "XX"),
			cmd("ERR syntax error", "SET", "k", "v", "BOGUS"),
		},
		"setnx setex psetex": {
			cmd("1", "SETNX", "k", "a"), cmd("0", "SETNX", "k", "b"),
			cmd("OK", "SETEX", "e", "10", "v"), cmd("10", "TTL", "e"),
			cmd("OK", "PSETEX", "p", "1500", "v"), cmd("1500*", "PTTL", "p"),
			cmd("ERR invalid expire time in 'setex' command", "SETEX", "e", "-1", "v"),
		},
		"expire pexpire persist ttl": {
			cmd("0", "EXPIRE", "k", "10"), cmd("OK", "SET", "k", "v"), cmd("1", "EXPIRE", "k", "10"),
			cmd("10", "TTL", "k"), cmd("1", "PEXPIRE", "k", "20000"), cmd("20", "TTL", "k"),
			cmd("1", "PERSIST", "k"), cmd("0", "PERSIST", "k"), cmd("-1", "TTL", "k"), cmd("-2", "TTL", "nope"),
			cmd("1", "EXPIRE", "k", "0"), cmd("0", "EXISTS", "k"), // non-positive deletes
			cmd("ERR value is not an integer or out of range", "EXPIRE", "k", "x"),
		},
		"incr family": {
			cmd("1", "INCR", "n"), cmd("11", "INCRBY", "n", "10"), cmd("10", "DECR", "n"), cmd("5", "DECRBY", "n", "5"),
			cmd("OK", "SET", "s", "abc"), cmd("ERR value is not an integer or out of range", "INCR", "s"),
			cmd("ERR value is not an integer or out of range", "INCRBY", "n", "x"),
			cmd("OK", "SET", "max", "9223372036854775807"), cmd("ERR increment or decrement would overflow", "INCR", "max"),
		},
		"delifeq delex": {
			cmd("OK", "SET", "lock", "tok"), cmd("0", "DELIFEQ", "lock", "other"), cmd("1", "DELIFEQ", "lock", "tok"),
			cmd("0", "DELIFEQ", "lock", "tok"),
			cmd("OK", "SET", "k", "a"), cmd("0", "DELEX", "k", "IFEQ", "b"), cmd("0", "DELEX", "k", "IFNE", "a"),
			cmd("1", "DELEX", "k", "IFNE", "b"), cmd("OK", "SET", "k", "a"), cmd("1", "DELEX", "k", "IFEQ", "a"),
			cmd("OK", "SET", "k", "a"), cmd("1", "DELEX", "k"), cmd("ERR syntax error", "DELEX", "k", "IFXX", "a"),
		},
		"mget mset dbsize flush": {
			cmd("OK", "MSET", "a", "1", "b", "2"), cmd(`["1" "2" (nil)]`, "MGET", "a", "b", "c"),
			cmd("2", "DBSIZE"), cmd("OK", "FLUSHDB"), cmd("0", "DBSIZE"), cmd("OK", "SET", "a", "1"), cmd("OK", "FLUSHALL"),
			cmd("ERR wrong number of arguments for 'mset' command", "MSET", "a", "1", "b"),
		},
		"wrong arity and unknown": {
			cmd("ERR wrong number of arguments for 'get' command", "GET"),
			cmd("ERR wrong number of arguments for 'get' command", "GET", "a", "b"),
			cmd("ERR wrong number of arguments for 'set' command", "SET", "k"),
			cmd("ERR wrong number of arguments for 'delifeq' command", "DELIFEQ", "k"),
			cmd("ERR unknown command 'NOPE', with args beginning with: 'x' ", "NOPE", "x"),
		},
		"hello command info config": {
			cmd("[\"server\" \"ephpm-kv\" \"version\" \"0.1.0\" \"proto\" 2 *", "HELLO", "2"),
			cmd("NOPROTO sorry, this protocol version is not supported", "HELLO", "3"),
			cmd("[]", "COMMAND", "DOCS"), cmd(`["save" ""]`, "CONFIG", "GET", "save"),
			cmd(`"# Server*`, "INFO"),
			cmd("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?", "AUTH", "x"),
		},
		"ephpm commands": {
			cmd("*", "EPHPM.SETNXFENCED", "lock", "tok", "60000"), cmd("0", "EPHPM.SETNXFENCED", "lock", "tok2", "60000"), // * a fence: ns clock or more
			cmd("1", "EPHPM.FENCE", "res", "5"), cmd("0", "EPHPM.FENCE", "res", "4"),
			cmd("1", "EPHPM.PEXPIREIFEQ", "lock", "tok", "30000"), cmd("0", "EPHPM.PEXPIREIFEQ", "lock", "bad", "30000"),
			cmd("29999*", "EPHPM.PTTLIFEQ", "lock", "tok"), cmd("-2", "EPHPM.PTTLIFEQ", "lock", "bad"),
			cmd("1", "EPHPM.PEXPIRE", "lock", "0"), cmd("-1", "TTL", "lock"),
			cmd("3", "EPHPM.INCRBY", "n", "3", "50000"), cmd("50", "TTL", "n"),
			cmd(`["keys" 2 *`, "EPHPM.STATS"),
		},
	}
	for name, steps := range cases {
		t.Run(name, func(t *testing.T) {
			_, addr := startServer(t, Config{})
			runSteps(t, dial(t, "unix", addr), steps)
		})
	}
}

func TestStoreErrorsReachClients(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(4096, 1024)})
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{
		cmd("TOOLARGE value is too large: 2000 bytes, max_value_size is 1024", "SET", "big", strings.Repeat("x", 2000)),
		cmd("OK", "SET", "a", strings.Repeat("x", 1000)),
		cmd("OK", "SET", "b", strings.Repeat("y", 1000)),
		cmd("OK", "SET", "c", strings.Repeat("z", 1000)),
		cmd("OOM command not allowed when used memory > 'maxmemory'*", "SET", "d", strings.Repeat("w", 1000)),
	})
}

func TestAuth(t *testing.T) {
	_, addr := startServer(t, Config{Password: "s3cret"})
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{
		cmd("NOAUTH Authentication required.", "GET", "k"),
		cmd("NOAUTH Authentication required.", "PING"),
		cmd("WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "nope"),
		cmd("NOAUTH HELLO must be called*", "HELLO", "2"),
		cmd("OK", "AUTH", "s3cret"),
		cmd("(nil)", "GET", "k"),
	})
	rc2 := dial(t, "unix", addr)
	runSteps(t, rc2, []step{
		cmd("[\"server\"*", "HELLO", "2", "AUTH", "default", "s3cret"),
		cmd("PONG", "PING"),
	})
	rc3 := dial(t, "unix", addr)
	runSteps(t, rc3, []step{cmd("OK", "AUTH", "default", "s3cret"), cmd("PONG", "PING")})
	// the only user is "default", through AUTH and HELLO alike
	rc4 := dial(t, "unix", addr)
	runSteps(t, rc4, []step{
		cmd("WRONGPASS invalid username-password pair or user is disabled.", "AUTH", "bob", "s3cret"),
		cmd("WRONGPASS invalid username-password pair or user is disabled.", "HELLO", "2", "AUTH", "bob", "s3cret"),
		cmd("NOAUTH Authentication required.", "PING"),
	})
}

func TestRefusesPublicBindWithoutPassword(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "localhost:0": true, "[::1]:0": true, "0.0.0.0:0": false, "10.1.2.3:7379": false} {
		_, err := New(Config{TCP: addr})
		if (err == nil) != ok {
			t.Errorf("New(TCP %s) err = %v, want ok=%v", addr, err, ok)
		}
	}
	if _, err := New(Config{TCP: "0.0.0.0:0", Password: "p"}); err != nil {
		t.Errorf("a password should allow any address: %v", err)
	}
}

func TestTCPAndQuit(t *testing.T) {
	_, addr := startServer(t, Config{TCP: "127.0.0.1:0"})
	rc := dial(t, "tcp", addr)
	runSteps(t, rc, []step{cmd("OK", "SET", "k", "v"), cmd("OK", "QUIT")})
	if got := rc.read(); got != "EOF" {
		t.Fatalf("after QUIT read %s, want EOF", got)
	}
}

func TestMaxClients(t *testing.T) {
	_, addr := startServer(t, Config{MaxClients: 2})
	a, b := dial(t, "unix", addr), dial(t, "unix", addr)
	runSteps(t, a, []step{cmd("PONG", "PING")})
	runSteps(t, b, []step{cmd("PONG", "PING")})
	c := dial(t, "unix", addr)
	if got := c.read(); got != "ERR max number of clients reached" {
		t.Fatalf("third client got %s", got)
	}
	a.c.Close()
	time.Sleep(50 * time.Millisecond)
	runSteps(t, dial(t, "unix", addr), []step{cmd("PONG", "PING")})
}

// Oversized or malformed frames get a protocol error and the connection is
// closed, without allocating what a header claims; other clients go on.
func TestProtocolLimits(t *testing.T) {
	s, addr := startServer(t, Config{MaxArgs: 16, MaxBulk: 1024})
	cases := map[string]string{
		"huge array":        "*2147483647\r\n",
		"huge bulk":         "*1\r\n$99999999999\r\n",
		"too many args":     "*17\r\n",
		"bulk over limit":   "*2\r\n$3\r\nSET\r\n$1025\r\n",
		"not a length":      "*x\r\n",
		"missing dollar":    "*1\r\n+PING\r\n",
		"long inline":       strings.Repeat("a", 70000),
		"negative bulk len": "*1\r\n$-5\r\n",
		"negative array":    "*-5\r\n",
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			expectProtocolError(t, addr, raw)
		})
	}
	runSteps(t, dial(t, "unix", addr), []step{cmd("PONG", "PING"), cmd(`"`+strings.Repeat("x", 1024)+`"`, "ECHO", strings.Repeat("x", 1024))})
	for deadline := time.Now().Add(2 * time.Second); s.clients.Load() > 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d clients still counted after their connections closed", s.clients.Load())
		}
	}
}

func TestInlineCommands(t *testing.T) {
	_, addr := startServer(t, Config{})
	rc := dial(t, "unix", addr)
	rc.c.Write([]byte("SET k \"hello world\"\r\nGET k\r\n"))
	if a, b := rc.read(), rc.read(); a != "OK" || b != `"hello world"` {
		t.Fatalf("inline replies %s, %s", a, b)
	}
}

func TestSnapshotSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Unix: filepath.Join(dir, "kv.sock"), Snapshot: filepath.Join(dir, "kv.snap")}
	s, addr := startServer(t, cfg)
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{
		cmd("OK", "SET", "session:1", "data"), cmd("OK", "SET", "lock", "tok", "EX", "100"),
		cmd("OK", "SET", "short", "v", "PX", "50"), cmd("OK", "SET", "bin\x00key", strings.Repeat("\x00\xff", 2000)),
	})
	fence, _ := strconv.ParseInt(rc.do("EPHPM.SETNXFENCED", "job", "t", "60000"), 10, 64)
	runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "invoices", strconv.FormatInt(fence, 10)), cmd("1", "DEL", "job")})
	rc.c.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond) // "short" expires while the server is down

	_, addr = startServer(t, cfg)
	rc2 := dial(t, "unix", addr)
	runSteps(t, rc2, []step{
		cmd(`"data"`, "GET", "session:1"), cmd("-1", "TTL", "session:1"),
		cmd("100", "TTL", "lock"), cmd("(nil)", "GET", "short"),
		cmd(strconv.Quote(strings.Repeat("\x00\xff", 2000)), "GET", "bin\x00key"),
		cmd("3", "DBSIZE"),
		cmd("0", "EPHPM.FENCE", "invoices", strconv.FormatInt(fence-1, 10)), // the resource still refuses stale fences
	})
	if next, _ := strconv.ParseInt(rc2.do("EPHPM.SETNXFENCED", "job", "t", "60000"), 10, 64); next <= fence {
		t.Fatalf("fence %d after a restart, %d before it", next, fence)
	}
}

func TestSnapshotRefusesGarbage(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "kv.snap")
	writeFile(t, path, "not a snapshot")
	if _, err := New(Config{Unix: filepath.Join(dir, "kv.sock"), Snapshot: path}); err == nil {
		t.Fatal("loaded a file that is not a snapshot")
	}
	writeFile(t, path, "EPHPMKV2\x00\x00\x05\x05\x00abc") // format 2 had no checksums
	if _, err := New(Config{Unix: filepath.Join(dir, "kv.sock"), Snapshot: path}); err == nil || !strings.Contains(err.Error(), "older") {
		t.Fatalf("format 2 snapshot: %v", err)
	}
}

// An error reply that quotes the client's bytes cannot carry a line break:
// one would end the error early and the rest would read as the next reply
// (a forged +OK). Like Redis, CR and LF become spaces.
func TestErrorRepliesCannotInject(t *testing.T) {
	_, addr := startServer(t, Config{})
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{
		cmd("ERR unknown command 'x  +OK', with args beginning with: *", "x\r\n+OK"),
		cmd("ERR unknown command 'nosuch', with args beginning with: 'a  :1' ", "nosuch", "a\r\n:1"),
		cmd("ERR CONFIG X  +OK is not supported", "CONFIG", "x\r\n+OK"),
		cmd("PONG", "PING"),
	})
}

// -v logs connections that closed with an error, not every client that
// hung up between commands; one that hung up inside a command is logged.
func TestVerboseLogsOnlyErrors(t *testing.T) {
	var logged strings.Builder
	var mu sync.Mutex
	cfg := Config{Unix: filepath.Join(t.TempDir(), "kv.sock")}
	cfg.Logger = slog.New(slog.NewTextHandler(syncWriter{&mu, &logged}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// idle, then gone; a command answered, then gone; cut inside a command
	for _, raw := range []string{"", "PING\r\n", "*2\r\n$3\r\nGET\r\n$5\r\nab"} {
		c, err := net.Dial("unix", cfg.Unix)
		if err != nil {
			t.Fatal(err)
		}
		if raw != "" {
			c.Write([]byte(raw))
		}
		if raw == "PING\r\n" {
			io.ReadFull(c, make([]byte, len("+PONG\r\n")))
		}
		c.Close()
	}
	for deadline := time.Now().Add(5 * time.Second); s.clients.Load() != 0 || s.totalConns.Load() != 3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("clients did not go away")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logged.String(), "connection closed"); n != 1 {
		t.Errorf("%d connection lines, want 1 (the one cut inside a command):\n%s", n, logged.String())
	}
}
