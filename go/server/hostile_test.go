//go:build hostile

package server

// The hostile-client suite (make test-hostile): each attack of issue 7
// against the real server binary, run as a subprocess so its memory can be
// read from /proc. Each asserts that the server's peak RSS stays under the
// documented bound and that a well-behaved client on another connection
// keeps getting answers (none waits a second; latency is logged, not
// asserted).
//
// The bound (docs/server.md, "Limits"): RSS <= base + 2 x (stored data + clients x
// per-connection bound), where base is the idle server, the factor 2 is
// Go's garbage collector (GOGC=100 lets the heap reach twice what is live)
// and a connection holds at most: its read buffer (the command limit, up to
// twice that while it doubles), 40 bytes per argument, a 128 KiB reply
// buffer, one value in flight (max value size) and its goroutine's stack.
// All clients' buffers together are bounded by --max-client-memory.

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	mib          = 1 << 20
	slack        = 16 * mib // runtime, page rounding, GC timing
	maxValue     = 1 * mib  // the server's default --max-value-size
	maxCommand   = 4 * mib  // the server's default --max-command-size
	writeTimeout = time.Second
)

// perConn is the documented bound of one connection whose commands may be
// up to command bytes and args arguments.
func perConn(command, args int64) int64 {
	return 2*command + 40*args + 128<<10 + maxValue + 64<<10
}

type serverProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	sock string
	pass string
	base int64 // idle RSS
}

// startProc runs build/ephpm-kv (or $EPHPM_KV_BIN) on a unix socket, with
// at most nofile file descriptors when nofile > 0.
func startProc(t *testing.T, nofile int, args ...string) *serverProc {
	t.Helper()
	bin := os.Getenv("EPHPM_KV_BIN")
	if bin == "" {
		bin, _ = filepath.Abs("../../build/ephpm-kv")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("server binary: %v (make all, or set EPHPM_KV_BIN)", err)
	}
	sock := filepath.Join(t.TempDir(), "kv.sock")
	argv := append([]string{bin, "--unix", sock, "--client-write-timeout", writeTimeout.String()}, args...)
	script := `exec "$@"`
	if nofile > 0 {
		script = fmt.Sprintf("ulimit -n %d && exec \"$@\"", nofile)
	}
	cmd := exec.Command("sh", append([]string{"-c", script, "sh"}, argv...)...)
	cmd.Stderr = os.Stderr
	if testing.Verbose() {
		cmd.Stderr = nil
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProc{t: t, cmd: cmd, sock: sock}
	if i := slices.Index(args, "--requirepass"); i >= 0 {
		p.pass = args[i+1]
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if i == 200 {
			t.Fatal("server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.base = p.status("VmRSS")
	return p
}

// status reads a /proc/PID/status line in bytes (VmRSS now, VmHWM peak).
func (p *serverProc) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		p.t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	p.t.Fatalf("no %s in /proc status", field)
	return 0
}

// cpu is the server's user+system CPU time so far.
func (p *serverProc) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		p.t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ = 100
}

// checkPeak fails when the peak RSS went over base + 2 x (stored + perConn x clients) + slack.
func (p *serverProc) checkPeak(what string, stored, conns, each int64) {
	p.t.Helper()
	bound := p.base + 2*(stored+conns*each) + slack
	peak := p.status("VmHWM")
	p.t.Logf("%s: peak RSS %.1f MiB (idle %.1f MiB), bound %.1f MiB", what, float64(peak)/mib, float64(p.base)/mib, float64(bound)/mib)
	if peak > bound {
		p.t.Errorf("%s: peak RSS %d MiB is over the bound of %d MiB", what, peak/mib, bound/mib)
	}
}

func (p *serverProc) dial() *respConn { return dial(p.t, "unix", p.sock) }

func (p *serverProc) info(field string) string {
	rc := p.dial()
	if p.pass != "" {
		rc.do("AUTH", p.pass)
	}
	out, _ := strconv.Unquote(rc.do("INFO"))
	for _, line := range strings.Split(out, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return "?"
}

// probe is a well-behaved client: a GET every 5 ms on its own connection.
type probe struct {
	start time.Time
	stop  chan struct{}
	done  chan struct{}
	lat   []time.Duration
	err   string
}

func (p *serverProc) startProbe() *probe {
	p.t.Helper()
	rc := p.dial()
	if p.pass != "" {
		if got := rc.do("AUTH", p.pass); got != "OK" {
			p.t.Fatalf("probe AUTH: %s", got)
		}
	}
	rc.do("SET", "probe", "ok")
	pr := &probe{start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(pr.done)
		for {
			select {
			case <-pr.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			start := time.Now()
			rc.c.SetDeadline(start.Add(5 * time.Second))
			rc.c.Write([]byte("*2\r\n$3\r\nGET\r\n$5\r\nprobe\r\n"))
			line, err := rc.r.ReadString('\n')
			if err != nil || line != "$2\r\n" {
				pr.err = fmt.Sprintf("probe got %q, %v", line, err)
				return
			}
			rc.r.Discard(4)
			pr.lat = append(pr.lat, time.Since(start))
		}
	}()
	return pr
}

func (pr *probe) check(t *testing.T, what string) {
	t.Helper()
	time.Sleep(time.Until(pr.start.Add(time.Second))) // answers across the attack and after it
	close(pr.stop)
	<-pr.done
	if pr.err != "" {
		t.Fatalf("%s: well-behaved client: %s", what, pr.err)
	}
	if len(pr.lat) < 10 {
		t.Fatalf("%s: well-behaved client got only %d answers", what, len(pr.lat))
	}
	slices.Sort(pr.lat)
	p99, worst := pr.lat[len(pr.lat)*99/100], pr.lat[len(pr.lat)-1]
	t.Logf("%s: well-behaved client: %d answers, p50 %v, p99 %v, worst %v", what, len(pr.lat), pr.lat[len(pr.lat)/2], p99, worst)
	// Served, not fast: how fast is the benchmarks' to say (a loaded CI
	// machine gave p99s of 35-150 ms here). An attack that starves the
	// client for a second denies it service.
	if worst > time.Second {
		t.Errorf("%s: well-behaved client waited %v for an answer: starved by the attack", what, worst)
	}
}

// flood writes chunk to c until total bytes are sent or the server stops
// reading or closes (what it should do); it returns the bytes sent.
func flood(c net.Conn, first []byte, chunk []byte, total int) int {
	sent := 0
	c.SetWriteDeadline(time.Now().Add(3 * time.Second))
	n, err := c.Write(first)
	sent += n
	for err == nil && sent < total {
		n, err = c.Write(chunk)
		sent += n
	}
	return sent
}

func bulk(n int) []byte {
	return append(fmt.Appendf(nil, "$%d\r\n", n), append(bytes.Repeat([]byte("x"), n), '\r', '\n')...)
}

// A client that has not authenticated declares *65536 of 1 MiB bulks and
// keeps sending: refused at the header (10 arguments before AUTH).
func TestHostilePreAuthHugeCommand(t *testing.T) {
	p := startProc(t, 0, "--requirepass", "pw")
	pr := p.startProbe()
	c := p.dial()
	sent := flood(c.c, []byte("*65536\r\n"), bulk(mib), 256*mib)
	if got := c.read(); !strings.HasPrefix(got, "ERR Protocol error") {
		t.Errorf("attacker read %q, want a protocol error", got)
	}
	t.Logf("attacker sent %d MiB before the server closed", sent/mib)
	pr.check(t, "pre-AUTH *65536")
	p.checkPeak("pre-AUTH *65536", 0, 1, perConn(preAuthMaxArgs*(preAuthMaxBulk+32), preAuthMaxArgs))
	if got := p.info("client_query_buffer_limit_disconnections"); got != "1" {
		t.Errorf("client_query_buffer_limit_disconnections = %s, want 1", got)
	}
}

// An authenticated client sends one never-ending command of 1 MiB bulks:
// closed once it passes --max-command-size, whatever each bulk's size.
func TestHostileCommandOverCap(t *testing.T) {
	p := startProc(t, 0)
	pr := p.startProbe()
	c := p.dial()
	sent := flood(c.c, []byte("*65536\r\n$4\r\nMSET\r\n"), bulk(mib), 256*mib)
	if got := c.read(); !strings.HasPrefix(got, "ERR Protocol error: command larger than") {
		t.Errorf("attacker read %q, want the command size error", got)
	}
	t.Logf("attacker sent %d MiB before the server closed", sent/mib)
	pr.check(t, "command over cap")
	p.checkPeak("command over cap", 0, 1, perConn(maxCommand, 8))
}

// Eight connections send three 64 KiB inline lines of "a a a ...": parsing
// costs memory and time linear in the line.
func TestHostileInlineLines(t *testing.T) {
	p := startProc(t, 0)
	pr := p.startProbe()
	line := append(bytes.Repeat([]byte("a "), 32<<10-2), '\r', '\n')
	cpu0 := p.cpu()
	var wg sync.WaitGroup
	for range 8 {
		c := p.dial()
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.c.SetDeadline(time.Now().Add(20 * time.Second))
			go c.c.Write(bytes.Repeat(line, 3))
			for range 3 {
				if got := c.read(); !strings.HasPrefix(got, "ERR unknown command 'a'") {
					t.Errorf("inline line answered %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("server CPU for 1.5 MB of inline lines: %v", p.cpu()-cpu0)
	pr.check(t, "inline lines")
	p.checkPeak("inline lines", 0, 8, perConn(64<<10, 32<<10))
}

// One MGET of a 1 MiB key repeated 1000 times (1 GiB of replies) from a
// client that reads slowly: the reply is streamed, never built.
func TestHostileMGetBig(t *testing.T) {
	p := startProc(t, 0)
	setup := p.dial()
	if got := setup.do("SET", "big", strings.Repeat("v", mib)); got != "OK" {
		t.Fatal(got)
	}
	pr := p.startProbe()
	c := p.dial()
	var req bytes.Buffer
	fmt.Fprintf(&req, "*1001\r\n$4\r\nMGET\r\n")
	for range 1000 {
		req.WriteString("$3\r\nbig\r\n")
	}
	c.c.Write(req.Bytes())
	time.Sleep(writeTimeout / 2) // not reading yet: the server waits
	r := bufio.NewReaderSize(c.c, 64<<10)
	c.c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if line, _ := r.ReadString('\n'); line != "*1000\r\n" {
		t.Fatalf("MGET header %q", line)
	}
	for i := range 1000 {
		line, _ := r.ReadString('\n')
		if line != fmt.Sprintf("$%d\r\n", mib) {
			t.Fatalf("element %d: %q", i, line)
		}
		if _, err := r.Discard(mib + 2); err != nil {
			t.Fatal(err)
		}
	}
	pr.check(t, "MGET 1000 x 1 MiB")
	p.checkPeak("MGET 1000 x 1 MiB", mib, 1, perConn(64<<10, 1001))
}

// A client pipelines GET big and never reads: the server stops reading it,
// holds one buffer and one value, and closes it after --client-write-timeout.
func TestHostileUnreadReplies(t *testing.T) {
	p := startProc(t, 0)
	setup := p.dial()
	if got := setup.do("SET", "big", strings.Repeat("v", mib)); got != "OK" {
		t.Fatal(got)
	}
	pr := p.startProbe()
	c := p.dial()
	sent := flood(c.c, nil, []byte("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n"), 64*mib)
	t.Logf("attacker pipelined %d GETs before the server stopped reading", sent/22)
	time.Sleep(2*writeTimeout + writeTimeout/2)
	pr.check(t, "unread GET big")
	p.checkPeak("unread GET big", mib, 1, perConn(64<<10, 2))
	if got := p.info("client_output_buffer_limit_disconnections"); got != "1" {
		t.Errorf("client_output_buffer_limit_disconnections = %s, want 1", got)
	}
}

// Many connections, more than the server has file descriptors: accept backs
// off instead of spinning, and serves again once descriptors are free.
func TestHostileManyConnections(t *testing.T) {
	const nofile, conns = 512, 1500
	p := startProc(t, nofile)
	pr := p.startProbe()
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for range conns {
		c, err := net.Dial("unix", p.sock)
		if err != nil {
			break // the listen backlog is full
		}
		c.Write([]byte("*3\r\n$3\r\nSET\r\n")) // half a command each
		open = append(open, c)
	}
	time.Sleep(100 * time.Millisecond)
	cpu0 := p.cpu()
	time.Sleep(time.Second)
	used := p.cpu() - cpu0
	t.Logf("%d connections open on %d descriptors; server CPU in the next second: %v", len(open), nofile, used)
	if used > 200*time.Millisecond {
		t.Errorf("server used %v of CPU in 1 s while out of descriptors: accept is spinning", used)
	}
	pr.check(t, "many connections")
	p.checkPeak("many connections", 0, nofile, 64<<10)
	for _, c := range open {
		c.Close()
	}
	open = nil
	rc := p.dial()
	rc.c.SetDeadline(time.Now().Add(3 * time.Second))
	if got := rc.do("PING"); got != "PONG" {
		t.Fatalf("after the connections closed, PING = %s", got)
	}
}

// Two hundred clients each send 3 MiB of an MSET that never ends (under
// --max-command-size, so no limit of one connection stops it): the budget
// for all clients' buffers (--max-client-memory) closes the largest, and
// the peak stays under 400 MB at the defaults (it was 879 MB).
func TestHostileUnfinishedMSets(t *testing.T) {
	const clients, budget = 200, 128 * mib // the server's default --max-client-memory
	// Memory at the defaults. Two threads: on one (the default on 2 CPUs)
	// the well-behaved client's GET queues behind 200 connections' reads
	// and buffer doublings, p99 35-150 ms on a loaded 2-core machine.
	p := startProc(t, 0, "--procs", "2")
	pr := p.startProbe()
	msg := []byte("*7\r\n$4\r\nMSET\r\n$1\r\na\r\n")
	msg = append(msg, bulk(mib)...)
	msg = append(msg, "$1\r\nb\r\n"...)
	msg = append(msg, bulk(mib)...)
	msg = append(msg, fmt.Sprintf("$1\r\nc\r\n$%d\r\n", mib)...)
	msg = append(msg, bytes.Repeat([]byte("x"), mib-64)...) // the last value stays unfinished
	var wg sync.WaitGroup
	var mu sync.Mutex
	sent := 0
	cpu0, start := p.cpu(), time.Now()
	for range clients {
		c := p.dial()
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.c.SetWriteDeadline(time.Now().Add(20 * time.Second))
			n, _ := c.c.Write(msg)
			mu.Lock()
			sent += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("attackers sent %d MiB in %v; server CPU %v", sent/mib, time.Since(start), p.cpu()-cpu0)
	// buffers of a dozen sizes, freed and allocated at this rate, leave
	// the heap's pages fragmented: an eighth more
	p.checkPeak("unfinished MSETs", 0, 1, budget+budget/8)
	if peak := p.status("VmHWM"); peak >= 400e6 {
		t.Errorf("peak RSS %d MB, want under 400 MB", peak/1e6)
	}
	if got, _ := strconv.Atoi(p.info("evicted_clients")); got < 1 {
		t.Errorf("evicted_clients = %d, want clients closed for the budget", got)
	}
	// Clients closed for the budget count until their goroutine has let go.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got, _ := strconv.ParseInt(p.info("mem_clients_normal"), 10, 64)
		if got > 0 && got <= budget {
			t.Logf("clients' buffers now hold %.1f MiB", float64(got)/mib)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mem_clients_normal = %d, want the clients' buffers, within the budget of %d", got, budget)
		}
	}
	pr.check(t, "unfinished MSETs")
}

// One connection guesses passwords as fast as it can for two seconds: after
// three failures each is answered after a delay, 100 ms doubling to 1 s
// (it was 804,000 tries a second).
func TestHostileAuthGuessing(t *testing.T) {
	p := startProc(t, 0, "--requirepass", "pw")
	pr := p.startProbe()
	c := p.dial()
	guess := bytes.Repeat([]byte("*2\r\n$4\r\nAUTH\r\n$5\r\nguess\r\n"), 1000)
	go func() {
		for {
			if _, err := c.c.Write(guess); err != nil {
				return
			}
		}
	}()
	const window = 2 * time.Second
	r := bufio.NewReader(c.c)
	c.c.SetReadDeadline(time.Now().Add(window))
	tries := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break
		}
		if !strings.HasPrefix(line, "-WRONGPASS") {
			t.Fatalf("reply %q", line)
		}
		tries++
	}
	t.Logf("%d failed AUTHs answered in %v on one connection", tries, window)
	// 3 at once, then 100, 200, 400, 800 ms and 1 s: 8 in 2 s
	if tries > 12 {
		t.Errorf("%d failed AUTHs in %v, want at most 12", tries, window)
	}
	c.c.Close()
	pr.check(t, "AUTH guessing")
}
