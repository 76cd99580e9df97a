package kvtest

import (
	"errors"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// kv.Campaign and kv.CurrentLeader: one leader at a time, its value and
// term visible to all, terms rising with each leadership and above every
// fence before them; the stamped record is the leader's lock token.
func checkLeader(h *harness) {
	t := h.t
	key := h.target.fenceName("election")
	campaign := func(token, value string, ttl time.Duration) (int64, []byte, bool) {
		t.Helper()
		term, rec, ok, err := kv.Campaign(h.e, key, []byte(token), []byte(value), ttl)
		h.noErr("Campaign", err)
		return term, rec, ok
	}
	lockFence, _, err := h.e.SetNXFenced(h.target.fenceName("a-lock"), []byte("t"), time.Minute)
	h.noErr("SetNXFenced", err)
	if _, ok, err := kv.CurrentLeader(h.e, key); ok || err != nil {
		t.Errorf("CurrentLeader of an election nobody ran: %v, %v", ok, err)
	}
	t1, rec1, ok := campaign("tok-a", "host-a", time.Minute)
	if !ok || t1 <= lockFence {
		t.Fatalf("first campaign: elected %v, term %d (a lock's fence before it: %d)", ok, t1, lockFence)
	}
	if _, _, ok := campaign("tok-b", "host-b", time.Minute); ok {
		t.Errorf("a second campaign while host-a leads was elected")
	}
	info, ok, err := kv.CurrentLeader(h.e, key)
	h.noErr("CurrentLeader", err)
	if !ok || string(info.Value) != "host-a" || info.Term != t1 || !h.within(info.Remaining, time.Minute, time.Minute) {
		t.Errorf("CurrentLeader: %v %q term %d remaining %v, want host-a term %d", ok, info.Value, info.Term, info.Remaining, t1)
	}
	if d, err := h.e.TTLIfEq(key, rec1); err != nil || d <= 0 {
		t.Errorf("the leader's record as its token: TTLIfEq %v, %v", d, err)
	}
	if ok, err := h.e.ExpireIfEq(key, rec1, 2*time.Minute); err != nil || !ok {
		t.Errorf("renewal by the leader: %v, %v", ok, err)
	}
	if ok, err := h.e.DelIfEq(key, rec1); err != nil || !ok {
		t.Fatalf("resign: %v, %v", ok, err)
	}
	if _, ok, _ := kv.CurrentLeader(h.e, key); ok {
		t.Errorf("CurrentLeader after the leader resigned: still one")
	}
	t2, rec2, ok := campaign("tok-b", "host-b", expireSoon)
	if !ok || t2 <= t1 {
		t.Fatalf("campaign after the resignation: elected %v, term %d after %d", ok, t2, t1)
	}
	h.waitExpiry()
	if _, ok, _ := kv.CurrentLeader(h.e, key); ok {
		t.Errorf("CurrentLeader after the leader's ttl ran out: still one")
	}
	if d, err := h.e.TTLIfEq(key, rec2); err != nil || d != kv.TTLMissing {
		t.Errorf("the expired leader's TTLIfEq: %v, %v", d, err)
	}
	t3, _, ok := campaign("tok-c", "", time.Minute)
	if !ok || t3 <= t2 {
		t.Errorf("campaign after an expiry: elected %v, term %d after %d", ok, t3, t2)
	}
	if ok, err := h.e.ExpireIfEq(key, rec2, time.Minute); err != nil || ok {
		t.Errorf("the expired leader's renewal over the new leader: %v, %v", ok, err)
	}
	if info, ok, _ := kv.CurrentLeader(h.e, key); !ok || info.Term != t3 || len(info.Value) != 0 {
		t.Errorf("CurrentLeader with an empty value: %v %+v", ok, info)
	}

	h.set("plain", "x", 0)
	if _, _, err := kv.CurrentLeader(h.e, "plain"); !errors.Is(err, kv.ErrWrongType) {
		t.Errorf("CurrentLeader of a plain value: %v", err)
	}
	for _, bad := range []struct {
		token string
		ttl   time.Duration
		want  error
	}{{"", time.Minute, kv.ErrBadArgument}, {string(make([]byte, kv.MaxLeaseToken+1)), time.Minute, kv.ErrBadArgument},
		{"t", 0, kv.ErrBadTTL}, {"t", -time.Second, kv.ErrBadTTL}} {
		if _, _, _, err := kv.Campaign(h.e, "other", []byte(bad.token), nil, bad.ttl); !errors.Is(err, bad.want) {
			t.Errorf("Campaign with token of %d bytes, ttl %v: %v, want %v", len(bad.token), bad.ttl, err, bad.want)
		}
	}
	if _, _, _, err := kv.Campaign(h.e, "", []byte("t"), nil, time.Minute); !errors.Is(err, kv.ErrEmptyKey) {
		t.Errorf("Campaign with an empty election: %v", err)
	}
}
