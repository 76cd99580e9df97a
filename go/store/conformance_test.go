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

// primitives is an engine with kv.Engine's methods only: every
// composition in kv (kv.LockAndGet, kv.SetIfLocked, kv.SetEvictable,
// kv.GetMulti) takes its fallback on it.
type primitives struct{ kv.Engine }

// The suite on the map seen through kv.Engine alone: the compositions'
// fallbacks keep every promise the engines' own versions keep (its
// evictable writes are held: CacheHeld).
func TestConformancePrimitivesOnly(t *testing.T) {
	kvtest.Run(t, kvtest.Target{
		Open: func(t *testing.T, cfg kvtest.Config) (kv.Engine, func() kv.Engine) {
			return primitives{newTestStore(t, Config{
				MemoryLimit: cfg.MemoryLimit, MaxValueSize: cfg.MaxValueSize, CompressMin: cfg.CompressMin,
				SweepInterval: time.Hour,
			})}, nil
		},
		TTLResolution: time.Nanosecond,
	})
	kvtest.CheckSessionOpsRefuse(t, primitives{newTestStore(t, Config{MaxValueSize: 1024})}, make([]byte, 2000))
	s := newTestStore(t, Config{})
	kvtest.CheckSessionsSerialize(t, func() kv.Engine { return primitives{s} }, 8, 300)
}
