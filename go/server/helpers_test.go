package server

import (
	"os"
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
