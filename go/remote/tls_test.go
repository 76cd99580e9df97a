package remote

import (
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
)

// makeCerts makes, with openssl, a CA and a server certificate for
// localhost and 127.0.0.1 signed by it, a client certificate signed by
// it, and another CA that signed nothing here. It returns their paths by
// name: ca, server.crt, server.key, client.crt, client.key, other-ca.
func makeCerts(t *testing.T) map[string]string {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is not installed: the TLS tests need it to make certificates")
	}
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for _, ca := range []string{"ca", "other-ca"} {
		run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=ephpm test "+ca,
			"-keyout", p(ca+".key"), "-out", p(ca+".crt"))
	}
	ext := p("san.cnf")
	if out, err := exec.Command("sh", "-c", "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "+ext).CombinedOutput(); err != nil {
		t.Fatal(err, string(out))
	}
	for _, who := range []string{"server", "client"} {
		run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN="+who, "-keyout", p(who+".key"), "-out", p(who+".csr"))
		args := []string{"x509", "-req", "-in", p(who + ".csr"), "-CA", p("ca.crt"), "-CAkey", p("ca.key"),
			"-CAcreateserial", "-days", "1", "-out", p(who + ".crt")}
		if who == "server" {
			args = append(args, "-extfile", ext)
		}
		run(args...)
	}
	return map[string]string{"ca": p("ca.crt"), "server.crt": p("server.crt"), "server.key": p("server.key"),
		"client.crt": p("client.crt"), "client.key": p("client.key"), "other-ca": p("other-ca.crt")}
}

// startTLSRedis starts a redis-server that takes TLS on a loopback port
// (client certificates required when clientAuth) and plain commands on a
// unix socket for the test's own administration; it returns both.
func startTLSRedis(t *testing.T, certs map[string]string, clientAuth bool) (port int, sock string) {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server is not installed: the Redis backend is untested here")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	sock = filepath.Join(dir, "admin.sock")
	auth := "no"
	if clientAuth {
		auth = "yes"
	}
	cmd, err := startRedis(bin, dir, "--port", "0", "--unixsocket", sock, "--tls-port", strconv.Itoa(port),
		"--bind", "127.0.0.1", "--tls-cert-file", certs["server.crt"], "--tls-key-file", certs["server.key"],
		"--tls-ca-cert-file", certs["ca"], "--tls-auth-clients", auth)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return port, sock
}

// The semantic suite over rediss://, verifying the server against the
// test's CA.
func TestRedisTLSConformance(t *testing.T) {
	certs := makeCerts(t)
	port, sock := startTLSRedis(t, certs, false)
	url := "rediss://127.0.0.1:" + strconv.Itoa(port)
	open := func(t *testing.T) kv.Engine {
		e, err := New(url, "", 5*time.Second, WithTLS(TLSFiles{CAFile: certs["ca"]}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	var limits kvtest.Config
	kvtest.Run(t, kvtest.Target{
		Open: func(t *testing.T, cfg kvtest.Config) (kv.Engine, func() kv.Engine) {
			limits = openRedis(t, sock, cfg)
			return open(t), func() kv.Engine { return open(t) }
		},
		TTLResolution:  2 * time.Millisecond,
		Limits:         func(kvtest.Config) kvtest.Config { return limits },
		ReclaimExpired: func(t *testing.T) { reclaimRedis(t, sock) },
		MemorySlack:    256 << 10,
		FencesAreKeys:  true,
		EvictableHeld:  true,
	})
}

// What TLS refuses is an error (kv.ErrUnavailable, saying why), never a
// false from SetNX; what cannot even be configured is refused by New.
func TestRedisTLSRefusals(t *testing.T) {
	certs := makeCerts(t)
	port, _ := startTLSRedis(t, certs, true)
	url := "rediss://127.0.0.1:" + strconv.Itoa(port)
	client := TLSFiles{CAFile: certs["ca"], CertFile: certs["client.crt"], KeyFile: certs["client.key"]}
	setnx := func(url string, f TLSFiles) error {
		t.Helper()
		e, err := New(url, "", 5*time.Second, WithTLS(f))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		ok, err := e.SetNX("lock", []byte("t"), time.Minute)
		if err == nil && !ok {
			return errors.New("false (held) instead of an error")
		}
		if err == nil {
			e.Del("lock")
		}
		return err
	}
	if err := setnx(url, client); err != nil {
		t.Fatalf("with the CA and a client certificate: %v", err)
	}
	named := client
	named.ServerName = "localhost"
	if err := setnx("rediss://localhost:"+strconv.Itoa(port), client); err != nil {
		t.Fatalf("by name: %v", err)
	}
	if err := setnx(url, named); err != nil {
		t.Fatalf("by address, verifying the name localhost: %v", err)
	}
	wrongCA := client
	wrongCA.CAFile = certs["other-ca"]
	wrongName := client
	wrongName.ServerName = "redis.example"
	noCert := TLSFiles{CAFile: certs["ca"]}
	for name, c := range map[string]struct {
		f    TLSFiles
		want string
	}{
		"another CA":           {wrongCA, "did not verify"},
		"another server name":  {wrongName, "did not verify"},
		"no client cert":       {noCert, ""},
		"the system's CA pool": {TLSFiles{CertFile: client.CertFile, KeyFile: client.KeyFile}, "did not verify"},
	} {
		err := setnx(url, c.f)
		if !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want kv.ErrUnavailable saying %q", name, err, c.want)
		}
	}
	skip := TLSFiles{SkipVerify: true, CertFile: client.CertFile, KeyFile: client.KeyFile}
	if err := setnx(url, skip); err != nil {
		t.Errorf("SkipVerify with another CA's server: %v", err)
	}
	for name, c := range map[string]struct {
		url string
		f   TLSFiles
	}{
		"a missing CA file":        {url, TLSFiles{CAFile: "/nonexistent/ca.crt"}},
		"a CA file that is no CA":  {url, TLSFiles{CAFile: certs["server.key"]}},
		"a cert without its key":   {url, TLSFiles{CertFile: certs["client.crt"]}},
		"TLS settings on redis://": {"redis://127.0.0.1:" + strconv.Itoa(port), TLSFiles{CAFile: certs["ca"]}},
	} {
		if _, err := New(c.url, "", time.Second, WithTLS(c.f)); err == nil || !strings.HasPrefix(err.Error(), "ephpm.server ") {
			t.Errorf("%s: New = %v, want a configuration error", name, err)
		}
	}
}
