package remote

import (
	"strconv"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/server"
)

// The native compare-and-delete a newer Valkey or Redis has, used instead
// of a script: DELIFEQ (Valkey 9), DELEX ... IFEQ (Redis 8.4). No such
// server is installed here; the ephpm-kv server speaks both, so a
// connection to it is told it is such a Redis (and has no Lua: a script
// sent by mistake fails as an unknown command).
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
		if ok, err := e.DelIfEq("lock", []byte("B")); ok || err != nil {
			t.Fatalf("%+v: DelIfEq with another token: %v, %v", d, ok, err)
		}
		if ok, err := e.DelIfEq("lock", []byte("A")); !ok || err != nil {
			t.Fatalf("%+v: DelIfEq: %v, %v", d, ok, err)
		}
	}
}

// Against an ephpm-kv server the dialect costs nothing: its commands go
// first, so each operation is the commands it always was (one EPHPM.STATS
// per connection for the value limit, as before), with no COMMAND INFO,
// no script and no retry.
func TestEphpmServerDialectCostsNothing(t *testing.T) {
	url := startServer(t, server.Config{})
	e := newEngine(t, url, "", time.Second)
	tok := []byte("tok")
	ops := []struct {
		commands int
		run      func() error
	}{
		{2, func() error { _, err := e.SetNX("lock", tok, time.Minute); return err }}, // EPHPM.STATS, SET
		{1, func() error { _, err := e.ExpireIfEq("lock", tok, time.Minute); return err }},
		{1, func() error { _, err := e.TTLIfEq("lock", tok); return err }},
		{1, func() error { _, err := e.Expire("lock", 0); return err }},
		{1, func() error { _, err := e.Incr("n", 1, time.Minute); return err }},
		{1, func() error { _, _, err := e.SetNXFenced("f", tok, time.Minute); return err }},
		{1, func() error { _, err := e.Fence("db", 1); return err }},
		{2, func() error { _, err := e.SetIfLocked("data", tok, 0, "lock", tok, time.Minute, true); return err }},
		{1, func() error { _, err := e.DelIfEq("f", tok); return err }},
		{1, func() error { _, err := e.Stats(); return err }},
		{1, func() error { return e.SetEvictable("cache", tok, time.Minute) }},
	}
	want := 0
	for i, op := range ops {
		if err := op.run(); err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		want += op.commands
	}
	admin := newEngine(t, url, "", time.Second)
	var info string
	if err := admin.roundTrip(func(c *client) {
		c.command(1)
		c.arg("INFO")
	}, func(_ int, r *reply, _ *client) error {
		info = string(r.data)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := infoField(info, "total_commands_processed"); got != strconv.Itoa(want+1) { // + this INFO
		t.Fatalf("total_commands_processed %s, want %d (the operations' own commands and this INFO)", got, want+1)
	}
}

// An ephpm-kv server whose EPHPM.STATS has no bytes_evictable predates
// EPHPM.SETEVICTABLE: an evictable write is a SET there, held, as on a
// Valkey or Redis, not an unknown-command error.
func TestSetEvictableOnOlderServer(t *testing.T) {
	url := startServer(t, server.Config{})
	for _, d := range []dialect{{kind: dialectEphpm}, {kind: dialectEphpm, evictable: true}} {
		e := newEngine(t, url, "", time.Second)
		if err := e.Set("warm", []byte("x"), 0); err != nil { // learns the dialect first
			t.Fatal(err)
		}
		e.mu.Lock()
		if !e.cl.dialect.evictable {
			t.Fatal("this server's EPHPM.STATS was not seen to have bytes_evictable")
		}
		e.cl.dialect = d
		e.mu.Unlock()
		if err := e.SetEvictable("cache", []byte("v"), 0); err != nil {
			t.Fatalf("%+v: %v", d, err)
		}
		st, err := e.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if held := st.BytesEvictable == 0; held == d.evictable {
			t.Errorf("%+v: bytes_evictable %d after an evictable write", d, st.BytesEvictable)
		}
		if _, err := e.Del("cache"); err != nil {
			t.Fatal(err)
		}
	}
}
