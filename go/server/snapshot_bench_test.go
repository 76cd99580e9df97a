package server

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ephpm/ephpm-kv/store"
)

// BenchmarkSnapshot100MB writes and loads (verifying all of it) a snapshot
// of 200,000 keys with random 512-byte values, about 105 MB, from the page
// cache: the cost of the format's checks against the store's own work.
func BenchmarkSnapshot100MB(b *testing.B) {
	cfg := Config{Unix: "unused", Snapshot: filepath.Join(b.TempDir(), "kv.snap"),
		Store: store.Config{MemoryLimit: 1 << 30}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer s.store.Close()
	rng := rand.New(rand.NewChaCha8([32]byte{}))
	v := make([]byte, 512)
	for i := range 200_000 {
		for j := range v {
			v[j] = byte(rng.Uint32())
		}
		if err := s.store.Set(fmt.Sprintf("key:%012d", i), v, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			if err := s.saveSnapshot(); err != nil {
				b.Fatal(err)
			}
		}
		fi, _ := os.Stat(cfg.Snapshot)
		b.SetBytes(fi.Size())
	})
	b.Run("load", func(b *testing.B) {
		fi, _ := os.Stat(cfg.Snapshot)
		b.SetBytes(fi.Size())
		for b.Loop() {
			fresh := &Server{cfg: s.cfg, store: store.New(s.cfg.Store), log: s.log}
			f, err := os.Open(cfg.Snapshot)
			if err != nil {
				b.Fatal(err)
			}
			if n, _, err := fresh.readSnapshot(f); err != nil || n != 200_000 {
				b.Fatalf("loaded %d keys: %v", n, err)
			}
			fresh.store.Close()
		}
	})
}
