package remote

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/server"
	"github.com/ephpm/ephpm-kv/store"
)

func startServer(t *testing.T, cfg server.Config) string {
	t.Helper()
	cfg.Unix = filepath.Join(t.TempDir(), "kv.sock")
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return "unix://" + cfg.Unix
}

// startServerBoth starts a server listening on a unix socket and on TCP,
// and returns both URLs.
func startServerBoth(t *testing.T, cfg server.Config) []string {
	t.Helper()
	cfg.Unix = filepath.Join(t.TempDir(), "kv.sock")
	cfg.TCP = "127.0.0.1:0"
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return []string{"unix://" + cfg.Unix, "tcp://" + addrs[1].String()}
}

// silentServer accepts connections and never answers; it returns its URL.
func silentServer(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "silent.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	return "unix://" + path
}

func newEngine(t *testing.T, url, password string, timeout time.Duration) *Engine {
	t.Helper()
	e, err := New(url, password, timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func get(t *testing.T, e kv.Engine, key string) (string, bool) {
	t.Helper()
	buf := make([]byte, 4)
	n, ok, err := e.Get(key, buf)
	if err != nil {
		t.Fatal(err)
	}
	if ok && n > len(buf) {
		buf = make([]byte, n)
		n, ok, err = e.Get(key, buf)
		if err != nil {
			t.Fatal(err)
		}
	}
	return string(buf[:n]), ok
}

func TestParseAddress(t *testing.T) {
	long := "/" + strings.Repeat("x", maxUnixPath)
	cases := []struct{ in, network, addr, why string }{
		{"unix:///run/ephpm-kv.sock", "unix", "/run/ephpm-kv.sock", ""},
		{"unix:/run/ephpm-kv.sock", "unix", "/run/ephpm-kv.sock", ""},
		{"/run/ephpm-kv.sock", "unix", "/run/ephpm-kv.sock", ""},
		{"tcp://127.0.0.1:7379", "tcp", "127.0.0.1:7379", ""},
		{"tcp://localhost:7379", "tcp", "localhost:7379", ""},
		{"tcp://[::1]:7379", "tcp", "[::1]:7379", ""},
		{"127.0.0.1:7379", "tcp", "127.0.0.1:7379", ""},
		{"unix://run/ephpm-kv.sock", "", "", "three slashes"},
		{"unix:run/ephpm-kv.sock", "", "", "must be absolute"},
		{"unix://", "", "", "three slashes"},
		{"unix:", "", "", "must be absolute"},
		{"run/ephpm-kv.sock", "", "", "must be absolute"},
		{"unix://" + long, "", "", "at most 107 bytes"},
		{"tcp:127.0.0.1:7379", "", "", "tcp://host:port"},
		{"tcp://127.0.0.1", "", "", "expected host:port"},
		{"tcp://:7379", "", "", "host is missing"},
		{"tcp://127.0.0.1:http", "", "", "port must be a number"},
		{"tcp://127.0.0.1:0", "", "", "port must be a number"},
		{"127.0.0.1:99999", "", "", "port must be a number"},
		{"redis://127.0.0.1:6379", "tcp", "127.0.0.1:6379", ""},
		{"redis://localhost", "tcp", "localhost:6379", ""},
		{"redis://[::1]", "tcp", "[::1]:6379", ""},
		{"redis://[::1]:6380", "tcp", "[::1]:6380", ""},
		{"redis://127.0.0.1:0", "", "", "port must be a number"},
		{"redis://", "", "", "host is missing"},
		{"redis://:pw@127.0.0.1:6379", "", "", "only host and port"},
		{"redis://127.0.0.1:6379/2", "", "", "only host and port"},
		{"redis:127.0.0.1:6379", "", "", "redis://host:port"},
		{"rediss://127.0.0.1:6379", "tls", "127.0.0.1:6379", ""},
		{"rediss://localhost", "tls", "localhost:6379", ""},
		{"rediss:/x", "", "", "rediss://host:port"},
		{"valkey://127.0.0.1:6379", "", "", `unknown scheme "valkey"`},
		{"http://x", "", "", `unknown scheme "http"`},
		{"nonsense", "", "", "not an address"},
		{"", "", "", "empty"},
		{" /run/ephpm-kv.sock", "", "", "spaces around"},
		{"/run/ephpm-kv.sock ", "", "", "spaces around"},
		{"tcp://127.0.0.1:7379\n", "", "", "spaces around"},
		{"127.0.0.1:+7379", "", "", "port must be a number"},
		{"::1:7379", "", "", "in brackets"},
		{"tcp://::1:7379", "", "", "in brackets"},
	}
	for _, c := range cases {
		n, a, err := ParseAddress(c.in)
		if n != c.network || a != c.addr || (err != nil) != (c.why != "") {
			t.Errorf("ParseAddress(%q) = %q, %q, %v", c.in, n, a, err)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), c.why) || !strings.HasPrefix(err.Error(), "ephpm.server ")) {
			t.Errorf("ParseAddress(%q): message %q should start with ephpm.server and say %q", c.in, err, c.why)
		}
	}
}

// Each accepted form reaches the server; the refused ones never dial.
func TestAddressFormsConnect(t *testing.T) {
	sock := strings.TrimPrefix(startServer(t, server.Config{}), "unix://")
	for _, url := range []string{"unix://" + sock, "unix:" + sock, sock} {
		if err := newEngine(t, url, "", time.Second).Set("k", []byte("v"), 0); err != nil {
			t.Errorf("%s: %v", url, err)
		}
	}
	if _, err := New("unix://"+strings.TrimPrefix(sock, "/"), "", time.Second); err == nil {
		t.Error("unix:// with a relative path was accepted")
	}
}

func TestStoreErrorsKeepTheirMeaning(t *testing.T) {
	e := newEngine(t, startServer(t, server.Config{Store: store.Config{MemoryLimit: 4096, MaxValueSize: 1024, CompressMin: -1}}), "", time.Second)
	if err := e.Set("big", make([]byte, 2000), 0); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Fatalf("too large: %v", err)
	}
	var err error
	for i := 0; err == nil && i < 10; i++ {
		_, err = e.SetNX(strings.Repeat("k", i+1), make([]byte, 1000), 0)
	}
	if !errors.Is(err, kv.ErrFull) {
		t.Fatalf("full store: %v", err)
	}
}

// An unreachable server is an error, never "someone else holds it".
func TestUnreachableIsAnError(t *testing.T) {
	e := newEngine(t, "unix://"+filepath.Join(t.TempDir(), "nobody.sock"), "", 200*time.Millisecond)
	if ok, err := e.SetNX("lock", []byte("t"), time.Second); ok || !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("setnx against no server = %v, %v", ok, err)
	}
	if _, _, err := e.Get("k", nil); !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("get against no server: %v", err)
	}
}

// A server that accepts but never answers: the op times out with an error.
func TestTimeoutIsAnError(t *testing.T) {
	e := newEngine(t, silentServer(t), "", 100*time.Millisecond)
	start := time.Now()
	ok, err := e.SetNX("lock", []byte("t"), time.Second)
	if ok || !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "may or may not") {
		t.Fatalf("setnx against a silent server = %v, %v", ok, err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("timeout took %v", took)
	}
}

func TestReconnectsAfterServerRestart(t *testing.T) {
	dir := t.TempDir()
	cfg := server.Config{Unix: filepath.Join(dir, "kv.sock"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s := must(server.New(cfg))
	must(s.Listen())
	e := newEngine(t, "unix://"+cfg.Unix, "", 500*time.Millisecond)
	if err := e.Set("k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := e.Set("k", []byte("v"), 0); !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("set while down: %v", err)
	}
	s = must(server.New(cfg))
	must(s.Listen())
	defer s.Close()
	if err := e.Set("k", []byte("again"), 0); err != nil {
		t.Fatalf("set after restart: %v", err)
	}
}

func TestPassword(t *testing.T) {
	url := startServer(t, server.Config{Password: "s3cret"})
	if err := newEngine(t, url, "wrong", time.Second).Set("k", nil, 0); !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "ephpm.server_password") {
		t.Fatalf("wrong password: %v", err)
	}
	if err := newEngine(t, url, "s3cret", time.Second).Set("k", nil, 0); err != nil {
		t.Fatalf("right password: %v", err)
	}
}

// A server at --maxclients answers a new connection with "-ERR max number
// of clients reached" and closes it: unavailable, saying so (it read as an
// unknown error: KvException INTERNAL, "this is a bug"). Once a client
// leaves, the same engine gets in.
func TestServerAtMaxClients(t *testing.T) {
	for _, pass := range []string{"", "pw"} {
		url := startServer(t, server.Config{MaxClients: 1, Password: pass})
		holder := newEngine(t, url, pass, time.Second)
		if err := holder.Set("k", []byte("v"), 0); err != nil {
			t.Fatal(err)
		}
		e := newEngine(t, url, pass, time.Second)
		_, _, err := e.Get("k", nil)
		if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "client limit") {
			t.Errorf("password %q: get from a full server: %v", pass, err)
		}
		holder.Close()
		var v string
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			buf := make([]byte, 4)
			n, _, err := e.Get("k", buf)
			if err == nil {
				v = string(buf[:n])
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("password %q: get once the server has room: %v", pass, err)
			}
		}
		if v != "v" {
			t.Errorf("password %q: get = %q", pass, v)
		}
	}
}

// A client closed because all clients' buffers passed --max-client-memory
// and its own were the largest: unavailable, saying why.
func TestClosedForClientMemory(t *testing.T) {
	const kib = 1 << 10
	url := startServer(t, server.Config{MaxBulk: 60 * kib, MaxCommandSize: 64 * kib, MaxClientMemory: 140 * kib})
	other, err := net.Dial("unix", strings.TrimPrefix(url, "unix://"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\na\r\n$" + fmt.Sprint(60*kib) + "\r\n" + strings.Repeat("v", 60*kib-1)))
	for deadline := time.Now().Add(5 * time.Second); clientMemory(t, url) < 64*kib; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not read the other client's command")
		}
	}
	e := newEngine(t, url, "", time.Second)
	err = e.Set("k", []byte(strings.Repeat("w", 60*kib)), 0)
	if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "memory for client buffers") {
		t.Fatalf("set that passes the budget: %v", err)
	}
}

// clientMemory is the server's INFO mem_clients_normal.
func clientMemory(t *testing.T, url string) int64 {
	c, err := net.Dial("unix", strings.TrimPrefix(url, "unix://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte("*1\r\n$4\r\nINFO\r\n"))
	r := bufio.NewReader(c)
	head, _ := r.ReadString('\n') // $n
	n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
	info := make([]byte, max(n, 0))
	io.ReadFull(r, info)
	_, rest, _ := strings.Cut(string(info), "mem_clients_normal:")
	mem, _ := strconv.ParseInt(rest[:max(0, strings.Index(rest, "\r"))], 10, 64)
	return mem
}

// The replies of a server that closes the connection for a limit of its
// own, not of the command: unavailable, and the connection is dropped.
func TestServerLimitReplies(t *testing.T) {
	e := &Engine{peer: peer{addr: "unix:///x.sock"}}
	for msg, want := range map[string]string{
		"ERR max number of clients reached": "client limit",
		"ERR max memory for clients reached (--max-client-memory): this client had the largest buffers and is closed": "memory for client buffers",
	} {
		if err := e.classifyReply(msg); !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v", msg, err)
		}
		if keepsConnection(replyError(msg)) {
			t.Errorf("%q keeps the connection", msg)
		}
		if err := e.classify(&closedWithReply{Reply: msg, Err: io.ErrClosedPipe}); !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q as a parting reply: %v", msg, err)
		}
	}
}

// A value over the server's --max-value-size is kv.ErrValueTooLarge whatever
// its size, and the next call works on the same engine. Today's server
// refuses a bulk over max(max-value-size, 64 KiB) with a protocol error and
// closes the connection, so both sides of that bound are covered.
func TestValueOverServerLimit(t *testing.T) {
	cases := []struct {
		limit int64
		size  int
	}{
		{1024, 1025},           // the store would refuse it
		{1024, 70_000},         // over the server's bulk limit: error reply, then close
		{64 << 10, 64<<10 + 1}, // one byte over, at the bulk limit
		{1 << 20, 1<<20 + 1},   // one byte over the default: closed mid-write
		{1 << 20, 8 << 20},     // far over
	}
	for _, c := range cases {
		for _, url := range startServerBoth(t, server.Config{Store: store.Config{MaxValueSize: c.limit, CompressMin: -1}}) {
			for _, precheck := range []bool{true, false} {
				e := newEngine(t, url, "", time.Second)
				if !precheck {
					// As if the limit were unknown (another server, or one
					// restarted with a smaller limit): the server's own
					// refusal must still read as "too large".
					if err := e.Set("warm", nil, 0); err != nil {
						t.Fatal(err)
					}
					e.maxValue.Store(limitNone)
				}
				err := e.Set("big", make([]byte, c.size), 0)
				if !errors.Is(err, kv.ErrValueTooLarge) {
					t.Errorf("%s: limit %d, value %d, precheck %v: %v", url[:4], c.limit, c.size, precheck, err)
				}
				if precheck && (err == nil || !strings.Contains(err.Error(), "--max-value-size")) {
					t.Errorf("limit %d, value %d: message does not name --max-value-size: %v", c.limit, c.size, err)
				}
				if _, err := e.SetNX("lock", []byte("t"), time.Minute); err != nil {
					t.Errorf("%s: limit %d, value %d, precheck %v: next call: %v", url[:4], c.limit, c.size, precheck, err)
				}
				e.Del("lock")
				if err := e.Set("fits", make([]byte, c.limit), 0); err != nil {
					t.Errorf("limit %d: a value of exactly the limit: %v", c.limit, err)
				}
			}
		}
	}
}

// SETNX and fenced acquisition check the value too.
func TestLockValueOverServerLimit(t *testing.T) {
	e := newEngine(t, startServer(t, server.Config{Store: store.Config{MaxValueSize: 100}}), "", time.Second)
	if _, err := e.SetNX("l", make([]byte, 101), time.Minute); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Errorf("setnx: %v", err)
	}
	if _, _, err := e.SetNXFenced("l", make([]byte, 70_000), time.Minute); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Errorf("setnx fenced: %v", err)
	}
	if _, ok, err := e.SetNXFenced("l", []byte("t"), time.Minute); !ok || err != nil {
		t.Errorf("next acquire: %v, %v", ok, err)
	}
}

// The server's protocol-error replies, an older server's wording and
// today's (Redis's), are "too large" when they concern a bulk's size.
func TestProtocolErrorReplies(t *testing.T) {
	e := &Engine{peer: peer{addr: "unix:///x.sock"}}
	for _, msg := range []string{
		"ERR Protocol error: protocol limit: bulk of 70000 bytes, the limit is 65536",
		"ERR Protocol error: invalid bulk length 70000 (at most 65536 bytes)",
	} {
		if err := e.classifyReply(msg); !errors.Is(err, kv.ErrValueTooLarge) {
			t.Errorf("%q: %v", msg, err)
		}
		if keepsConnection(replyError(msg)) {
			t.Errorf("%q keeps the connection", msg)
		}
	}
	for _, msg := range []string{
		"ERR Protocol error: invalid multibulk length 70000 (at most 65536 arguments)",
		"ERR Protocol error: expected '$', got 'x'",
	} {
		if err := e.classifyReply(msg); errors.Is(err, kv.ErrValueTooLarge) {
			t.Errorf("%q: %v", msg, err)
		}
		if keepsConnection(replyError(msg)) {
			t.Errorf("%q keeps the connection", msg)
		}
	}
	// Every engine error the server writes reads back as its kind.
	for _, r := range kv.RESPErrors {
		reply := kv.RESPReply(fmt.Errorf("%w: some detail", r.Err))
		if err := e.classifyReply(reply); !errors.Is(err, r.Err) {
			t.Errorf("%q reads as %v, want %v", reply, err, r.Err)
		}
		if !keepsConnection(replyError(reply)) {
			t.Errorf("%q drops the connection", reply)
		}
	}
	if !keepsConnection(replyError("ERR value is not an integer or out of range")) {
		t.Error("a plain error reply drops the connection")
	}
}

// A server restarted between two calls (a deploy, a crash and a restart)
// leaves every client's pooled connection closed. The next call must not
// fail: nothing of it reached the old server, and the new one is up.
func TestFirstCallAfterServerRestartWorks(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			cfg := server.Config{Unix: filepath.Join(t.TempDir(), "kv.sock"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if network == "tcp" {
				cfg.TCP = "127.0.0.1:0"
			}
			s := must(server.New(cfg))
			addrs := must(s.Listen())
			url := "unix://" + cfg.Unix
			if network == "tcp" {
				url = "tcp://" + addrs[1].String()
				cfg.TCP = addrs[1].String()
			}
			e := newEngine(t, url, "", 500*time.Millisecond)
			for i := 0; i < 3; i++ {
				if err := e.Set("k", []byte("v"), 0); err != nil {
					t.Fatal(err)
				}
				s.Close()
				s = must(server.New(cfg))
				must(s.Listen())
				if ok, err := e.SetNX("lock", []byte("token"), time.Minute); err != nil || !ok {
					t.Fatalf("restart %d: first call after the restart: %v, %v", i, ok, err)
				}
			}
			s.Close()
		})
	}
}
