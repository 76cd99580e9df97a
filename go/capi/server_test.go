package main

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
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
