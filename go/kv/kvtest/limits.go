package kvtest

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// keyOps calls every operation that takes a key with key in one of its key
// places; each returns the operation's error.
func keyOps(key string) map[string]func(e kv.Engine) error {
	v := []byte("v")
	return map[string]func(e kv.Engine) error{
		"Get":        func(e kv.Engine) error { _, _, err := e.Get(key, nil); return err },
		"Set":        func(e kv.Engine) error { return e.Set(key, v, 0) },
		"SetNX":      func(e kv.Engine) error { _, err := e.SetNX(key, v, 0); return err },
		"Del":        func(e kv.Engine) error { _, err := e.Del(key); return err },
		"DelIfEq":    func(e kv.Engine) error { _, err := e.DelIfEq(key, v); return err },
		"Exists":     func(e kv.Engine) error { _, err := e.Exists(key); return err },
		"Expire":     func(e kv.Engine) error { _, err := e.Expire(key, time.Second); return err },
		"ExpireIfEq": func(e kv.Engine) error { _, err := e.ExpireIfEq(key, v, time.Second); return err },
		"TTL":        func(e kv.Engine) error { _, err := e.TTL(key); return err },
		"TTLIfEq":    func(e kv.Engine) error { _, err := e.TTLIfEq(key, v); return err },
		"Incr":       func(e kv.Engine) error { _, err := e.Incr(key, 1, 0); return err },
		"SetNXFenced": func(e kv.Engine) error {
			_, _, err := e.SetNXFenced(key, v, 0)
			return err
		},
		"Fence": func(e kv.Engine) error { _, err := e.Fence(key, 1); return err },
		"LockAndGet lock": func(e kv.Engine) error {
			_, _, _, err := kv.LockAndGet(e, key, v, time.Second, "kvtest:data", nil)
			return err
		},
		"LockAndGet data": func(e kv.Engine) error {
			_, _, _, err := kv.LockAndGet(e, "kvtest:lock", v, time.Second, key, nil)
			return err
		},
		"SetIfLocked data": func(e kv.Engine) error {
			_, err := kv.SetIfLocked(e, key, v, 0, "kvtest:lock", v, time.Second, false)
			return err
		},
		"SetIfLocked lock": func(e kv.Engine) error {
			_, err := kv.SetIfLocked(e, "kvtest:data", v, 0, key, v, time.Second, false)
			return err
		},
	}
}

// checkKeyRefused checks that every op refuses key with want, and the engine
// still works afterwards (a refusal must not cost a server connection its
// step).
func checkKeyRefused(h *harness, key string, want error) {
	for name, op := range keyOps(key) {
		// The other key of the session ops is held, so that a check made
		// only after acquiring would be seen to be missing.
		h.set("kvtest:lock", "v", time.Minute)
		if err := op(h.e); !errors.Is(err, want) {
			h.t.Errorf("%s with a %d-byte key: %v, want %v", name, len(key), err, want)
		}
		if v := h.value("kvtest:data"); v != "(absent)" {
			h.t.Errorf("%s with a refused key wrote the other key: %q", name, v)
		}
	}
	h.set("after", "ok", 0)
	if v := h.value("after"); v != "ok" {
		h.t.Fatalf("after the refusals: %q", v)
	}
}

func checkEmptyKey(h *harness) { checkKeyRefused(h, "", kv.ErrEmptyKey) }

func checkKeyTooLarge(h *harness) {
	checkKeyRefused(h, strings.Repeat("k", kv.MaxKeySize+1), kv.ErrKeyTooLarge)
	// The largest key works for every op.
	key := strings.Repeat("k", kv.MaxKeySize)
	for name, op := range keyOps(key) {
		if _, err := h.e.Del(key); err != nil {
			h.t.Fatal(err)
		}
		if err := op(h.e); err != nil {
			h.t.Errorf("%s with a key of kv.MaxKeySize: %v", name, err)
		}
	}
}

// valueOps stores value through every op that stores one.
func valueOps(value []byte) map[string]func(e kv.Engine) error {
	return map[string]func(e kv.Engine) error{
		"Set":   func(e kv.Engine) error { return e.Set("k", value, 0) },
		"SetNX": func(e kv.Engine) error { _, err := e.SetNX("k", value, 0); return err },
		"SetNXFenced": func(e kv.Engine) error {
			_, _, err := e.SetNXFenced("k", value, 0)
			return err
		},
		"LockAndGet": func(e kv.Engine) error {
			_, _, _, err := kv.LockAndGet(e, "k", value, time.Minute, "kvtest:data", nil)
			return err
		},
		"SetIfLocked": func(e kv.Engine) error {
			if err := e.Set("kvtest:lock", []byte("v"), time.Minute); err != nil {
				return err
			}
			_, err := kv.SetIfLocked(e, "k", value, 0, "kvtest:lock", []byte("v"), time.Minute, false)
			return err
		},
	}
}

// The value limit is on the value as given, before compression: exactly
// the limit is stored, one byte more refused with kv.ErrValueTooLarge,
// compressible or not.
func checkValueTooLarge(h *harness) {
	limit := int(h.cfg.MaxValueSize)
	for _, kind := range []string{"compressible", "incompressible"} {
		valueOf := func(n int) []byte {
			if kind == "compressible" {
				return []byte(compressible(n))
			}
			return noise(n)
		}
		for name, op := range valueOps(valueOf(limit + 1)) {
			if _, err := h.e.Del("k"); err != nil {
				h.t.Fatal(err)
			}
			if err := op(h.e); !errors.Is(err, kv.ErrValueTooLarge) {
				h.t.Errorf("%s of a %s value of %d bytes (limit %d): %v, want kv.ErrValueTooLarge", name, kind, limit+1, limit, err)
			}
			if h.exists("k") {
				h.t.Errorf("%s stored a refused value", name)
			}
		}
		at := valueOf(limit)
		for name, op := range valueOps(at) {
			if _, err := h.e.Del("k"); err != nil {
				h.t.Fatal(err)
			}
			if err := op(h.e); err != nil {
				h.t.Errorf("%s of a %s value of exactly the limit: %v", name, kind, err)
			} else if v := h.value("k"); v != string(at) {
				h.t.Errorf("%s of a %s value of exactly the limit stored %d bytes", name, kind, len(v))
			}
		}
	}
}

// fullConfig is small enough to fill quickly.
var fullConfig = Config{MemoryLimit: 512 << 10, MaxValueSize: 16 << 10, CompressMin: -1}

// fill writes persistent (or ttl) values under new keys, shrinking the
// value as the store fills, until even a one-byte value is refused with
// kv.ErrFull. It returns the keys and values stored, or ok false when
// filling took longer than half of a positive ttl (some entries may have
// expired and been reclaimed meanwhile: stored would not be what fits).
func (h *harness) fill(prefix string, ttl time.Duration) (stored map[string]string, ok bool) {
	t := h.t
	start := time.Now()
	stored = map[string]string{}
	for _, size := range []int{8 << 10, 512, 1} {
		for {
			if len(stored) > 100_000 {
				t.Fatalf("%d entries in a store of %d bytes and never full", len(stored), h.cfg.MemoryLimit)
			}
			if ttl > 0 && time.Since(start) > ttl/2 {
				return nil, false
			}
			key, value := fmt.Sprintf("%s%08d", prefix, len(stored)), string(noise(size))
			err := h.e.Set(key, []byte(value), ttl)
			if errors.Is(err, kv.ErrFull) {
				break
			}
			h.noErr("Set while filling", err)
			stored[key] = value
		}
	}
	return stored, true
}

// A full store refuses writes with kv.ErrFull (setnx included: never a
// false "held"), counts them, and keeps every live entry. A lock taken
// before it filled can still be renewed, checked and released: those
// need no room, and a holder that cannot renew loses its lock.
func checkFull(h *harness) {
	t := h.t
	holder := []byte("holder")
	lock := h.target.fullName("full:lock")
	if ok, err := h.e.SetNX(lock, holder, time.Minute); !ok || err != nil {
		t.Fatalf("SetNX: %v, %v", ok, err)
	}
	stored, _ := h.fill(h.target.fullName("fill:"), 0)
	if len(stored) == 0 {
		t.Fatal("not even one entry fitted")
	}
	if ok, err := h.e.ExpireIfEq(lock, holder, 2*time.Minute); !ok || err != nil {
		t.Errorf("ExpireIfEq of a held lock on a full store: %v, %v", ok, err)
	}
	if ttl, err := h.e.TTLIfEq(lock, holder); ttl <= time.Minute || err != nil {
		t.Errorf("TTLIfEq of a held lock on a full store: %v, %v", ttl, err)
	}
	if ok, err := h.e.Expire(lock, 0); !ok || err != nil {
		t.Errorf("Expire to none on a full store: %v, %v", ok, err)
	}
	rejected := h.stats().Rejected
	one := []byte("x")
	refusals := map[string]func() error{
		"Set": func() error { return h.e.Set(h.target.fullName("full:00000001"), one, 0) },
		"SetNX": func() error {
			ok, err := h.e.SetNX(h.target.fullName("full:00000002"), one, 0)
			return errors.Join(err, falseIsWrong(ok))
		},
		"SetNXFenced": func() error {
			_, ok, err := h.e.SetNXFenced(h.target.fullName("full:00000003"), one, 0)
			return errors.Join(err, falseIsWrong(ok))
		},
		"Incr": func() error { _, err := h.e.Incr(h.target.fullName("full:00000004"), 1, 0); return err },
		"LockAndGet": func() error {
			ok, _, _, err := kv.LockAndGet(h.e, h.target.fullName("full:00000005"), one, time.Minute, h.target.fullName("fill:00000000"), nil)
			return errors.Join(err, falseIsWrong(ok))
		},
	}
	for name, op := range refusals {
		if err := op(); !errors.Is(err, kv.ErrFull) {
			t.Errorf("%s on a full store: %v, want kv.ErrFull", name, err)
		}
	}
	if got := h.stats().Rejected - rejected; got != int64(len(refusals)) {
		t.Errorf("Stats.Rejected moved by %d for %d refused writes", got, len(refusals))
	}
	if ok, err := h.e.DelIfEq(lock, holder); !ok || err != nil {
		t.Errorf("DelIfEq of a held lock on a full store (after the refusals: it makes room): %v, %v", ok, err)
	}
	for key, want := range stored {
		if got, ok := h.get(key); !ok || got != want {
			t.Fatalf("%s was evicted or changed (found %v, %d bytes) to make room", key, ok, len(got))
		}
	}
	// Room made by a delete is usable again: deleting the largest entry
	// (and, past the engine's memory slack, more) makes room for one byte.
	keys := make([]string, 0, len(stored))
	for key := range stored {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return len(stored[keys[i]]) > len(stored[keys[j]]) })
	for freed := int64(0); len(keys) > 0 && (freed == 0 || freed < h.target.MemorySlack); keys = keys[1:] {
		if ok, err := h.e.Del(keys[0]); err != nil || !ok {
			t.Fatalf("Del: %v, %v", ok, err)
		}
		freed += int64(len(stored[keys[0]]))
	}
	if err := h.e.Set(h.target.fullName("full:00000001"), one, 0); err != nil {
		t.Fatalf("Set after a Del on a full store: %v", err)
	}
}

func falseIsWrong(ok bool) error {
	if !ok {
		return errors.New(`returned false ("held") instead of an error`)
	}
	return nil
}

// Expired entries are reclaimed before a write is refused as full.
func checkFullReclaimsExpired(h *harness) {
	t := h.t
	// A ttl the fill takes well under: longer on a slow machine.
	var stored map[string]string
	ttl := 100 * time.Millisecond
	for ok := false; !ok; ttl *= 2 {
		if ttl > 30*time.Second {
			t.Fatal("filling the store takes over 15 s")
		}
		h.noErr("Flush", h.e.Flush())
		if stored, ok = h.fill("short:", ttl); ok {
			time.Sleep(ttl + expireSoon) // every deadline has passed
		}
	}
	if h.target.ReclaimExpired != nil {
		h.target.ReclaimExpired(t)
	}
	// The same sizes again, under keys as long, without expiry: every one
	// fits in the room the expired ones leave (but for the engine's
	// memory slack).
	i, left := 0, int64(0)
	for _, value := range stored {
		left += int64(len(value))
	}
	for _, value := range stored {
		if left -= int64(len(value)); left < h.target.MemorySlack && h.target.MemorySlack > 0 {
			break
		}
		if err := h.e.Set(fmt.Sprintf("later:%08d", i), []byte(value), 0); err != nil {
			t.Fatalf("write %d of %d into a store of expired entries: %v", i+1, len(stored), err)
		}
		i++
	}
}
