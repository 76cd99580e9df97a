package server

import (
	"os"
	"strings"
	"testing"

	"github.com/ephpm/ephpm-kv/store"
)

func storeCfg(limit, maxValue int64) store.Config {
	return store.Config{MemoryLimit: limit, MaxValueSize: maxValue, CompressMin: -1}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// expectProtocolError sends raw on a new connection and wants a protocol
// error, then the connection closed.
func expectProtocolError(t *testing.T, addr, raw string) {
	t.Helper()
	rc := dial(t, "unix", addr)
	rc.c.Write([]byte(raw))
	if got := rc.read(); !strings.HasPrefix(got, "ERR Protocol error") {
		t.Fatalf("reply %q, want a protocol error", got)
	}
	if got := rc.read(); got != "EOF" {
		t.Fatalf("connection still open, read %q", got)
	}
}
