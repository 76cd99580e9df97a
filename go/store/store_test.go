package store

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

func newTestStore(t testing.TB, cfg Config) *Store {
	t.Helper()
	s := New(cfg)
	t.Cleanup(s.Close)
	return s
}

// get reads a value through the caller-buffer protocol the C side uses.
func get(t testing.TB, s *Store, key string) (string, bool) {
	t.Helper()
	buf := make([]byte, 8)
	for {
		n, ok, err := s.Get(key, buf)
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		if !ok {
			return "", false
		}
		if n <= len(buf) {
			return string(buf[:n]), true
		}
		buf = make([]byte, n)
	}
}

// must unwraps results whose error the test does not expect; an error
// there fails the test through the panic's report.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSetGetDel(t *testing.T) {
	cases := []struct {
		name, key, value string
	}{
		{"ascii", "k", "v"},
		{"empty value", "k", ""},
		{"binary key and value", "a\x00b", "\x00\xff\x00"},
		{"longer than first buffer", "k", strings.Repeat("x", 100)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t, Config{})
			if _, ok := get(t, s, tc.key); ok {
				t.Fatal("fresh store has the key")
			}
			if err := s.Set(tc.key, []byte(tc.value), 0); err != nil {
				t.Fatal(err)
			}
			if got, ok := get(t, s, tc.key); !ok || got != tc.value {
				t.Fatalf("get = %q, %v; want %q", got, ok, tc.value)
			}
			if !must(s.Exists(tc.key)) {
				t.Fatal("exists = false after set")
			}
			if !must(s.Del(tc.key)) {
				t.Fatal("del of a present key = false")
			}
			if must(s.Del(tc.key)) {
				t.Fatal("second del = true")
			}
			if _, ok := get(t, s, tc.key); ok {
				t.Fatal("key survives del")
			}
		})
	}
}

func TestSetOverwrites(t *testing.T) {
	s := newTestStore(t, Config{})
	noErr(t, s.Set("k", []byte("one"), time.Hour))
	noErr(t, s.Set("k", []byte("two"), 0))
	if got, _ := get(t, s, "k"); got != "two" {
		t.Fatalf("get = %q", got)
	}
	if ttl := must(s.TTL("k")); ttl != kv.TTLPersistent {
		t.Fatalf("set without ttl kept the old ttl: %v", ttl)
	}
}

func TestSetNX(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(*Store)
		want    bool
	}{
		{"absent", func(*Store) {}, true},
		{"live", func(s *Store) { s.Set("lock", []byte("other"), time.Hour) }, false},
		{"live without ttl", func(s *Store) { s.Set("lock", []byte("other"), 0) }, false},
		{"expired", func(s *Store) {
			s.Set("lock", []byte("other"), time.Millisecond)
			time.Sleep(5 * time.Millisecond)
		}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t, Config{SweepInterval: time.Hour})
			tc.prepare(s)
			if got := must(s.SetNX("lock", []byte("mine"), time.Hour)); got != tc.want {
				t.Fatalf("setnx = %v, want %v", got, tc.want)
			}
			want := "other"
			if tc.want {
				want = "mine"
			}
			if got, _ := get(t, s, "lock"); got != want {
				t.Fatalf("holder = %q, want %q", got, want)
			}
		})
	}
}

func TestDelIfEq(t *testing.T) {
	big := strings.Repeat("token-", 1000) // compressible, above CompressMin
	cases := []struct {
		name        string
		stored      string
		ttl         time.Duration
		sleep       time.Duration
		token       string
		wantDeleted bool
	}{
		{"match", "tok", 0, 0, "tok", true},
		{"mismatch", "tok", 0, 0, "other", false},
		{"prefix is not a match", "token", 0, 0, "tok", false},
		{"expired never matches", "tok", time.Millisecond, 5 * time.Millisecond, "tok", false},
		{"compressed value matches its plain token", big, 0, 0, big, true},
		{"compressed value with same length differs", big, 0, 0, strings.Replace(big, "t", "T", 1), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t, Config{SweepInterval: time.Hour})
			noErr(t, s.Set("k", []byte(tc.stored), tc.ttl))
			time.Sleep(tc.sleep)
			if got := must(s.DelIfEq("k", []byte(tc.token))); got != tc.wantDeleted {
				t.Fatalf("del_if_eq = %v, want %v", got, tc.wantDeleted)
			}
			_, present := get(t, s, "k")
			if wantPresent := !tc.wantDeleted && tc.sleep == 0; present != wantPresent {
				t.Fatalf("present = %v, want %v", present, wantPresent)
			}
		})
	}
	t.Run("missing", func(t *testing.T) {
		s := newTestStore(t, Config{})
		if must(s.DelIfEq("nope", []byte("x"))) {
			t.Fatal("del_if_eq on a missing key = true")
		}
	})
}

// The seeds' scenario: A overruns its lease, B acquires, A releases, C tries.
func TestLockScenarioABC(t *testing.T) {
	const lease = 50 * time.Millisecond
	cases := []struct {
		release      string
		wantARelease bool
		wantCGetsIn  bool
		wantHolder   string
	}{
		{"del", true, true, "C"},
		{"del_if_eq", false, false, "B"},
	}
	for _, tc := range cases {
		t.Run(tc.release, func(t *testing.T) {
			s := newTestStore(t, Config{SweepInterval: time.Hour})
			if !must(s.SetNX("lock", []byte("A"), lease)) {
				t.Fatal("A could not acquire a free lock")
			}
			time.Sleep(lease + 20*time.Millisecond)
			if !must(s.SetNX("lock", []byte("B"), time.Hour)) {
				t.Fatal("B could not acquire the expired lock")
			}
			var released bool
			if tc.release == "del" {
				released = must(s.Del("lock"))
			} else {
				released = must(s.DelIfEq("lock", []byte("A")))
			}
			if released != tc.wantARelease {
				t.Fatalf("A's release = %v, want %v", released, tc.wantARelease)
			}
			if got := must(s.SetNX("lock", []byte("C"), time.Hour)); got != tc.wantCGetsIn {
				t.Fatalf("C acquires = %v, want %v", got, tc.wantCGetsIn)
			}
			if holder, _ := get(t, s, "lock"); holder != tc.wantHolder {
				t.Fatalf("holder = %q, want %q", holder, tc.wantHolder)
			}
		})
	}
}

func TestTTLAndExpire(t *testing.T) {
	s := newTestStore(t, Config{SweepInterval: time.Hour})
	if got := must(s.TTL("k")); got != kv.TTLMissing {
		t.Fatalf("ttl of missing = %v", got)
	}
	noErr(t, s.Set("k", []byte("v"), 0))
	if got := must(s.TTL("k")); got != kv.TTLPersistent {
		t.Fatalf("ttl of persistent = %v", got)
	}
	if !must(s.Expire("k", 10*time.Second)) {
		t.Fatal("expire on a live key = false")
	}
	if got := must(s.TTL("k")); got <= 9*time.Second || got > 10*time.Second {
		t.Fatalf("ttl after expire(10s) = %v", got)
	}
	if !must(s.Expire("k", 0)) {
		t.Fatal("expire(0) = false")
	}
	if got := must(s.TTL("k")); got != kv.TTLPersistent {
		t.Fatalf("expire(0) should remove the expiry, ttl = %v", got)
	}
	if must(s.Expire("missing", time.Second)) {
		t.Fatal("expire on a missing key = true")
	}
	noErr(t, s.Set("short", []byte("v"), 5*time.Millisecond))
	time.Sleep(10 * time.Millisecond)
	for name, got := range map[string]bool{
		"exists": must(s.Exists("short")),
		"expire": must(s.Expire("short", time.Hour)),
	} {
		if got {
			t.Errorf("%s sees an expired entry", name)
		}
	}
	if got := must(s.TTL("short")); got != kv.TTLMissing {
		t.Fatalf("ttl of expired = %v", got)
	}
}

func TestExpireIfEq(t *testing.T) {
	cases := []struct {
		name  string
		token string
		sleep time.Duration
		want  bool
	}{
		{"owner renews", "tok", 0, true},
		{"stranger cannot", "other", 0, false},
		{"expired lease cannot be revived", "tok", 40 * time.Millisecond, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t, Config{SweepInterval: time.Hour})
			noErr(t, s.Set("lock", []byte("tok"), 20*time.Millisecond))
			time.Sleep(tc.sleep)
			if got := must(s.ExpireIfEq("lock", []byte(tc.token), time.Hour)); got != tc.want {
				t.Fatalf("expire_if_eq = %v, want %v", got, tc.want)
			}
			time.Sleep(30 * time.Millisecond)
			if live := must(s.Exists("lock")); live != tc.want {
				t.Fatalf("lock live after original ttl = %v, want %v", live, tc.want)
			}
		})
	}
}

func TestIncr(t *testing.T) {
	cases := []struct {
		name    string
		initial string // "" = absent
		by      int64
		want    int64
		wantErr error
	}{
		{"creates at zero", "", 1, 1, nil},
		{"adds", "41", 1, 42, nil},
		{"negative", "5", -7, -2, nil},
		{"from negative", "-3", 3, 0, nil},
		{"not a number", "abc", 1, 0, kv.ErrNotInteger},
		{"plus sign", "+1", 1, 0, kv.ErrNotInteger},
		{"leading zero", "01", 1, 0, kv.ErrNotInteger},
		{"space", " 1", 1, 0, kv.ErrNotInteger},
		{"float", "1.5", 1, 0, kv.ErrNotInteger},
		{"overflow", "9223372036854775807", 1, 0, kv.ErrOverflow},
		{"underflow", "-9223372036854775808", -1, 0, kv.ErrOverflow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t, Config{})
			if tc.initial != "" {
				noErr(t, s.Set("n", []byte(tc.initial), 0))
			}
			got, err := s.Incr("n", tc.by, 0)
			if !errors.Is(err, tc.wantErr) || (err == nil && got != tc.want) {
				t.Fatalf("incr = %d, %v; want %d, %v", got, err, tc.want, tc.wantErr)
			}
			if tc.wantErr != nil {
				if v, _ := get(t, s, "n"); v != tc.initial {
					t.Fatalf("failed incr changed the value to %q", v)
				}
			}
		})
	}
}

func TestIncrTTL(t *testing.T) {
	s := newTestStore(t, Config{SweepInterval: time.Hour})
	must(s.Incr("window", 1, 30*time.Millisecond))
	must(s.Incr("window", 1, time.Hour)) // ttl applies only on creation
	if ttl := must(s.TTL("window")); ttl > 30*time.Millisecond {
		t.Fatalf("incr on an existing counter changed its ttl to %v", ttl)
	}
	time.Sleep(40 * time.Millisecond)
	if got := must(s.Incr("window", 1, 0)); got != 1 {
		t.Fatalf("incr after the window expired = %d, want a fresh 1", got)
	}
}

func TestConcurrentIncr(t *testing.T) {
	s := newTestStore(t, Config{})
	const workers, each = 16, 500
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				if _, err := s.Incr("n", 1, 0); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if v, _ := get(t, s, "n"); v != fmt.Sprint(workers*each) {
		t.Fatalf("counter = %s, want %d", v, workers*each)
	}
}

func TestBadInput(t *testing.T) {
	s := newTestStore(t, Config{MaxValueSize: 16})
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"empty key get", second(s.Get("", nil)), kv.ErrEmptyKey},
		{"empty key set", s.Set("", []byte("v"), 0), kv.ErrEmptyKey},
		{"huge key", s.Set(strings.Repeat("k", kv.MaxKeySize+1), nil, 0), kv.ErrKeyTooLarge},
		{"largest key is fine", s.Set(strings.Repeat("k", kv.MaxKeySize), nil, 0), nil},
		{"value too large", s.Set("k", make([]byte, 17), 0), kv.ErrValueTooLarge},
		{"negative ttl", s.Set("k", nil, -1), kv.ErrBadTTL},
		{"negative ttl setnx", errOf(s.SetNX("k", nil, -1)), kv.ErrBadTTL},
		{"negative ttl expire", errOf(s.Expire("k", -1)), kv.ErrBadTTL},
	}
	for _, tc := range cases {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if ok, _ := s.Exists("k"); ok {
		t.Fatal("a refused write stored something")
	}
}

func second[A, B any](_ A, _ B, err error) error { return err }
func errOf[A any](_ A, err error) error          { return err }

func TestCompression(t *testing.T) {
	compressible := bytes.Repeat([]byte("session-data;"), 500)
	random := make([]byte, 8192)
	rand.Read(random)
	cases := []struct {
		name           string
		cfg            Config
		value          []byte
		wantCompressed int64
	}{
		{"compressible", Config{}, compressible, 1},
		{"incompressible kept plain", Config{}, random, 0},
		{"below threshold", Config{CompressMin: 1 << 20}, compressible, 0},
		{"disabled", Config{CompressMin: -1}, compressible, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t, tc.cfg)
			noErr(t, s.Set("k", tc.value, 0))
			st := s.Counters()
			if st.Compressed != tc.wantCompressed {
				t.Fatalf("compressed entries = %d, want %d", st.Compressed, tc.wantCompressed)
			}
			if tc.wantCompressed == 1 && st.BytesUsed >= int64(len(tc.value)) {
				t.Fatalf("compressed entry accounts %d bytes for a %d-byte value", st.BytesUsed, len(tc.value))
			}
			if got, _ := get(t, s, "k"); got != string(tc.value) {
				t.Fatal("round trip changed the value")
			}
			if !must(s.DelIfEq("k", tc.value)) {
				t.Fatal("del_if_eq with the plain value did not match")
			}
			if st := s.Counters(); st.Compressed != 0 || st.BytesUsed != 0 {
				t.Fatalf("after delete: %+v", st)
			}
		})
	}
}

func TestMemoryLimit(t *testing.T) {
	value := make([]byte, 1000)
	s := newTestStore(t, Config{MemoryLimit: 10_000, CompressMin: -1, SweepInterval: time.Hour})
	var stored int
	for i := 0; ; i++ {
		err := s.Set(fmt.Sprint("k", i), value, 0)
		if errors.Is(err, kv.ErrFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		stored++
	}
	if stored == 0 || stored >= 10 {
		t.Fatalf("stored %d 1000-byte values under a 10000-byte limit", stored)
	}
	st := s.Counters()
	if st.BytesUsed > st.BytesLimit || st.Rejected != 1 {
		t.Fatalf("stats after filling: %+v", st)
	}
	// A live lock is never evicted to make room: setnx on a full store errors.
	if _, err := s.SetNX("lock", value, time.Hour); !errors.Is(err, kv.ErrFull) {
		t.Fatalf("setnx on a full store: %v", err)
	}
	for i := range stored {
		if ok, _ := s.Exists(fmt.Sprint("k", i)); !ok {
			t.Fatalf("k%d was evicted", i)
		}
	}
	// Expired entries are reclaimed before a write is refused.
	noErr(t, s.Flush())
	for i := range stored {
		noErr(t, s.Set(fmt.Sprint("short", i), value, time.Millisecond))
	}
	time.Sleep(5 * time.Millisecond)
	if err := s.Set("fresh", value, 0); err != nil {
		t.Fatalf("write after entries expired: %v", err)
	}
	if st := s.Counters(); st.Expired == 0 || st.BytesUsed > st.BytesLimit {
		t.Fatalf("stats after reclaim: %+v", st)
	}
}

func TestSweepReclaimsUnreadKeys(t *testing.T) {
	s := newTestStore(t, Config{SweepInterval: 5 * time.Millisecond, SweepBatch: 16})
	for i := range 200 {
		noErr(t, s.Set(fmt.Sprint("k", i), []byte("v"), 10*time.Millisecond))
	}
	noErr(t, s.Set("keep", []byte("v"), 0))
	deadline := time.Now().Add(5 * time.Second)
	for s.Counters().Keys > 1 {
		if time.Now().After(deadline) {
			t.Fatalf("sweep left %d keys", s.Counters().Keys)
		}
		time.Sleep(5 * time.Millisecond)
	}
	st := s.Counters()
	if st.Expired != 200 || st.BytesUsed != (&item{data: []byte("v")}).mem("keep") {
		t.Fatalf("after sweep: %+v", st)
	}
}

func TestFlush(t *testing.T) {
	s := newTestStore(t, Config{})
	for i := range 100 {
		noErr(t, s.Set(fmt.Sprint(i), bytes.Repeat([]byte("ab"), 1000), 0))
	}
	noErr(t, s.Flush())
	if st := s.Counters(); st.Keys != 0 || st.BytesUsed != 0 || st.Compressed != 0 {
		t.Fatalf("after flush: %+v", st)
	}
}

// 32 goroutines race setnx on one key each round: exactly one wins.
func TestSetNXOneWinnerPerRound(t *testing.T) {
	s := newTestStore(t, Config{})
	const racers, rounds = 32, 300
	for round := range rounds {
		var winners atomic.Int32
		var start, done sync.WaitGroup
		start.Add(1)
		for i := range racers {
			done.Go(func() {
				start.Wait()
				if ok, err := s.SetNX("lock", fmt.Appendf(nil, "%d", i), time.Minute); err != nil {
					t.Error(err)
				} else if ok {
					winners.Add(1)
				}
			})
		}
		start.Done()
		done.Wait()
		if n := winners.Load(); n != 1 {
			t.Fatalf("round %d: %d winners", round, n)
		}
		must(s.Del("lock"))
	}
}

// Many goroutines acquire and release one lock with tokens: the holder is
// alone in its critical section, and every release finds its own token.
func TestLockChurnMutualExclusion(t *testing.T) {
	s := newTestStore(t, Config{})
	const workers, each = 16, 300
	var inside atomic.Int32
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			token := fmt.Appendf(nil, "w%d", w)
			for n := 0; n < each; {
				ok, err := s.SetNX("lock", token, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					runtime.Gosched() // two cores: let the holder finish
					continue
				}
				if inside.Add(1) != 1 {
					t.Error("two holders at once")
				}
				inside.Add(-1)
				if released, _ := s.DelIfEq("lock", token); !released {
					t.Error("holder could not release its own lock")
				}
				n++
			}
		})
	}
	wg.Wait()
	if st := s.Counters(); st.Keys != 0 || st.BytesUsed != 0 {
		t.Fatalf("after churn: %+v", st)
	}
}
