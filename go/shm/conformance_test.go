package shm

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
)

// The shared engine against the semantic suite every engine passes. The
// segment is the memory limit; each peer is a second Attach of the same
// segment, as another process's would be. Verify runs after every check.
func TestConformance(t *testing.T) {
	kvtest.Run(t, kvtest.Target{
		Open: func(t *testing.T, cfg kvtest.Config) (kv.Engine, func() kv.Engine) {
			mem, err := MapAnonymous(int(cfg.MemoryLimit))
			if err != nil {
				t.Fatal(err)
			}
			scfg := Config{MaxValueSize: cfg.MaxValueSize, CompressMin: cfg.CompressMin}
			e, err := Attach(mem, scfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := e.Verify(); err != nil {
					t.Errorf("at the end of the check: %v", err)
				}
				Unmap(mem)
			})
			return e, func() kv.Engine {
				peer, err := Attach(mem, scfg)
				if err != nil {
					t.Fatal(err)
				}
				return peer
			}
		},
		TTLResolution:  time.Nanosecond,
		WaitsOnRelease: true,
	})
}
