package kvtest

import (
	"errors"
	"strings"

	"github.com/ephpm/ephpm-kv/kv"
)

// kv.GetMulti on every engine (one MGET on a server, a Get per key
// elsewhere): each key's live value in the keys' order, found false for
// the absent and the expired, a key asked twice read twice; a bad key
// anywhere is refused before anything is read.
func checkGetMulti(h *harness) {
	t := h.t
	big := string(noise(int(h.cfg.MaxValueSize)))
	h.set("m:small", "v", 0)
	h.set("m:big", big, 0)
	h.set("m:empty", "", 0)
	h.set("m:soon", "gone", expireSoon)
	h.waitExpiry()
	keys := []string{"m:big", "m:absent", "m:small", "m:soon", "m:empty", "m:small"}
	want := []struct {
		value string
		found bool
	}{{big, true}, {"", false}, {"v", true}, {"", false}, {"", true}, {"v", true}}
	seen := 0
	err := kv.GetMulti(h.e, keys, func(i int, v []byte, found bool) {
		if i != seen {
			t.Errorf("GetMulti called back for key %d after %d keys", i, seen)
		}
		seen++
		if found != want[i].found || string(v) != want[i].value {
			t.Errorf("GetMulti %s: %d bytes, found %v; want %d bytes, found %v", keys[i], len(v), found, len(want[i].value), want[i].found)
		}
	})
	h.noErr("GetMulti", err)
	if seen != len(keys) {
		t.Errorf("GetMulti called back %d times for %d keys", seen, len(keys))
	}
	h.noErr("GetMulti of none", kv.GetMulti(h.e, nil, func(int, []byte, bool) { t.Error("called back for no key") }))
	for _, bad := range []struct {
		key  string
		want error
	}{{"", kv.ErrEmptyKey}, {strings.Repeat("k", kv.MaxKeySize+1), kv.ErrKeyTooLarge}} {
		called := false
		err := kv.GetMulti(h.e, []string{"m:small", bad.key}, func(int, []byte, bool) { called = true })
		if !errors.Is(err, bad.want) || called {
			t.Errorf("GetMulti with a bad key: %v (called back: %v), want %v before any read", err, called, bad.want)
		}
	}
}
