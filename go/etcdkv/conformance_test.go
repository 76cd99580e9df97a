package etcdkv

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
)

// The etcd engine against the semantic suite every engine passes, on a
// 3-member cluster. Each peer is its own client, as each PHP process has.
func TestConformance(t *testing.T) {
	kvtest.Run(t, kvtest.Target{
		Open: func(t *testing.T, cfg kvtest.Config) (kv.Engine, func() kv.Engine) {
			// 15 s an op: the concurrent cases' 32 clients contend on
			// rounds of consensus (about 4 ms each here), and under -race
			// with the other packages' tests beside them an op that loses
			// many rounds in a row outlasted 5 s (IncrExact,
			// LeaseSemaphoreConcurrent). A hang still fails.
			c := Config{Timeout: 15 * time.Second, MaxValueSize: cfg.MaxValueSize, BytesLimit: cfg.MemoryLimit}
			e := newTestEngine(t, shared, c)
			c.Prefix = e.cfg.Prefix
			return e, func() kv.Engine { return newTestEngine(t, shared, c) }
		},
		// Leases are whole seconds: rounded up going in (the cluster's
		// shortest is 1 s, see build/etcd-cluster.sh), truncated coming out.
		TTLResolution: time.Second,
		// The 1 s lease of a short ttl, the leader's revoke loop (500 ms),
		// the revoke's commit, and a loaded machine's scheduling.
		ExpiryLag:     2 * time.Second,
		ExpiresUnseen: true,
		// No compression: CompressMin 0 (Stats says so).
		Limits:        func(cfg kvtest.Config) kvtest.Config { cfg.CompressMin = 0; return cfg },
		FullCheckedBy: "etcdkv.TestQuotaFull",
		// SetNXFenced's fence is the key's create revision.
		FenceIsCreateRevision: true,
		// Each check has a prefix of its own; most of their time is
		// spent waiting out 1 s leases.
		Parallel: true,
	})
}
