package remote

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
	"github.com/ephpm/ephpm-kv/server"
	"github.com/ephpm/ephpm-kv/store"
)

// Server mode (this client against an in-process server) against the
// semantic suite every engine passes. Each peer is its own connection, as
// each PHP process has.
func TestConformance(t *testing.T) {
	kvtest.Run(t, kvtest.Target{
		Open: func(t *testing.T, cfg kvtest.Config) (kv.Engine, func() kv.Engine) {
			url := startServer(t, server.Config{Store: store.Config{
				MemoryLimit: cfg.MemoryLimit, MaxValueSize: cfg.MaxValueSize, CompressMin: cfg.CompressMin,
				SweepInterval: time.Hour,
			}})
			return newEngine(t, url, "", 5*time.Second), func() kv.Engine { return newEngine(t, url, "", 5*time.Second) }
		},
		// Milliseconds on the wire: rounded up going in, truncated coming out.
		TTLResolution: 2 * time.Millisecond,
	})
}
