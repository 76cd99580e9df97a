package shm

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/kv/kvtest"
)

func get(t testing.TB, e *Engine, key string) (string, bool) {
	t.Helper()
	var buf [512]byte
	n, ok, err := e.Get(key, buf[:])
	if err == nil && n > len(buf) {
		big := make([]byte, n)
		n, ok, err = e.Get(key, big)
		return string(big[:n]), ok
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n]), ok
}

func TestSetGetDel(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	if _, ok := get(t, e, "a"); ok {
		t.Fatal("found in an empty store")
	}
	if err := e.Set("a", []byte("one"), 0); err != nil {
		t.Fatal(err)
	}
	if v, ok := get(t, e, "a"); !ok || v != "one" {
		t.Fatalf("got %q %v", v, ok)
	}
	if err := e.Set("a", []byte("two!"), 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := get(t, e, "a"); v != "two!" {
		t.Fatalf("after replace: %q", v)
	}
	// A buffer too small: the length, nothing copied.
	small := make([]byte, 2)
	if n, ok, _ := e.Get("a", small); n != 4 || !ok || small[0] != 0 {
		t.Fatalf("small buffer: n %d ok %v %q", n, ok, small)
	}
	mustVerify(t, e)
	if ok, _ := e.Del("a"); !ok {
		t.Fatal("Del of a present key: false")
	}
	if ok, _ := e.Del("a"); ok {
		t.Fatal("Del of an absent key: true")
	}
	st, _ := e.Stats()
	if st.Keys != 0 || st.BytesUsed != 0 || st.Hits != 2 || st.Misses != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestManyKeysAndVerify(t *testing.T) {
	e := newTestEngine(t, 4<<20, Config{})
	r := rand.New(rand.NewPCG(1, 2))
	want := map[string]string{}
	for i := 0; i < 20000; i++ {
		k := "k" + string(rune('a'+r.IntN(26))) + strings.Repeat("x", r.IntN(40)) + string(rune('0'+i%10))
		switch r.IntN(4) {
		case 0, 1:
			v := strings.Repeat("v", r.IntN(300))
			if err := e.Set(k, []byte(v), 0); err != nil {
				t.Fatal(err)
			}
			want[k] = v
		case 2:
			ok, _ := e.Del(k)
			_, had := want[k]
			if ok != had {
				t.Fatalf("Del(%q) = %v, present %v", k, ok, had)
			}
			delete(want, k)
		case 3:
			v, ok := get(t, e, k)
			if w, had := want[k]; ok != had || v != w {
				t.Fatalf("Get(%q) = %q %v, want %q %v", k, v, ok, w, had)
			}
		}
	}
	st, _ := e.Stats()
	if st.Keys != int64(len(want)) {
		t.Fatalf("Keys %d, want %d", st.Keys, len(want))
	}
	mustVerify(t, e)
}

func TestSetNXAndDelIfEq(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	if ok, err := e.SetNX("lock", []byte("A"), time.Minute); !ok || err != nil {
		t.Fatal("free lock not acquired", err)
	}
	if ok, _ := e.SetNX("lock", []byte("B"), time.Minute); ok {
		t.Fatal("held lock acquired")
	}
	if ok, _ := e.DelIfEq("lock", []byte("B")); ok {
		t.Fatal("released with another token")
	}
	if ok, _ := e.DelIfEq("lock", []byte("AA")); ok {
		t.Fatal("released with a longer token")
	}
	if ok, _ := e.DelIfEq("lock", []byte("A")); !ok {
		t.Fatal("owner could not release")
	}
	if ok, _ := e.SetNX("lock", []byte("B"), time.Minute); !ok {
		t.Fatal("released lock not acquired")
	}
}

func TestExpiredNeverMatches(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	e.SetNX("lock", []byte("A"), time.Millisecond)
	e.Set("ctr", []byte("41"), time.Millisecond)
	time.Sleep(3 * time.Millisecond)
	if ok, _ := e.Exists("lock"); ok {
		t.Fatal("expired key exists")
	}
	if ok, _ := e.ExpireIfEq("lock", []byte("A"), time.Minute); ok {
		t.Fatal("expired lock renewed")
	}
	if d, _ := e.TTLIfEq("lock", []byte("A")); d != kv.TTLMissing {
		t.Fatalf("TTLIfEq of an expired lock: %v", d)
	}
	if ok, _ := e.DelIfEq("lock", []byte("A")); ok {
		t.Fatal("expired lock released")
	}
	if ok, _ := e.SetNX("lock", []byte("B"), 0); !ok {
		t.Fatal("expired lock not acquirable")
	}
	// An expired counter starts again from by, with the new ttl.
	if n, err := e.Incr("ctr", 5, 0); n != 5 || err != nil {
		t.Fatalf("Incr on expired: %d %v", n, err)
	}
	if d, _ := e.TTL("ctr"); d != kv.TTLPersistent {
		t.Fatalf("TTL %v", d)
	}
	st, _ := e.Stats()
	if st.Expired != 2 {
		t.Fatalf("expired %d, want 2", st.Expired)
	}
}

func TestExpireAndTTL(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	e.Set("k", []byte("v"), 0)
	if d, _ := e.TTL("k"); d != kv.TTLPersistent {
		t.Fatal(d)
	}
	if d, _ := e.TTL("nope"); d != kv.TTLMissing {
		t.Fatal(d)
	}
	if ok, _ := e.Expire("k", time.Hour); !ok {
		t.Fatal("Expire false")
	}
	if d, _ := e.TTL("k"); d <= 59*time.Minute || d > time.Hour {
		t.Fatal(d)
	}
	if ok, _ := e.ExpireIfEq("k", []byte("x"), 0); ok {
		t.Fatal("ExpireIfEq with another value")
	}
	if ok, _ := e.ExpireIfEq("k", []byte("v"), 0); !ok {
		t.Fatal("ExpireIfEq false")
	}
	if d, _ := e.TTLIfEq("k", []byte("v")); d != kv.TTLPersistent {
		t.Fatal(d)
	}
	if _, err := e.Expire("k", -1); !errors.Is(err, kv.ErrBadTTL) {
		t.Fatal(err)
	}
	if _, err := e.SetNX("k2", nil, kv.MaxTTL+1); !errors.Is(err, kv.ErrBadTTL) {
		t.Fatal(err)
	}
}

func TestIncr(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	if n, _ := e.Incr("c", 3, time.Hour); n != 3 {
		t.Fatal(n)
	}
	if n, _ := e.Incr("c", -10, 0); n != -7 {
		t.Fatal(n)
	}
	if d, _ := e.TTL("c"); d <= 0 {
		t.Fatalf("Incr lost the expiry: %v", d)
	}
	e.Set("m", []byte(strconvI(math.MaxInt64-1)), 0)
	if n, err := e.Incr("m", 1, 0); n != math.MaxInt64 || err != nil {
		t.Fatal(n, err)
	}
	if _, err := e.Incr("m", 1, 0); !errors.Is(err, kv.ErrOverflow) {
		t.Fatal(err)
	}
	e.Set("m", []byte(strconvI(math.MinInt64)), 0)
	if _, err := e.Incr("m", -1, 0); !errors.Is(err, kv.ErrOverflow) {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "x", "01", "+1", " 1", "1.5", "-0", "99999999999999999999"} {
		e.Set("b", []byte(bad), 0)
		if _, err := e.Incr("b", 1, 0); !errors.Is(err, kv.ErrNotInteger) {
			t.Fatalf("%q: %v", bad, err)
		}
		if v, _ := get(t, e, "b"); v != bad {
			t.Fatalf("refused Incr changed %q to %q", bad, v)
		}
	}
}

func strconvI(n int64) string { return strconv.FormatInt(n, 10) }

func TestLimits(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{MaxValueSize: 100})
	if err := e.Set("", nil, 0); !errors.Is(err, kv.ErrEmptyKey) {
		t.Fatal(err)
	}
	if err := e.Set(strings.Repeat("k", kv.MaxKeySize+1), nil, 0); !errors.Is(err, kv.ErrKeyTooLarge) {
		t.Fatal(err)
	}
	if err := e.Set(strings.Repeat("k", kv.MaxKeySize), nil, 0); err != nil {
		t.Fatal("a key of the maximum size:", err)
	}
	if err := e.Set("k", make([]byte, 101), 0); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Fatal(err)
	}
	if _, _, err := e.Get("", nil); !errors.Is(err, kv.ErrEmptyKey) {
		t.Fatal(err)
	}
}

func TestCompression(t *testing.T) {
	e := newTestEngine(t, 4<<20, Config{CompressMin: 100})
	big := []byte(strings.Repeat("compressible ", 1000))
	if err := e.Set("big", big, 0); err != nil {
		t.Fatal(err)
	}
	st, _ := e.Stats()
	if st.Compressed != 1 || st.BytesUsed >= int64(len(big)) {
		t.Fatalf("not stored compressed: %+v", st)
	}
	if v, _ := get(t, e, "big"); v != string(big) {
		t.Fatal("value changed")
	}
	// Compared against the plain value, not the stored one.
	if ok, _ := e.SetNX("lockbig", big, 0); !ok {
		t.Fatal("not acquired")
	}
	if d, _ := e.TTLIfEq("lockbig", big); d != kv.TTLPersistent {
		t.Fatal(d)
	}
	other := bytes.Clone(big)
	other[500] = 'X'
	if ok, _ := e.DelIfEq("lockbig", other); ok {
		t.Fatal("released with another value")
	}
	if ok, _ := e.DelIfEq("lockbig", big); !ok {
		t.Fatal("not released with its compressed value")
	}
	// Random data does not compress: stored plain.
	rnd := make([]byte, 5000)
	for i := range rnd {
		rnd[i] = byte(rand.Uint32())
	}
	e.Set("rnd", rnd, 0)
	if st, _ := e.Stats(); st.Compressed != 1 {
		t.Fatalf("incompressible value stored compressed: %+v", st)
	}
	if _, err := e.Incr("big", 1, 0); !errors.Is(err, kv.ErrNotInteger) {
		t.Fatal(err)
	}
}

func TestFences(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	f1, ok, err := e.SetNXFenced("l", []byte("A"), time.Minute)
	if !ok || err != nil || f1 < time.Now().Add(-time.Minute).UnixNano() {
		t.Fatalf("fence %d %v %v: not seeded from the wall clock", f1, ok, err)
	}
	f0, ok, _ := e.SetNXFenced("l", []byte("B"), time.Minute)
	if ok || f0 != 0 {
		t.Fatalf("held: %d %v", f0, ok)
	}
	e.DelIfEq("l", []byte("A"))
	f2, ok, _ := e.SetNXFenced("l", []byte("B"), time.Minute)
	if !ok || f2 <= f1 {
		t.Fatalf("second fence %d not above %d", f2, f1)
	}
	if ok, _ := e.Fence("res", f2); !ok {
		t.Fatal("first fence refused")
	}
	if ok, _ := e.Fence("res", f1); ok {
		t.Fatal("stale fence accepted")
	}
	if ok, _ := e.Fence("res", f2); !ok {
		t.Fatal("equal fence refused")
	}
	if s, _ := e.Stats(); s.Fences != 1 || s.Keys != 1 {
		t.Fatalf("stats: %d fences, %d keys; want the fence record counted apart from the lock", s.Fences, s.Keys)
	}
	// A fence record is invisible to user operations.
	if ok, _ := e.Exists("res"); ok {
		t.Fatal("fence record visible")
	}
	e.Flush()
	f3, _, _ := e.SetNXFenced("l", []byte("C"), 0)
	if f3 <= f2 {
		t.Fatal("fence went back after Flush")
	}
	if ok, _ := e.Fence("res", f2); ok {
		t.Fatal("a fence from before Flush accepted after it")
	}
}

func TestFenceNeverGoesBackAcrossSegments(t *testing.T) {
	saved := wallNanos
	defer func() { wallNanos = saved }()
	now := time.Now().UnixNano()
	wallNanos = func() int64 { return now }
	mem, _ := MapAnonymous(1 << 20)
	defer Unmap(mem)
	e, _ := Attach(mem, Config{})
	for range 10 {
		e.SetNXFenced("x", nil, 0)
		e.Del("x")
	}
	last, _, _ := e.SetNXFenced("x", nil, 0)
	// Another process attaches with a clock stepped back: no effect.
	wallNanos = func() int64 { return now - 1e9 }
	e2, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	e2.Del("x")
	if f, _, _ := e2.SetNXFenced("x", nil, 0); f != last+1 {
		t.Fatalf("fence %d after %d", f, last)
	}
	// An attach with the clock ahead raises the counter to it.
	wallNanos = func() int64 { return now + 1e9 }
	e3, err := Attach(mem, Config{})
	if err != nil {
		t.Fatal(err)
	}
	e3.Del("x")
	if f, _, _ := e3.SetNXFenced("x", nil, 0); f != now+1e9+1 {
		t.Fatalf("fence %d not raised to the clock", f)
	}
}

func TestSessionOps(t *testing.T) {
	kvtest.CheckSessionOps(t, newTestEngine(t, 4<<20, Config{}))
}

func TestSessionOpsRefuse(t *testing.T) {
	kvtest.CheckSessionOpsRefuse(t, newTestEngine(t, 4<<20, Config{MaxValueSize: 1024}), make([]byte, 2000))
}

func TestSessionsSerialize(t *testing.T) {
	e := newTestEngine(t, 4<<20, Config{})
	kvtest.CheckSessionsSerialize(t, func() kv.Engine { return e }, 8, 300)
}

func TestTTLs(t *testing.T) {
	e := newTestEngine(t, 4<<20, Config{})
	kvtest.CheckTTLs(t, e, time.Nanosecond, kvtest.TTLInputs(rand.New(rand.NewPCG(3, 4)), 2000))
}
