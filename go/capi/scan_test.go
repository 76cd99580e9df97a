package main

import (
	"encoding/binary"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// unpackScan reads scanStep's buffer as the extension does.
func unpackScan(t *testing.T, b []byte) (next string, keys []kv.KeyInfo) {
	t.Helper()
	word := func() int64 {
		if len(b) < 8 {
			t.Fatalf("scan buffer cut short")
		}
		v := int64(binary.NativeEndian.Uint64(b))
		b = b[8:]
		return v
	}
	bytes := func(n int64) string {
		if n < 0 || n > int64(len(b)) {
			t.Fatalf("scan buffer: %d bytes announced, %d left", n, len(b))
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	next = bytes(word())
	for len(b) > 0 {
		kind, ttl, size, fence := word(), word(), word(), word()
		keys = append(keys, kv.KeyInfo{Kind: kv.KeyKind(kind), TTL: time.Duration(ttl), Size: size, Fence: fence, Key: bytes(word())})
	}
	return next, keys
}

// The scan op's buffer carries each key's kind, TTL, size, fence and
// bytes, and the cursor, over a whole walk in small steps.
func TestScanStepPacksAWalk(t *testing.T) {
	s := store.New(store.Config{})
	want := map[string]kv.KeyKind{}
	for i := range 25 {
		k := "k\x00" + strings.Repeat("x", i)
		if err := s.Set(k, []byte(strings.Repeat("v", i)), 0); err != nil {
			t.Fatal(err)
		}
		want[k] = kv.KindValue
	}
	if err := kv.SetEvictable(s, "cache", []byte("abc"), time.Minute); err != nil {
		t.Fatal(err)
	}
	want["cache"] = kv.KindEvictable
	fence, _, err := s.SetNXFenced("lock", []byte("token"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want["lock"] = kv.KindValue
	seen := map[string]kv.KeyInfo{}
	cursor, steps := "", 0
	for {
		packed, more, err := scanStep(s, cursor, "", 7)
		if err != nil {
			t.Fatal(err)
		}
		next, keys := unpackScan(t, packed)
		for _, k := range keys {
			seen[k.Key] = k
		}
		if more != (next != "") {
			t.Fatalf("more = %v with next cursor %q", more, next)
		}
		if steps++; !more {
			break
		}
		cursor = next
	}
	if steps < 4 {
		t.Errorf("27 keys in steps of 7 took %d steps", steps)
	}
	if l := seen["lock"]; l.Fence != fence || l.Fence < 1 || l.Size != 5 {
		t.Errorf("lock: fence %d size %d, want fence %d and size 5", l.Fence, l.Size, fence)
	}
	for k, kind := range want {
		got, ok := seen[k]
		if !ok {
			t.Errorf("key %q not reported", k)
			continue
		}
		if got.Kind != kind {
			t.Errorf("key %q kind %v, want %v", k, got.Kind, kind)
		}
	}
	if k := seen["k\x00xxx"]; k.Size != 3 || k.TTL != kv.TTLPersistent {
		t.Errorf("k\\x00xxx: size %d ttl %v, want 3 and persistent", k.Size, k.TTL)
	}
	if c := seen["cache"]; c.TTL <= 0 || c.TTL > time.Minute {
		t.Errorf("cache ttl %v, want (0, 1m]", c.TTL)
	}
}

// Bad arguments are BAD_ARGUMENT, a long pattern KEY_TOO_LARGE.
func TestScanStepErrors(t *testing.T) {
	s := store.New(store.Config{})
	for _, c := range []struct {
		cursor, match string
		count         int64
		want          error
	}{
		{"", "", 0, kv.ErrBadArgument},
		{"", "", kv.MaxScanCount + 1, kv.ErrBadArgument},
		{"", "", 1 << 40, kv.ErrBadArgument},
		{"not a cursor", "", 10, kv.ErrBadArgument},
		{"", strings.Repeat("*", kv.MaxKeySize+1), 10, kv.ErrKeyTooLarge},
	} {
		if _, _, err := scanStep(s, c.cursor, c.match, c.count); !errors.Is(err, c.want) {
			t.Errorf("scanStep(%q, %.10q, %d): %v, want %v", c.cursor, c.match, c.count, err, c.want)
		}
	}
}

// The extension names the kinds as kv.KeyKind.String() does.
func TestScanKindNamesMatchGo(t *testing.T) {
	body := section(t, "../../ext/ephpm_kv_functions.c", "static const char *const scan_kinds[]", "};")
	var names []string
	for _, m := range regexp.MustCompile(`\[EPHPM_KV_KIND_(\w+)\] = "(\w+)"`).FindAllStringSubmatch(body, -1) {
		names = append(names, m[2])
		if strings.ToLower(m[1]) != m[2] {
			t.Errorf("EPHPM_KV_KIND_%s is named %q", m[1], m[2])
		}
	}
	want := []string{}
	for _, k := range []kv.KeyKind{kv.KindValue, kv.KindEvictable, kv.KindLeases, kv.KindRateLog} {
		want = append(want, k.String())
	}
	if !slices.Equal(names, want) {
		t.Errorf("the extension's kind names %v, kv's %v", names, want)
	}
}
