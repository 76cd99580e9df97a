package kvtest

import (
	"bytes"
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// The plain operations, each with its live, missing and expired cases.

func checkGetSet(h *harness) {
	t := h.t
	if v, ok := h.get("k"); ok {
		t.Fatalf("a new engine has k = %q", v)
	}
	h.set("k", "one", 0)
	if v := h.value("k"); v != "one" {
		t.Fatalf("k = %q, want one", v)
	}
	// Set overwrites value and ttl: a ttl on a persistent key, then none.
	h.set("k", "two", time.Minute)
	if v, d := h.value("k"), h.ttl("k"); v != "two" || !h.within(d, time.Minute, time.Minute) {
		t.Fatalf("after Set with 1 min: %q, ttl %v", v, d)
	}
	h.set("k", "three", 0)
	if v, d := h.value("k"), h.ttl("k"); v != "three" || d != kv.TTLPersistent {
		t.Fatalf("after Set with no ttl: %q, ttl %v", v, d)
	}
	// Binary-safe keys and values, and the empty value.
	bin := "\x00k\xff\r\n"
	h.set(bin, "\x00v\xff\r\n", 0)
	if v := h.value(bin); v != "\x00v\xff\r\n" {
		t.Fatalf("binary value %q", v)
	}
	if v := h.value("\x00k\xff\r"); v != "(absent)" {
		t.Fatalf("a key's prefix reads %q", v)
	}
	h.set("empty", "", 0)
	if v, ok := h.get("empty"); !ok || v != "" {
		t.Fatalf("empty value: %q, found %v", v, ok)
	}
	// Large compressible and incompressible values come back intact.
	for _, v := range []string{compressible(int(h.cfg.MaxValueSize)), strings.Repeat("\x00", 5000), string(noise(20000))} {
		h.set("big", v, 0)
		if got := h.value("big"); got != v {
			t.Fatalf("a %d-byte value came back as %d bytes", len(v), len(got))
		}
	}
	// Expired is absent.
	h.set("short", "v", expireSoon)
	h.waitExpiry()
	if v, ok := h.get("short"); ok {
		t.Fatalf("expired key reads %q", v)
	}
}

// noise is n bytes that do not compress.
func noise(n int) []byte {
	b := make([]byte, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

// Get's two-call protocol: a buffer too small gets the length and nothing
// copied; the next call with a large enough buffer gets the value as it is
// then, not as it was.
func checkGetBuffer(h *harness) {
	t := h.t
	h.set("k", "0123456789", 0)
	n, found, err := h.e.Get("k", nil)
	h.noErr("Get", err)
	if !found || n != 10 {
		t.Fatalf("Get with no buffer: n %d, found %v", n, found)
	}
	small := bytes.Repeat([]byte{'#'}, 9)
	n, found, err = h.e.Get("k", small)
	h.noErr("Get", err)
	if !found || n != 10 || string(small) != "#########" {
		t.Fatalf("Get with 9 bytes: n %d, found %v, buffer %q", n, found, small)
	}
	exact := make([]byte, 10)
	n, found, err = h.e.Get("k", exact)
	h.noErr("Get", err)
	if !found || n != 10 || string(exact) != "0123456789" {
		t.Fatalf("Get with 10 bytes: n %d, found %v, %q", n, found, exact)
	}
	// Large values, the compressed path included.
	for _, v := range []string{compressible(4000), string(noise(4000))} {
		h.set("k", v, 0)
		n, _, err := h.e.Get("k", make([]byte, 16))
		h.noErr("Get", err)
		buf := make([]byte, n)
		if m, found, err := h.e.Get("k", buf); err != nil || !found || m != len(v) || string(buf) != v {
			t.Fatalf("second call for a %d-byte value: n %d, found %v, %v", len(v), m, found, err)
		}
	}

	// What happens between the two calls is seen by the second.
	h.set("k", "0123456789", 0)
	_, _, err = h.e.Get("k", nil)
	h.noErr("Get", err)
	h.set("k", "abcdefghij", 0)
	buf := make([]byte, 10)
	if n, found, err := h.e.Get("k", buf); err != nil || !found || string(buf[:n]) != "abcdefghij" {
		t.Fatalf("second call after an overwrite: %q, found %v, %v", buf[:n], found, err)
	}
	_, _, err = h.e.Get("k", nil)
	h.noErr("Get", err)
	if ok, err := h.e.Del("k"); err != nil || !ok {
		t.Fatalf("Del: %v, %v", ok, err)
	}
	if n, found, err := h.e.Get("k", make([]byte, 10)); err != nil || found || n != 0 {
		t.Fatalf("second call after a delete: n %d, found %v, %v", n, found, err)
	}
	// A value that grew meanwhile: its new length, nothing copied.
	h.set("k", "0123456789", 0)
	_, _, err = h.e.Get("k", nil)
	h.noErr("Get", err)
	h.set("k", "0123456789+more", 0)
	buf = bytes.Repeat([]byte{'#'}, 10)
	if n, found, err := h.e.Get("k", buf); err != nil || !found || n != 15 || string(buf) != "##########" {
		t.Fatalf("second call after the value grew: n %d, found %v, buffer %q, %v", n, found, buf, err)
	}
}

func checkSetNX(h *harness) {
	t := h.t
	ok, err := h.e.SetNX("lock", []byte("A"), time.Minute)
	h.noErr("SetNX", err)
	if !ok || h.value("lock") != "A" || !h.within(h.ttl("lock"), time.Minute, time.Minute) {
		t.Fatalf("SetNX on a free key: %v, %q, ttl %v", ok, h.value("lock"), h.ttl("lock"))
	}
	ok, err = h.e.SetNX("lock", []byte("B"), 0)
	h.noErr("SetNX", err)
	if ok || h.value("lock") != "A" || h.ttl("lock") == kv.TTLPersistent {
		t.Fatalf("SetNX on a held key: %v, %q, ttl %v", ok, h.value("lock"), h.ttl("lock"))
	}
	// An expired holder is absent: the next SetNX wins, with its own ttl.
	h.set("lock", "A", expireSoon)
	h.waitExpiry()
	ok, err = h.e.SetNX("lock", []byte("B"), 0)
	h.noErr("SetNX", err)
	if !ok || h.value("lock") != "B" || h.ttl("lock") != kv.TTLPersistent {
		t.Fatalf("SetNX on an expired key: %v, %q, ttl %v", ok, h.value("lock"), h.ttl("lock"))
	}
	if _, err := h.e.Del("lock"); err != nil {
		t.Fatal(err)
	}
	if ok, err := h.e.SetNX("lock", []byte("C"), 0); err != nil || !ok {
		t.Fatalf("SetNX after Del: %v, %v", ok, err)
	}
}

func checkDel(h *harness) {
	t := h.t
	h.set("k", "v", 0)
	if ok, err := h.e.Del("k"); err != nil || !ok || h.exists("k") {
		t.Fatalf("Del of a live key: %v, %v", ok, err)
	}
	if ok, err := h.e.Del("k"); err != nil || ok {
		t.Fatalf("Del of a missing key: %v, %v", ok, err)
	}
	h.set("k", "v", expireSoon)
	h.waitExpiry()
	if ok, err := h.e.Del("k"); err != nil || ok {
		t.Fatalf("Del of an expired key: %v, %v", ok, err)
	}
}

// DelIfEq is the lock release: only the live holder's exact token.
func checkDelIfEq(h *harness) {
	t := h.t
	h.set("lock", "A", time.Minute)
	for _, wrong := range []string{"B", "", "AA", "a", "A\x00"} {
		if ok, err := h.e.DelIfEq("lock", []byte(wrong)); err != nil || ok || h.value("lock") != "A" {
			t.Fatalf("DelIfEq with %q: %v, %v, lock %q", wrong, ok, err, h.value("lock"))
		}
	}
	if ok, err := h.e.DelIfEq("lock", []byte("A")); err != nil || !ok || h.exists("lock") {
		t.Fatalf("DelIfEq with the token: %v, %v", ok, err)
	}
	if ok, err := h.e.DelIfEq("lock", []byte("A")); err != nil || ok {
		t.Fatalf("DelIfEq of a missing key: %v, %v", ok, err)
	}
	// Expired never matches, and the key stays free for the next holder.
	h.set("lock", "A", expireSoon)
	h.waitExpiry()
	if ok, err := h.e.DelIfEq("lock", []byte("A")); err != nil || ok {
		t.Fatalf("DelIfEq of an expired lock: %v, %v", ok, err)
	}
	if ok, err := h.e.SetNX("lock", []byte("B"), time.Minute); err != nil || !ok {
		t.Fatalf("SetNX after an expired release: %v, %v", ok, err)
	}
	// The A/B/C scenario: A's late release must not free B's lock.
	if ok, err := h.e.DelIfEq("lock", []byte("A")); err != nil || ok || h.value("lock") != "B" {
		t.Fatalf("A released B's lock: %v, %v", ok, err)
	}
	// The compare is against the value as stored by the user, compressed or not.
	big := compressible(8000)
	h.set("big", big, time.Minute)
	if ok, err := h.e.DelIfEq("big", []byte(big[:7999]+"x")); err != nil || ok {
		t.Fatalf("DelIfEq of a compressed value with a token one byte off: %v, %v", ok, err)
	}
	if ok, err := h.e.DelIfEq("big", []byte(big)); err != nil || !ok || h.exists("big") {
		t.Fatalf("DelIfEq of a compressed value with its token: %v, %v", ok, err)
	}
	// The empty token is the empty value's.
	h.set("empty", "", time.Minute)
	if ok, err := h.e.DelIfEq("empty", nil); err != nil || !ok || h.exists("empty") {
		t.Fatalf("DelIfEq of an empty value with the empty token: %v, %v", ok, err)
	}
	// A token longer than any value can never match: false, not an error.
	h.set("lock", "A", time.Minute)
	if ok, err := h.e.DelIfEq("lock", make([]byte, h.cfg.MaxValueSize+1)); err != nil || ok || h.value("lock") != "A" {
		t.Fatalf("DelIfEq with a token over the value limit: %v, %v", ok, err)
	}
}

func checkExists(h *harness) {
	t := h.t
	if h.exists("k") {
		t.Fatal("a missing key exists")
	}
	h.set("k", "", 0)
	if !h.exists("k") {
		t.Fatal("a key with an empty value does not exist")
	}
	h.set("k", "v", expireSoon)
	h.waitExpiry()
	if h.exists("k") {
		t.Fatal("an expired key exists")
	}
}

func checkExpire(h *harness) {
	t := h.t
	if ok, err := h.e.Expire("k", time.Minute); err != nil || ok || h.exists("k") {
		t.Fatalf("Expire of a missing key: %v, %v", ok, err)
	}
	h.set("k", "v", 0)
	start := time.Now()
	if ok, err := h.e.Expire("k", time.Minute); err != nil || !ok || !h.within(h.ttl("k"), time.Minute, time.Since(start)) {
		t.Fatalf("Expire of a live key: %v, %v, ttl %v", ok, err, h.ttl("k"))
	}
	if ok, err := h.e.Expire("k", 0); err != nil || !ok || h.ttl("k") != kv.TTLPersistent {
		t.Fatalf("Expire 0 must remove the expiry: %v, %v, ttl %v", ok, err, h.ttl("k"))
	}
	if ok, err := h.e.Expire("k", expireSoon); err != nil || !ok {
		t.Fatalf("Expire: %v, %v", ok, err)
	}
	h.waitExpiry()
	if ok, err := h.e.Expire("k", time.Minute); err != nil || ok || h.exists("k") {
		t.Fatalf("Expire revived an expired key: %v, %v", ok, err)
	}
}

func checkExpireIfEq(h *harness) {
	t := h.t
	if ok, err := h.e.ExpireIfEq("lock", []byte("A"), time.Minute); err != nil || ok || h.exists("lock") {
		t.Fatalf("ExpireIfEq of a missing key: %v, %v", ok, err)
	}
	h.set("lock", "A", 10*time.Second)
	if ok, err := h.e.ExpireIfEq("lock", []byte("B"), time.Hour); err != nil || ok || h.ttl("lock") > 10*time.Second {
		t.Fatalf("ExpireIfEq with another token: %v, %v, ttl %v", ok, err, h.ttl("lock"))
	}
	start := time.Now()
	if ok, err := h.e.ExpireIfEq("lock", []byte("A"), time.Hour); err != nil || !ok || !h.within(h.ttl("lock"), time.Hour, time.Since(start)) {
		t.Fatalf("ExpireIfEq with the token: %v, %v, ttl %v", ok, err, h.ttl("lock"))
	}
	if ok, err := h.e.ExpireIfEq("lock", []byte("A"), 0); err != nil || !ok || h.ttl("lock") != kv.TTLPersistent {
		t.Fatalf("ExpireIfEq 0: %v, %v, ttl %v", ok, err, h.ttl("lock"))
	}
	big := compressible(8000)
	h.set("big", big, 10*time.Second)
	if ok, err := h.e.ExpireIfEq("big", []byte(big), time.Hour); err != nil || !ok || h.ttl("big") <= 10*time.Second {
		t.Fatalf("ExpireIfEq of a compressed value: %v, %v, ttl %v", ok, err, h.ttl("big"))
	}
	h.set("lock", "A", expireSoon)
	h.waitExpiry()
	if ok, err := h.e.ExpireIfEq("lock", []byte("A"), time.Minute); err != nil || ok || h.exists("lock") {
		t.Fatalf("ExpireIfEq revived an expired lock: %v, %v", ok, err)
	}
	h.set("lock", "A", 10*time.Second)
	if ok, err := h.e.ExpireIfEq("lock", make([]byte, h.cfg.MaxValueSize+1), time.Hour); err != nil || ok {
		t.Fatalf("ExpireIfEq with a token over the value limit: %v, %v", ok, err)
	}
}

func checkTTLValues(h *harness) {
	t := h.t
	if d := h.ttl("k"); d != kv.TTLMissing {
		t.Fatalf("TTL of a missing key: %v", d)
	}
	h.set("k", "v", 0)
	if d := h.ttl("k"); d != kv.TTLPersistent {
		t.Fatalf("TTL of a key without expiry: %v", d)
	}
	start := time.Now()
	h.set("k", "v", 1500*time.Millisecond)
	if d := h.ttl("k"); !h.within(d, 1500*time.Millisecond, time.Since(start)) {
		t.Fatalf("TTL of a 1.5 s key: %v", d)
	}
	// A sub-unit ttl is rounded up, never to "no expiry".
	h.set("k", "v", 1)
	if d := h.ttl("k"); d == kv.TTLPersistent || d > h.target.TTLResolution {
		t.Fatalf("TTL of a 1 ns key: %v", d)
	}
	h.set("k", "v", expireSoon)
	h.waitExpiry()
	if d := h.ttl("k"); d != kv.TTLMissing {
		t.Fatalf("TTL of an expired key: %v", d)
	}
}

func checkTTLIfEq(h *harness) {
	t := h.t
	ttlIfEq := func(key, token string) time.Duration {
		t.Helper()
		d, err := h.e.TTLIfEq(key, []byte(token))
		h.noErr("TTLIfEq", err)
		return d
	}
	if d := ttlIfEq("lock", "A"); d != kv.TTLMissing {
		t.Fatalf("TTLIfEq of a missing key: %v", d)
	}
	h.set("lock", "A", 0)
	if d := ttlIfEq("lock", "A"); d != kv.TTLPersistent {
		t.Fatalf("TTLIfEq of the holder without expiry: %v", d)
	}
	if d := ttlIfEq("lock", "B"); d != kv.TTLMissing {
		t.Fatalf("TTLIfEq of someone else's lock without expiry: %v", d)
	}
	start := time.Now()
	h.set("lock", "A", 1500*time.Millisecond)
	if d := ttlIfEq("lock", "A"); !h.within(d, 1500*time.Millisecond, time.Since(start)) {
		t.Fatalf("TTLIfEq of the holder: %v", d)
	}
	if d := ttlIfEq("lock", "B"); d != kv.TTLMissing {
		t.Fatalf("TTLIfEq of someone else's lock: %v", d)
	}
	if d, err := h.e.TTLIfEq("lock", make([]byte, h.cfg.MaxValueSize+1)); err != nil || d != kv.TTLMissing {
		t.Fatalf("TTLIfEq with a token over the value limit: %v, %v", d, err)
	}
	big := compressible(8000)
	h.set("big", big, time.Minute)
	if d := ttlIfEq("big", big); !h.within(d, time.Minute, time.Minute) {
		t.Fatalf("TTLIfEq of a compressed value: %v", d)
	}
	h.set("lock", "A", expireSoon)
	h.waitExpiry()
	if d := ttlIfEq("lock", "A"); d != kv.TTLMissing {
		t.Fatalf("TTLIfEq of an expired lock: %v", d)
	}
}

// Flush empties the store; the fence counter does not go back.
func checkFlush(h *harness) {
	t := h.t
	h.set("a", "1", 0)
	h.set("b", compressible(4000), time.Minute)
	f1, ok, err := h.e.SetNXFenced("lock", []byte("A"), time.Minute)
	h.noErr("SetNXFenced", err)
	if !ok {
		t.Fatal("SetNXFenced on a new engine: held")
	}
	h.noErr("Flush", h.e.Flush())
	for _, k := range []string{"a", "b", "lock"} {
		if h.exists(k) {
			t.Fatalf("%s survived Flush", k)
		}
	}
	if st := h.stats(); st.Keys != 0 || st.Compressed != 0 {
		t.Fatalf("after Flush: %d keys, %d compressed", st.Keys, st.Compressed)
	}
	f2, ok, err := h.e.SetNXFenced("lock", []byte("A"), time.Minute)
	h.noErr("SetNXFenced", err)
	if !ok || f2 <= f1 {
		t.Fatalf("fence after Flush %d (acquired %v), before %d: the counter went back", f2, ok, f1)
	}
}

// A flush never makes a stale fence acceptable: a fence a resource refused
// before it, it refuses after it, while the fences issued after it pass.
// Where fence records are keys of the store's keyspace (FencesAreKeys: a
// Redis, whose FLUSHDB takes them) only the latter holds.
func checkFlushFences(h *harness) {
	t := h.t
	lock := h.target.fenceName("lock")
	fence := func(resource string, f int64) bool {
		t.Helper()
		ok, err := h.e.Fence(resource, f)
		h.noErr("Fence", err)
		return ok
	}
	f1, ok, err := h.e.SetNXFenced(lock, []byte("A"), time.Minute)
	h.noErr("SetNXFenced", err)
	if !ok || !fence("db", f1) || fence("db", f1-1) {
		t.Fatalf("before Flush: acquired %v with fence %d; the resource took it, then refused %d", ok, f1, f1-1)
	}
	h.noErr("Flush", h.e.Flush())
	if !h.target.FencesAreKeys && fence("db", f1-1) {
		t.Fatalf("Fence(db, %d) refused before Flush, accepted after it (%d was recorded)", f1-1, f1)
	}
	f2, ok, err := h.e.SetNXFenced(lock, []byte("B"), time.Minute)
	h.noErr("SetNXFenced", err)
	if !ok || !fence("db", f2) || !fence("fresh", f2) {
		t.Fatalf("after Flush: acquired %v with fence %d (%d before); a resource refused it", ok, f2, f1)
	}
}
