package remote

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/server"
)

// The native compare commands a newer Valkey or Redis has, used instead
// of a script: DELIFEQ (Valkey 9), DELEX ... IFEQ (Redis 8.4) and SET ...
// IFEQ. No such server is installed here; the ephpm-kv server speaks all
// three, so a connection to it is told it is such a Redis (and has no Lua:
// a script sent by mistake fails as an unknown command).
func TestNativeCompareCommands(t *testing.T) {
	url := startServer(t, server.Config{})
	for _, d := range []dialect{
		{kind: dialectRedis, delIfEq: true},
		{kind: dialectRedis, delEx: true},
	} {
		e := newEngine(t, url, "", time.Second)
		// The first write learns the server's value limit (and so that it
		// is an ephpm-kv server): before the dialect is overridden.
		if err := e.Set("lock", []byte("A"), time.Minute); err != nil {
			t.Fatal(err)
		}
		e.mu.Lock()
		e.cl.dialect = d
		e.mu.Unlock()
		if ok, err := e.ExpireIfEq("lock", []byte("B"), time.Hour); ok || err != nil {
			t.Fatalf("%+v: ExpireIfEq with another token: %v, %v", d, ok, err)
		}
		if ok, err := e.ExpireIfEq("lock", []byte("A"), time.Hour); !ok || err != nil {
			t.Fatalf("%+v: ExpireIfEq: %v, %v", d, ok, err)
		}
		if ttl, err := e.TTL("lock"); err != nil || ttl < 59*time.Minute {
			t.Fatalf("%+v: TTL after ExpireIfEq to 1 h: %v, %v", d, ttl, err)
		}
		if ok, err := e.ExpireIfEq("lock", []byte("A"), 0); !ok || err != nil {
			t.Fatalf("%+v: ExpireIfEq to none: %v, %v", d, ok, err)
		}
		if ttl, err := e.TTL("lock"); err != nil || ttl != -1 {
			t.Fatalf("%+v: TTL after ExpireIfEq to none: %v, %v", d, ttl, err)
		}
		if ok, err := e.DelIfEq("lock", []byte("B")); ok || err != nil {
			t.Fatalf("%+v: DelIfEq with another token: %v, %v", d, ok, err)
		}
		if ok, err := e.DelIfEq("lock", []byte("A")); !ok || err != nil {
			t.Fatalf("%+v: DelIfEq: %v, %v", d, ok, err)
		}
		if ok, err := e.ExpireIfEq("lock", []byte("A"), time.Hour); ok || err != nil {
			t.Fatalf("%+v: ExpireIfEq of a deleted lock: %v, %v", d, ok, err)
		}
		if found, err := e.Exists("lock"); found || err != nil {
			t.Fatalf("%+v: ExpireIfEq of a deleted lock created it: %v, %v", d, found, err)
		}
	}
}
