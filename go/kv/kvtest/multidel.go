package kvtest

import (
	"errors"
	"strings"

	"github.com/ephpm/ephpm-kv/kv"
)

// kv.DelMulti on every engine (one DEL on a server, a Del per key
// elsewhere): the live keys named go and are counted once each, the absent
// and the expired count nothing, a key named twice counts once; a bad key
// anywhere is refused before anything is deleted.
func checkDelMulti(h *harness) {
	t := h.t
	h.set("d:a", "1", 0)
	h.set("d:b", "2", 0)
	h.set("d:keep", "3", 0)
	h.set("d:soon", "4", expireSoon)
	h.waitExpiry()
	n, err := kv.DelMulti(h.e, []string{"d:a", "d:absent", "d:soon", "d:b", "d:a"})
	h.noErr("DelMulti", err)
	if n != 2 {
		t.Errorf("DelMulti of two live keys (one named twice), an absent and an expired one: %d, want 2", n)
	}
	for _, k := range []string{"d:a", "d:b"} {
		if ok, err := h.e.Exists(k); err != nil || ok {
			t.Errorf("%s after DelMulti: exists %v, %v", k, ok, err)
		}
	}
	if ok, err := h.e.Exists("d:keep"); err != nil || !ok {
		t.Errorf("d:keep, not named, after DelMulti: exists %v, %v", ok, err)
	}
	if n, err := kv.DelMulti(h.e, nil); n != 0 || err != nil {
		t.Errorf("DelMulti of none: %d, %v", n, err)
	}
	for _, bad := range []struct {
		key  string
		want error
	}{{"", kv.ErrEmptyKey}, {strings.Repeat("k", kv.MaxKeySize+1), kv.ErrKeyTooLarge}} {
		_, err := kv.DelMulti(h.e, []string{"d:keep", bad.key})
		if !errors.Is(err, bad.want) {
			t.Errorf("DelMulti with a bad key: %v, want %v", err, bad.want)
		}
		if ok, err := h.e.Exists("d:keep"); err != nil || !ok {
			t.Errorf("d:keep after a DelMulti refused for a bad key: exists %v, %v", ok, err)
		}
	}
}
