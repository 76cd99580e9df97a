package remote

import (
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A rediss:// connection left idle while the server restarted is found
// closed before a command is sent, as a plain one is: the first call after
// the restart dials the new server instead of failing (nothing of it was
// sent, so dialing again is no retry).
func TestRedisTLSFirstCallAfterRestartWorks(t *testing.T) {
	certs := makeCerts(t)
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Redis backend is untested here")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	sock := filepath.Join(dir, "admin.sock")
	start := func() *exec.Cmd {
		cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock, "--tls-port", strconv.Itoa(port),
			"--bind", "127.0.0.1", "--tls-cert-file", certs["server.crt"], "--tls-key-file", certs["server.key"],
			"--tls-ca-cert-file", certs["ca"], "--tls-auth-clients", "no")
		if err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	cmd := start()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	e, err := New("rediss://127.0.0.1:"+strconv.Itoa(port), "", 2*time.Second, WithTLS(TLSFiles{CAFile: certs["ca"]}))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for i := 0; i < 3; i++ {
		if err := e.Set("k", []byte("v"), 0); err != nil {
			t.Fatalf("restart %d: Set before: %v", i, err)
		}
		cmd.Process.Kill()
		cmd.Wait()
		cmd = start()
		if ok, err := e.SetNX("lock", []byte("token"), time.Minute); err != nil || !ok {
			t.Fatalf("restart %d: first call after the restart: %v, %v", i, ok, err)
		}
	}
	// And a live connection is not taken for a closed one (TLS 1.3
	// session tickets, say, left unread on the socket): no call dials.
	conns := func() string {
		return infoField(redisCmd(t, sock, "INFO", "stats"), "total_connections_received")
	}
	before, _ := strconv.Atoi(conns())
	for i := 0; i < 50; i++ {
		if _, err := e.Exists("k"); err != nil {
			t.Fatal(err)
		}
	}
	if after, _ := strconv.Atoi(conns()); after != before+1 { // + the one asking
		t.Fatalf("50 calls on a live connection: connections received %d -> %d", before, after)
	}
}
