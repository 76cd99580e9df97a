package main

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
	"github.com/ephpm/ephpm-kv/server"
)

// TLS settings reach remote as given, and what remote refuses at
// configure time (settings for an address without TLS, a file that cannot
// be read) is EPHPM_KV_E_CONFIG.
func TestServerEngineTLSRefusalsAreConfigErrors(t *testing.T) {
	if f := tlsFiles("ca", "cert", "key", "name", false); f.CAFile != "ca" || f.CertFile != "cert" ||
		f.KeyFile != "key" || f.ServerName != "name" || !f.SkipVerify {
		t.Fatalf("tlsFiles: %+v", f)
	}
	if f := tlsFiles("", "", "", "", true); f.SkipVerify {
		t.Fatal("verify_peer 1 skips verification")
	}
	for name, c := range map[string]struct{ url, ca string }{
		"TLS settings for unix://":  {"unix:///run/x.sock", "/etc/ssl/certs/ca-certificates.crt"},
		"TLS settings for redis://": {"redis://127.0.0.1:6379", "/etc/ssl/certs/ca-certificates.crt"},
		"a missing CA file":         {"rediss://127.0.0.1:6379", "/nonexistent/ca.pem"},
	} {
		if _, err := serverEngine(c.url, "", time.Second, tlsFiles(c.ca, "", "", "", true)); !errors.Is(err, errConfig) {
			t.Errorf("%s: %v, want a config error", name, err)
		}
	}
	e, err := serverEngine("rediss://127.0.0.1:6379", "", time.Second, tlsFiles("", "", "", "", true))
	if err != nil {
		t.Fatalf("rediss:// with the system's CAs: %v", err)
	}
	e.(interface{ Close() error }).Close()
}

// Every ephpm.server_tls_* setting the messages name is an ini entry of
// the extension, and the reverse.
func TestTLSSettingsAreIniEntries(t *testing.T) {
	src, err := os.ReadFile("../../ext/ephpm.c")
	if err != nil {
		t.Fatal(err)
	}
	ini := map[string]bool{}
	for _, m := range regexp.MustCompile(`"(ephpm\.server_tls_\w+)"`).FindAllStringSubmatch(string(src), -1) {
		ini[m[1]] = true
	}
	goSrc, err := os.ReadFile("../remote/tls.go")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`ephpm\.server_tls_\w+`).FindAllString(string(goSrc), -1) {
		named[m] = true
	}
	for name := range named {
		if !ini[name] {
			t.Errorf("remote names %s, which is no ini entry", name)
		}
	}
	for _, want := range []string{"ca", "cert", "key", "server_name", "verify_peer"} {
		if !ini["ephpm.server_tls_"+want] {
			t.Errorf("ephpm.server_tls_%s is not an ini entry", want)
		}
	}
	if len(ini) != 5 {
		t.Errorf("ini entries %v: the test knows five", strings.Join(keys(ini), ", "))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A server at --maxclients reaches PHP as KvException::UNAVAILABLE, with a
// message that says so (it was INTERNAL, "this is a bug").
func TestServerAtMaxClientsIsUnavailable(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "kv.sock")
	s, err := server.New(server.Config{Unix: sock, MaxClients: 1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	holder, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	holder.Write([]byte("*1\r\n$4\r\nPING\r\n"))
	if _, err := holder.Read(make([]byte, 16)); err != nil { // served: the one client
		t.Fatal(err)
	}
	e, err := serverEngine("unix://"+sock, "", time.Second, remote.TLSFiles{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.(interface{ Close() error }).Close()
	_, _, err = e.Get("k", nil)
	if code := codeOf(err); code != codeOf(kv.ErrUnavailable) || !strings.Contains(err.Error(), "client limit") {
		t.Errorf("get from a full server: code %d (UNAVAILABLE is %d): %v", code, codeOf(kv.ErrUnavailable), err)
	}
}
