package kvtest

import (
	"errors"
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// SetIfEq stores only over a live value equal to old (a
// compressed one compared decompressed), with the new ttl; an absent, an
// expired or a different value refuses and keeps what is there.
func checkSetIfEq(h *harness) {
	t := h.t
	swap := func(key, value, old string, ttl time.Duration) bool {
		t.Helper()
		ok, err := h.e.SetIfEq(key, []byte(value), []byte(old), ttl)
		h.noErr("SetIfEq "+key, err)
		return ok
	}
	if swap("s:absent", "v", "", 0) || h.exists("s:absent") {
		t.Errorf("SetIfEq on an absent key stored")
	}
	h.set("s:k", "one", 0)
	if swap("s:k", "two", "uno", 0) || h.value("s:k") != "one" {
		t.Errorf("SetIfEq with another old value: stored, now %q", h.value("s:k"))
	}
	if !swap("s:k", "two", "one", time.Minute) || h.value("s:k") != "two" {
		t.Errorf("SetIfEq with the live value: not stored, now %q", h.value("s:k"))
	}
	if d := h.ttl("s:k"); !h.within(d, time.Minute, time.Minute) {
		t.Errorf("TTL after SetIfEq with 1 min: %v", d)
	}
	if !swap("s:k", "three", "two", 0) || h.ttl("s:k") != kv.TTLPersistent {
		t.Errorf("SetIfEq with ttl 0 keeps an expiry: %v", h.ttl("s:k"))
	}
	big := compressible(4 << 10)
	h.set("s:big", big, 0)
	if !swap("s:big", "small", big, 0) || h.value("s:big") != "small" {
		t.Errorf("SetIfEq against a compressible value: now %q", h.value("s:big"))
	}
	h.set("s:soon", "x", expireSoon)
	h.waitExpiry()
	if swap("s:soon", "y", "x", 0) {
		t.Errorf("SetIfEq over an expired entry stored")
	}
	if _, err := h.e.SetIfEq("", []byte("v"), []byte("o"), 0); !errors.Is(err, kv.ErrEmptyKey) {
		t.Errorf("SetIfEq with an empty key: %v", err)
	}
	if _, err := h.e.SetIfEq("s:k", []byte("v"), []byte("three"), -time.Second); !errors.Is(err, kv.ErrBadTTL) {
		t.Errorf("SetIfEq with a negative ttl: %v", err)
	}
	tooBig := []byte(strings.Repeat("v", int(h.cfg.MaxValueSize)+1))
	if _, err := h.e.SetIfEq("s:k", tooBig, []byte("three"), 0); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Errorf("SetIfEq with a value over the limit: %v", err)
	}
	if h.value("s:k") != "three" {
		t.Errorf("s:k after refused SetIfEqs: %q", h.value("s:k"))
	}
}
