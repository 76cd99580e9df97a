package remote

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv/kvtest"
	"github.com/ephpm/ephpm-kv/server"
	"github.com/ephpm/ephpm-kv/store"
)

// The session steps through a real server, over both transports: the same
// contract as in process.
func TestSessionOps(t *testing.T) {
	for _, url := range startServerBoth(t, server.Config{}) {
		t.Run(url[:3], func(t *testing.T) {
			kvtest.CheckSessionOps(t, newEngine(t, url, "", time.Second))
		})
	}
}

func TestSessionOpsRefuseTooLarge(t *testing.T) {
	url := startServer(t, server.Config{Store: store.Config{MaxValueSize: 1024}})
	e := newEngine(t, url, "", time.Second)
	kvtest.CheckSessionOpsRefuse(t, e, make([]byte, 2000))
	// The connection is still in step afterwards.
	if err := e.Set("after", []byte("ok"), 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := get(t, e, "after"); v != "ok" {
		t.Fatalf("after = %q", v)
	}
}
