package etcdkv

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// A live key's TTL is never 0, which passed back as a TTL means "no
// expiry": etcd reports whole seconds, truncated, so its last second reads
// 0. From set to gone, every read is positive or TTLMissing.
func TestTTLOfLiveKeyNeverZero(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 5 * time.Second})
	if err := e.Set("k", []byte("v"), time.Second); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	reads := 0
	for time.Now().Before(deadline) {
		ttl, err := e.TTLIfEq("k", []byte("v"))
		if err != nil {
			t.Fatal(err)
		}
		if ttl == kv.TTLMissing {
			if reads == 0 {
				t.Fatal("the key was gone before the first read")
			}
			return
		}
		reads++
		if ttl <= 0 {
			t.Fatalf("read %d: TTLIfEq of a live key = %v", reads, ttl)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the key outlived its 1 s TTL by 9 s")
}
