package etcdkv

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Whatever SetNX took can be refreshed, renewed and released, however
// large its token (up to the value limit) and keys (up to kv.MaxKeySize):
// the token is sent once per request (refreshes keep the value with
// IgnoreValue), and a request only etcd's --max-request-bytes can refuse
// is kv.ErrValueTooLarge (nothing ran), never kv.ErrUnavailable ("may
// have happened").
func TestLargeTokenAndKeys(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 5 * time.Second})
	token := bytes.Repeat([]byte("t"), 700<<10)
	if ok, err := e.SetNX("lock", token, time.Minute); !ok || err != nil {
		t.Fatalf("SetNX of a 700 KiB token: %v, %v", ok, err)
	}
	if ok, err := e.ExpireIfEq("lock", token, 2*time.Minute); !ok || err != nil {
		t.Fatalf("ExpireIfEq of a 700 KiB token: %v, %v", ok, err)
	}
	if d, err := e.TTLIfEq("lock", token); err != nil || d <= time.Minute {
		t.Fatalf("TTLIfEq after the refresh: %v, %v", d, err)
	}
	if ok, err := e.Expire("lock", 3*time.Minute); !ok || err != nil {
		t.Fatalf("Expire of a 700 KiB value: %v, %v", ok, err)
	}
	buf := make([]byte, len(token))
	if n, found, err := e.Get("lock", buf); !found || err != nil || !bytes.Equal(buf[:n], token) {
		t.Fatalf("the value after the refreshes: %d bytes, %v, %v", n, found, err)
	}
	if ok, err := e.DelIfEq("lock", token); !ok || err != nil {
		t.Fatalf("DelIfEq of a 700 KiB token: %v, %v", ok, err)
	}

	key, lock := strings.Repeat("k", kv.MaxKeySize), strings.Repeat("l", kv.MaxKeySize)
	value := bytes.Repeat([]byte("v"), DefaultMaxValueSize)
	if ok, err := e.SetNX(lock, []byte("T"), time.Minute); !ok || err != nil {
		t.Fatalf("SetNX of a 64 KiB name: %v, %v", ok, err)
	}
	for _, release := range []bool{false, true} {
		if ok, err := e.SetIfLocked(key, value, 0, lock, []byte("T"), time.Minute, release); !ok || err != nil {
			t.Fatalf("session write of 1 MiB under 64 KiB names (release %v): %v, %v", release, ok, err)
		}
	}
	// 1 MiB of data and a 1 MiB token: over etcd's 1.5 MiB, refused whole.
	if ok, err := e.SetIfLocked(key, value, 0, lock, value, time.Minute, false); ok || !errors.Is(err, kv.ErrValueTooLarge) {
		t.Fatalf("session write of 1 MiB with a 1 MiB token: %v, %v", ok, err)
	}
}
