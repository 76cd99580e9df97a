package shm

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// wantCorrupt fails unless err is ErrCorrupt naming key.
func wantCorrupt(t *testing.T, what string, err error, key string) {
	t.Helper()
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf("%q", key)) {
		t.Fatalf("%s: %v; want ErrCorrupt naming %q", what, err, key)
	}
}

func quarantined(t *testing.T, e *Engine) int64 {
	t.Helper()
	s, err := e.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return s.Quarantined
}

// A record changed in its block (its lengths still inside it) is an error
// naming the key, never the block's other bytes nor an allocation of a
// forged length; it stays quarantined, holding its key, until a write
// replaces it.
func TestCorruptRecordIsQuarantined(t *testing.T) {
	cases := []struct {
		name    string
		corrupt func(r *record, value []byte, room uint32)
	}{
		{"value byte", func(r *record, v []byte, room uint32) { v[3] ^= 1 }},
		// The block's class leaves room past the value: a longer length
		// would hand out whatever the block held before.
		{"longer value", func(r *record, v []byte, room uint32) { r.storedLen += room; r.plainLen += room }},
		{"forged plain length", func(r *record, v []byte, room uint32) { r.plainLen = 1200 << 20 }},
		{"flags", func(r *record, v []byte, room uint32) { r.flags |= flagLease }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, off := corruptible(t)
			r := e.rec(off)
			room := uint32(classSizes[r.class] - recHeader - uint64(r.keyLen+r.storedLen))
			if room == 0 {
				t.Fatalf("the victim's block has no room to lengthen it: class %d", classSizes[r.class])
			}
			c.corrupt(r, e.recValue(off, r), room)
			buf := make([]byte, 4096)
			for i := range 2 {
				n, ok, err := e.Get("victim", buf)
				wantCorrupt(t, fmt.Sprint("get ", i), err, "victim")
				if n != 0 || ok {
					t.Fatalf("get %d: %d bytes, found %v, with the error", i, n, ok)
				}
			}
			if got := quarantined(t, e); got != 1 {
				t.Fatalf("stats: %d quarantined, want 1", got)
			}
			if ok, err := e.SetNX("victim", []byte("second holder"), 0); ok || err != nil {
				t.Fatalf("setnx on the quarantined key: %v %v; want false (still held)", ok, err)
			}
			err := e.Verify()
			if err == nil || !strings.Contains(err.Error(), `"victim"`) || !strings.Contains(err.Error(), "quarantined") {
				t.Fatalf("Verify: %v; want the quarantined record named", err)
			}
			if err := e.Set("victim", []byte("anew"), 0); err != nil {
				t.Fatal(err)
			}
			if v, ok := get(t, e, "victim"); !ok || v != "anew" {
				t.Fatalf("after the overwrite: %q %v", v, ok)
			}
			if got := quarantined(t, e); got != 0 {
				t.Fatalf("stats after the overwrite: %d quarantined", got)
			}
			mustVerify(t, e)
		})
	}
}

// The compare-and-act ops: a token that does not match a corrupt record is
// the corruption, not "someone else holds it"; a quarantined record is not
// released even by its token.
func TestCorruptRecordFailsCompares(t *testing.T) {
	e, off := corruptible(t)
	e.recValue(off, e.rec(off))[0] ^= 1
	_, err := e.DelIfEq("victim", []byte("another token"))
	wantCorrupt(t, "del_if_eq, other token", err, "victim")
	_, err = e.DelIfEq("victim", []byte("victim's value"))
	wantCorrupt(t, "del_if_eq, its token", err, "victim")
	_, err = e.ExpireIfEq("victim", []byte("victim's value"), time.Minute)
	wantCorrupt(t, "expire_if_eq", err, "victim")
	_, err = e.TTLIfEq("victim", []byte("x"))
	wantCorrupt(t, "ttl_if_eq", err, "victim")
	// A plain delete takes it away.
	if ok, err := e.Del("victim"); !ok || err != nil {
		t.Fatalf("del: %v %v", ok, err)
	}
	mustVerify(t, e)
}

// Counters and lease sets are parsed only from a record that passes.
func TestCorruptCounterAndLeaseSet(t *testing.T) {
	mem, _ := MapAnonymous(1 << 20)
	t.Cleanup(func() { Unmap(mem) })
	e, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(key string) *record {
		b, h := e.locate(key)
		_, off := e.find(b, h, key, kindUser)
		return e.rec(off)
	}
	if _, err := e.Incr("n", 41, 0); err != nil {
		t.Fatal(err)
	}
	at("n").sum ^= 1
	_, err = e.Incr("n", 1, 0)
	wantCorrupt(t, "incr", err, "n")
	if _, _, err := e.LeaseAcquire("rw", []byte("t1"), kv.LeaseShared, 0, time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	at("rw").sum ^= 1
	_, _, err = e.LeaseAcquire("rw", []byte("t2"), kv.LeaseShared, 0, time.Minute, 0)
	wantCorrupt(t, "lease_acquire", err, "rw")
	if got := quarantined(t, e); got != 2 {
		t.Fatalf("stats: %d quarantined, want 2", got)
	}
}

// Repair after a death quarantines a corrupt record and walks on: the
// records after it in its chain stay (cutting the chain there lost them).
func TestRepairQuarantinesAndKeepsTheChain(t *testing.T) {
	mem, _ := MapAnonymous(1 << 20)
	t.Cleanup(func() { Unmap(mem) })
	e, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	vb, _ := e.locate("victim")
	other := ""
	for i := 0; other == ""; i++ {
		if b, _ := e.locate(fmt.Sprint("k", i)); b == vb {
			other = fmt.Sprint("k", i)
		}
	}
	e.Set(other, []byte("kept"), 0)
	e.Set("victim", []byte("victim's value"), 0) // the chain's head, before other
	b, h := e.locate("victim")
	_, off := e.find(b, h, "victim", kindUser)
	e.recValue(off, e.rec(off))[2] ^= 1
	atomic.StoreUint64(&e.stripe(b&e.stripeMask).mu.word, deadOwner(t))
	if v, ok := get(t, e, other); !ok || v != "kept" {
		t.Fatalf("%s after the repair: %q %v; want it kept", other, v, ok)
	}
	_, _, err = e.Get("victim", make([]byte, 64))
	wantCorrupt(t, "get after the repair", err, "victim")
	if got := quarantined(t, e); got != 1 {
		t.Fatalf("stats: %d quarantined, want 1", got)
	}
}

// A quarantined record expires as any: gone, and counted out.
func TestQuarantinedRecordExpires(t *testing.T) {
	mem, _ := MapAnonymous(1 << 20)
	t.Cleanup(func() { Unmap(mem) })
	e, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	e.Set("lock", []byte("token"), 50*time.Millisecond)
	b, h := e.locate("lock")
	_, off := e.find(b, h, "lock", kindUser)
	e.rec(off).sum ^= 1
	_, _, err = e.Get("lock", make([]byte, 64))
	wantCorrupt(t, "get", err, "lock")
	time.Sleep(80 * time.Millisecond)
	if ok, err := e.SetNX("lock", []byte("next"), 0); !ok || err != nil {
		t.Fatalf("setnx after the expiry: %v %v", ok, err)
	}
	if got := quarantined(t, e); got != 0 {
		t.Fatalf("stats: %d quarantined after the expiry", got)
	}
	mustVerify(t, e)
}

// The reclaim pass over a corrupt record (a class no block has) neither
// panics (a panic under a stripe lock that the cgo layer recovers leaves
// the stripe locked by a live process: every other one hangs on it) nor
// frees the block on a free list that is not one (a class past the
// segment's indexes its free-list heads into the bucket array).
func TestReclaimPassesCorruptRecordBy(t *testing.T) {
	for _, bad := range []int{200, -1} {
		t.Run(fmt.Sprint("class=", bad), func(t *testing.T) {
			e, off := loopable(t)
			class := uint8(bad)
			if bad < 0 {
				class = uint8(e.classes) // the first class the segment has not
			}
			r := e.rec(off)
			r.class, r.deadline = class, 1 // expired long ago
			b, _ := e.locate("victim")
			e.stripe(b & e.stripeMask).minDL = 1
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("reclaim panicked: %v", p)
					}
				}()
				e.reclaimExpired()
			}()
			within(t, "a Get on the stripe after the reclaim", func() {
				get(t, e, keyOnStripe(e, b&e.stripeMask, "after"))
			})
			err := e.Verify()
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("record at %d:", off)) {
				t.Fatalf("Verify: %v; want the corrupt record reported", err)
			}
			for _, s := range []string{"free list", "overlap"} {
				if strings.Contains(err.Error(), s) {
					t.Fatalf("Verify: %v; the reclaim damaged a free list", err)
				}
			}
		})
	}
}

// A record holds its lengths in 32 bits: a value longer than that is
// refused as too large, whatever max_value_size allows (on a segment over
// 4 GiB it was stored with its length wrapped: read back truncated). The
// value is address space nobody may read (PROT_NONE, never backed): only
// its length is looked at before the refusal.
func TestValueLongerThanARecordHoldsIsRefused(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{MaxValueSize: 1 << 40, CompressMin: -1})
	huge, err := syscall.Mmap(-1, 0, 1<<32+10, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		t.Skip("no 4 GiB of address space:", err)
	}
	defer syscall.Munmap(huge)
	if err := e.Set("k", huge, 0); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Fatalf("Set of a %d-byte value: %v, want ErrValueTooLarge", len(huge), err)
	}
	if _, err := e.SetIfLocked("k", huge, 0, "lock", []byte("t"), time.Second, false); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Fatalf("SetIfLocked of a %d-byte value: %v, want ErrValueTooLarge", len(huge), err)
	}
}
