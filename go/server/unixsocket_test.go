package server

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --unix replaces only a stale socket; anything else at the path is left
// exactly as it was and the server refuses to start.
func TestUnixPathIsReplacedOnlyWhenAStaleSocket(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFile(t, file, "precious")
	emptyDir := filepath.Join(dir, "empty-dir")
	os.Mkdir(emptyDir, 0o700)
	live := filepath.Join(dir, "live.sock")
	ln, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	stale := filepath.Join(dir, "stale.sock")
	old, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	old.(*net.UnixListener).SetUnlinkOnClose(false) // as after kill -9
	old.Close()

	for path, want := range map[string]string{file: "regular file", emptyDir: "directory", live: "another server"} {
		before, _ := os.Lstat(path)
		if _, err := listenUnix(path, 0o660); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want an error naming the path and %q", path, err, want)
		}
		after, err := os.Lstat(path)
		if err != nil || !os.SameFile(before, after) {
			t.Errorf("%s was replaced or removed: %v", path, err)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "precious" {
		t.Errorf("the file now holds %q", b)
	}
	c, err := net.Dial("unix", live)
	if err != nil {
		t.Fatalf("the live server's socket no longer answers: %v", err)
	}
	c.Close()

	nl, err := listenUnix(stale, 0o660)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	defer nl.Close()
	if c, err := net.Dial("unix", stale); err != nil {
		t.Fatalf("the new socket does not answer: %v", err)
	} else {
		c.Close()
	}
}
