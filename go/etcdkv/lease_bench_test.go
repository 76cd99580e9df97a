package etcdkv

import (
	"fmt"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// One client, one name, no contention: a lease's acquire and release
// beside the fenced lock pair (SetNXFenced, DelIfEq) as the baseline, and
// an admitted rate-limit call.
func BenchmarkLeasePair(b *testing.B) {
	e, err := New(Config{Endpoints: shared.endpoints, Timeout: 5 * time.Second, Prefix: fmt.Sprintf("bench/%d/", time.Now().UnixNano())})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	tok := []byte("token")
	b.Run("LockPair", func(b *testing.B) {
		for range b.N {
			if _, ok, err := e.SetNXFenced("lock", tok, 30*time.Second); err != nil || !ok {
				b.Fatal(ok, err)
			}
			if ok, err := e.DelIfEq("lock", tok); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("ExclusiveLease", func(b *testing.B) {
		for range b.N {
			if _, ok, err := e.LeaseAcquire("rw", tok, kv.LeaseExclusive, 0, 30*time.Second, 0); err != nil || !ok {
				b.Fatal(ok, err)
			}
			if ok, err := e.LeaseRelease("rw", tok); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("RateLimitAdmitted", func(b *testing.B) {
		for i := range b.N {
			if ok, _, _, err := e.RateLimit(fmt.Sprint("rl", i), 10, 30*time.Second); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}
