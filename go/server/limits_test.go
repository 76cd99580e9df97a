package server

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Before AUTH a client may send only 10 arguments and 16 KiB bulks (as in
// Redis 6.2+); after AUTH the usual limits apply. Each violation closes
// that connection only, and is counted in INFO.
func TestPreAuthLimits(t *testing.T) {
	s, addr := startServer(t, Config{Password: "pw"})
	for name, raw := range map[string]string{
		"11 arguments":    "*11\r\n",
		"16 KiB + 1 bulk": "*2\r\n$4\r\nAUTH\r\n$16385\r\n",
		"long inline":     strings.Repeat("a", 16<<10+1),
	} {
		t.Run(name, func(t *testing.T) {
			expectProtocolError(t, addr, raw)
		})
	}
	big := strings.Repeat("x", 100<<10)
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{
		cmd("NOAUTH Authentication required.", "SET", "k", strings.Repeat("x", 16<<10)),
		cmd("OK", "AUTH", "pw"),
		cmd("OK", "SET", "k", big),
		cmd("OK", "MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "f", "6"),
	})
	if got := rc.do("GET", "k"); got != `"`+big+`"` {
		t.Fatalf("GET k: %d bytes", len(got))
	}
	if n := s.queryLimitDrops.Load(); n != 3 {
		t.Errorf("client_query_buffer_limit_disconnections = %d, want 3", n)
	}
	if info := rc.do("INFO"); !strings.Contains(info, "client_query_buffer_limit_disconnections:3") {
		t.Errorf("INFO lacks the counter: %s", info)
	}
}

// The total size of one command is capped as it arrives, whatever the size
// of each argument.
func TestCommandSizeLimit(t *testing.T) {
	_, addr := startServer(t, Config{MaxBulk: 1000, MaxCommandSize: 3000})
	ok := dial(t, "unix", addr)
	runSteps(t, ok, []step{cmd("OK", "MSET", "a", strings.Repeat("x", 1000), "b", strings.Repeat("y", 1000))})
	rc := dial(t, "unix", addr)
	// the third 1000-byte bulk would pass 3000 bytes: refused at its header
	rc.c.Write([]byte("*7\r\n$4\r\nMSET\r\n$1\r\na\r\n$1000\r\n" + strings.Repeat("x", 1000) + "\r\n$1\r\nb\r\n$1000\r\n" + strings.Repeat("x", 1000) + "\r\n$1\r\nc\r\n$1000\r\n"))
	if got := rc.read(); got != "ERR Protocol error: command larger than 3000 bytes" {
		t.Fatalf("reply %q", got)
	}
	runSteps(t, ok, []step{cmd("PONG", "PING")})
}

// A connection's read buffer grows only as bytes arrive, never past the
// command limit, and shrinks back once a big command is done.
func TestReadBufferBounded(t *testing.T) {
	lim := limits{maxArgs: 8, maxBulk: 1 << 20, maxCommand: 2 << 20, maxInline: 64 << 10}
	cl, sv := net.Pipe()
	defer cl.Close()
	rd := newReader(sv)
	go cl.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048576\r\n"))
	go func() {
		time.Sleep(50 * time.Millisecond)
		cl.Write(bytes.Repeat([]byte("v"), 1<<20))
		cl.Write([]byte("\r\n*1\r\n$4\r\nPING\r\n"))
	}()
	var grown int
	for cmds := 0; cmds < 2; {
		args, err := rd.next(&lim)
		if err != nil {
			t.Fatal(err)
		}
		if args == nil {
			if err := rd.fill(&lim); err != nil {
				t.Fatal(err)
			}
			if rd.w < 100 && len(rd.buf) > readBufInitial {
				t.Fatalf("buffer of %d bytes for %d bytes received: it grew on a header's word", len(rd.buf), rd.w)
			}
			grown = max(grown, len(rd.buf))
			continue
		}
		cmds++
	}
	if grown < 1<<20 || grown > int(lim.maxCommand)+1 {
		t.Errorf("buffer grew to %d bytes for a 1 MiB command, limit %d", grown, lim.maxCommand)
	}
	go cl.Write([]byte("PING\r\n"))
	if err := rd.fill(&lim); err != nil {
		t.Fatal(err)
	}
	if len(rd.buf) > readBufKeep {
		t.Errorf("idle buffer still %d bytes after the big command", len(rd.buf))
	}
}

// Inline commands split as Redis' sdssplitargs does, in place.
func TestSplitArgs(t *testing.T) {
	for line, want := range map[string]string{
		`SET k v`:                   `[SET k v]`,
		"  SET \t k   v  ":          `[SET k v]`,
		`SET k "hello world"`:       `[SET k hello world]`,
		`SET k "a\"b\n\x41\x4g"`:    "[SET k a\"b\nAx4g]",
		`SET k 'it\'s' 'a\nb'`:      `[SET k it's a\nb]`,
		`SET k ""`:                  `[SET k ]`,
		"SET k v\x00 ignored":       `[SET k v]`,
		`SET k "unterminated`:       `unbalanced`,
		`SET k "closed"x`:           `unbalanced`,
		`SET k 'closed'x`:           `unbalanced`,
		strings.Repeat("a ", 9):     `[a a a a a a a a a]`,
		strings.Repeat("a ", 11):    `too many`,
		"":                          `[]`,
		`GET "\x00\xff"`:            "[GET \x00\xff]",
		`a"b"`:                      `[ab]`,
		`a"b`:                       `unbalanced`,
		`"\`:                        `unbalanced`,
		`"\\"`:                      `[\]`,
		`' '`:                       `[ ]`,
		"ECHO \"tab\\there\" extra": "[ECHO tab\there extra]",
	} {
		args, err := splitArgs([]byte(line), nil, 10)
		got := fmt.Sprintf("%s", args)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("splitArgs(%q) = %q, want %q", line, got, want)
		}
	}
}

// flakyListener fails every Accept with EMFILE until closed.
type flakyListener struct {
	net.Listener
	mu     sync.Mutex
	calls  int
	closed chan struct{}
}

func (l *flakyListener) Addr() net.Addr { return &net.UnixAddr{Name: "flaky", Net: "unix"} }

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.calls++
	l.mu.Unlock()
	select {
	case <-l.closed:
		return nil, net.ErrClosed
	default:
		return nil, &net.OpError{Op: "accept", Net: "unix", Err: syscall.EMFILE}
	}
}

// Out of file descriptors, accept backs off 5 ms doubling to 1 s and logs
// once, instead of spinning.
func TestAcceptBacksOff(t *testing.T) {
	var logged bytes.Buffer
	var mu sync.Mutex
	s, err := New(Config{Unix: "unused", Logger: slog.New(slog.NewTextHandler(syncWriter{&mu, &logged}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.store.Close()
	ln := &flakyListener{closed: make(chan struct{})}
	done := make(chan struct{})
	go func() { s.acceptLoop(ln); close(done) }()
	time.Sleep(400 * time.Millisecond)
	close(ln.closed)
	<-done
	ln.mu.Lock()
	calls := ln.calls
	ln.mu.Unlock()
	// 5+10+20+40+80+160 ms = 315 ms: about 7 calls in 400 ms
	if calls > 10 {
		t.Errorf("Accept called %d times in 400 ms: no back-off", calls)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logged.String(), "accept failed"); n != 1 {
		t.Errorf("%d log lines for one episode, want 1:\n%s", n, logged.String())
	}
}

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (w syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Failed AUTH logs at most one line a second, with the count since the
// last line, instead of a line per try.
func TestAuthFailuresLogRateLimited(t *testing.T) {
	var logged bytes.Buffer
	var mu sync.Mutex
	cfg := Config{Password: "pw", Unix: t.TempDir() + "/kv.sock"}
	cfg.Logger = slog.New(slog.NewTextHandler(syncWriter{&mu, &logged}, nil))
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// on many connections, within each one's failures answered at once
	const conns, tries = 150, 150 * authFreeFailures
	start := time.Now()
	for range conns {
		rc := dial(t, "unix", addrs[0].String())
		for range authFreeFailures {
			if got := rc.do("AUTH", "wrong"); !strings.HasPrefix(got, "WRONGPASS") {
				t.Fatal(got)
			}
		}
		rc.c.Close()
	}
	elapsed := time.Since(start)
	time.Sleep(logInterval + 200*time.Millisecond) // the count of the rest is logged
	mu.Lock()
	defer mu.Unlock()
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	total := 0
	for _, l := range lines {
		var n int
		if i := strings.Index(l, "failures="); i >= 0 {
			fmt.Sscanf(l[i:], "failures=%d", &n)
		}
		total += n
	}
	// one line at once, then at most one a second
	if maxLines := 2 + int(elapsed/logInterval); len(lines) > maxLines || total != tries {
		t.Errorf("%d lines counting %d failures for %d tries:\n%s", len(lines), total, tries, logged.String())
	}
}

// A client that pipelines GETs of a big value and never reads: the server
// stops reading it, and closes it once a write has been stalled for
// ClientWriteTimeout; other clients go on.
func TestUnreadRepliesClosed(t *testing.T) {
	s, addr := startServer(t, Config{ClientWriteTimeout: 200 * time.Millisecond})
	ok := dial(t, "unix", addr)
	runSteps(t, ok, []step{cmd("OK", "SET", "big", strings.Repeat("v", 1<<20))})
	rc := dial(t, "unix", addr)
	rc.c.SetWriteDeadline(time.Now().Add(time.Second))
	for range 1000 {
		if _, err := rc.c.Write([]byte("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n")); err != nil {
			break // the server stopped reading, or closed us
		}
	}
	for deadline := time.Now().Add(5 * time.Second); s.outputLimitDrops.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the client that does not read was not closed")
		}
	}
	runSteps(t, ok, []step{cmd("PONG", "PING")})
	if info := ok.do("INFO"); !strings.Contains(info, "client_output_buffer_limit_disconnections:1") {
		t.Errorf("INFO lacks the counter: %s", info)
	}
}

// The default command limit always fits a SET of the largest value with
// the largest key, whatever --max-value-size is.
func TestDefaultCommandSizeFitsLargestSet(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(64<<20, 5<<20)})
	k, v := strings.Repeat("k", 64<<10), strings.Repeat("v", 5<<20)
	runSteps(t, dial(t, "unix", addr), []step{cmd("OK", "SET", k, v, "PX", "60000")})
}

// A client that reads its replies slowly but steadily is not a client that
// does not read them: the write timeout counts from the last progress, not
// from the start of a write that is bigger than the socket can take at once.
func TestSlowReaderNotClosed(t *testing.T) {
	s, addr := startServer(t, Config{ClientWriteTimeout: 300 * time.Millisecond, Store: storeCfg(64<<20, 1<<20)})
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{cmd("OK", "SET", "big", strings.Repeat("v", 1<<20))})
	const gets = 3
	rc.c.Write([]byte(strings.Repeat("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n", gets)))
	// 16 KiB every 10 ms: each 1 MiB reply takes well over the timeout
	// to drain, but bytes move all the time.
	want := gets * (len("$1048576\r\n") + 1<<20 + 2)
	buf := make([]byte, 16<<10)
	rc.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	for got := 0; got < want; {
		n, err := rc.c.Read(buf)
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v (closed as a client that does not read: %d)", got, want, err, s.outputLimitDrops.Load())
		}
		got += n
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.outputLimitDrops.Load(); n != 0 {
		t.Errorf("client_output_buffer_limit_disconnections = %d, want 0", n)
	}
}

// The inline limit counts the line, not its terminator: a line of exactly
// the limit passes whether it ends in LF or CRLF, one byte more does not,
// and a line cut just after its CR waits for the LF.
func TestInlineLimitExact(t *testing.T) {
	lim := limits{maxArgs: 8, maxBulk: 1 << 20, maxCommand: 1 << 20, maxInline: 1000}
	for _, tc := range []struct {
		n    int
		term string
		ok   bool
	}{{1000, "\n", true}, {1000, "\r\n", true}, {1001, "\n", false}, {1001, "\r\n", false}} {
		line := "ECHO " + strings.Repeat("x", tc.n-5)
		for _, chunk := range []int{1 << 20, len(line) + 1} { // whole, or cut after the CR
			src := io.MultiReader(strings.NewReader((line + tc.term)[:min(chunk, len(line)+len(tc.term))]),
				strings.NewReader((line + tc.term)[min(chunk, len(line)+len(tc.term)):]))
			rd := newReader(src)
			var args [][]byte
			var err error
			for args == nil && err == nil {
				if args, err = rd.next(&lim); args == nil && err == nil {
					err = rd.fill(&lim)
				}
			}
			if tc.ok && (err != nil || len(args) != 2 || len(args[1]) != tc.n-5) {
				t.Errorf("%d bytes + %q (first read %d): %d args, %v; want it accepted", tc.n, tc.term, chunk, len(args), err)
			}
			if !tc.ok && (err == nil || !strings.Contains(err.Error(), "too big inline")) {
				t.Errorf("%d bytes + %q (first read %d): %v; want too big inline request", tc.n, tc.term, chunk, err)
			}
		}
	}
}

// maxWriteRecorder records the largest single write.
type maxWriteRecorder struct{ max int }

func (m *maxWriteRecorder) Write(p []byte) (int, error) {
	m.max = max(m.max, len(p))
	return len(p), nil
}

// The reply buffer stays near flushAt whatever the reply: an MGET of many
// missing keys (a null each) is flushed as it goes, like one of values.
func TestReplyBufferBoundedForNulls(t *testing.T) {
	s, err := New(Config{Unix: "unused", Store: storeCfg(1<<20, 1<<10), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.store.Close()
	rec := &maxWriteRecorder{}
	c := &conn{writer: writer{dst: rec}, s: s, authed: true}
	args := [][]byte{[]byte("MGET")}
	for i := range 60000 {
		args = append(args, fmt.Appendf(nil, "missing%d", i))
	}
	s.dispatch(c, args)
	c.Flush()
	if rec.max > flushAt+64 {
		t.Errorf("one write of %d bytes: the reply buffer grew past %d", rec.max, flushAt)
	}
}

// After authFreeFailures failed AUTHs on one connection, each further one
// is answered only after a delay, growing to authDelayMax: a guesser gets
// about one try a second per connection instead of 800,000. Other
// connections are not slowed.
func TestAuthFailuresDelayed(t *testing.T) {
	want := []time.Duration{0, 0, 0, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
		800 * time.Millisecond, time.Second, time.Second}
	for i, w := range want {
		if got := authDelay(i + 1); got != w {
			t.Errorf("failure %d waits %v, want %v", i+1, got, w)
		}
	}
	if got := authDelay(1 << 40); got != authDelayMax {
		t.Errorf("failure 2^40 waits %v", got)
	}

	_, addr := startServer(t, Config{Password: "pw"})
	guesser := dial(t, "unix", addr)
	const tries = authFreeFailures + 3
	var pipeline strings.Builder
	for range tries {
		pipeline.WriteString("*2\r\n$4\r\nAUTH\r\n$5\r\nwrong\r\n")
	}
	start := time.Now()
	guesser.c.Write([]byte(pipeline.String()))
	for i := range authFreeFailures {
		if got := guesser.read(); !strings.HasPrefix(got, "WRONGPASS") {
			t.Fatalf("failure %d: %s", i+1, got)
		}
	}
	// while the guesser waits, a client with the password gets in
	runSteps(t, dial(t, "unix", addr), []step{cmd("OK", "AUTH", "pw"), cmd("PONG", "PING")})
	var delays time.Duration
	for i := authFreeFailures; i < tries; i++ {
		if got := guesser.read(); !strings.HasPrefix(got, "WRONGPASS") {
			t.Fatalf("failure %d: %s", i+1, got)
		}
		delays += authDelay(i + 1)
	}
	if elapsed := time.Since(start); elapsed < delays {
		t.Errorf("%d failed AUTHs answered in %v, want at least %v of delays", tries, elapsed, delays)
	}
}
