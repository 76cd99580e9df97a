package store

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
)

// The in-process map against the semantic suite every engine passes.
func TestConformance(t *testing.T) {
	kvtest.Run(t, kvtest.Target{
		Open: func(t *testing.T, cfg kvtest.Config) (kv.Engine, func() kv.Engine) {
			// No sweep: reclaiming expired entries when full must not
			// depend on it.
			return newTestStore(t, Config{
				MemoryLimit: cfg.MemoryLimit, MaxValueSize: cfg.MaxValueSize, CompressMin: cfg.CompressMin,
				SweepInterval: time.Hour,
			}), nil
		},
		TTLResolution: time.Nanosecond,
	})
}
