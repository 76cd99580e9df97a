package store

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// rateLog reads key's log through Get: its header and its calls.
func rateLog(t *testing.T, s *Store, key string) []int64 {
	t.Helper()
	v, ok, err := s.Value(key)
	if err != nil || !ok {
		t.Fatalf("Value %s: %v, %v", key, ok, err)
	}
	if len(v) < rateHeader || v[0] != rateMagic || v[1] != rateVersion || (len(v)-rateHeader)%8 != 0 {
		t.Fatalf("a rate log reads %q", v[:min(len(v), 20)])
	}
	calls := make([]int64, (len(v)-rateHeader)/8)
	for i := range calls {
		calls[i] = int64(binary.LittleEndian.Uint64(v[rateHeader+8*i:]))
	}
	return calls
}

// The log keeps only the calls inside the window, oldest first, as its
// start moves forward and its buffer grows, is compacted and shrinks; the
// accounting follows the buffer.
func TestRateLog(t *testing.T) {
	s := newTestStore(t, Config{SweepInterval: time.Hour})
	const calls = 2000
	for i := range calls {
		if ok, left, _, err := s.RateLimit("r", kv.MaxRateLimit, time.Hour); err != nil || !ok || left != kv.MaxRateLimit-1-int64(i) {
			t.Fatalf("call %d under a limit of %d: %v, %d left, %v", i, kv.MaxRateLimit, ok, left, err)
		}
	}
	log := rateLog(t, s, "r")
	if len(log) != calls {
		t.Fatalf("%d calls logged of %d", len(log), calls)
	}
	for i := 1; i < len(log); i++ {
		if log[i] < log[i-1] {
			t.Fatalf("call %d at %d before call %d at %d", i, log[i], i-1, log[i-1])
		}
	}
	big := s.Counters().BytesUsed
	// A window (each call's own) that the older half has left: they go
	// from the front, the rest stay as they were, the new call at the end.
	window := time.Duration(nanotime() - log[calls/2])
	if ok, _, _, _ := s.RateLimit("r", kv.MaxRateLimit, window); !ok {
		t.Fatal("refused")
	}
	after := rateLog(t, s, "r")
	kept := len(after) - 1
	if kept >= calls/2 || kept < 0 || !slices.Equal(after[:kept], log[calls-kept:]) || after[kept] < log[calls-1] {
		t.Fatalf("after half the window: %d calls kept of %d, the log's tail %v", kept, calls, after[max(0, kept-2):])
	}
	// Calls join at the end, through compactions and growths.
	for range 3000 {
		s.RateLimit("r", kv.MaxRateLimit, time.Hour)
	}
	if log := rateLog(t, s, "r"); len(log) != kept+3001 || !slices.IsSorted(log) {
		t.Fatalf("%d calls logged, want %d, sorted", len(log), kept+3001)
	}
	// All but the new one leave: the buffer gives most of its room back.
	time.Sleep(2 * time.Millisecond)
	s.RateLimit("r", kv.MaxRateLimit, time.Millisecond)
	if log := rateLog(t, s, "r"); len(log) != 1 {
		t.Fatalf("%d calls logged, want 1", len(log))
	}
	if used := s.Counters().BytesUsed; used >= big/4 {
		t.Fatalf("%d bytes used by a log of one call (%d by %d calls)", used, big, calls)
	}
	if ok, _, retry, _ := s.RateLimit("r", 1, time.Hour); ok || retry <= 0 || retry > time.Hour {
		t.Fatalf("a second call under limit 1: %v, retry after %v", ok, retry)
	}
	s.Del("r")
	if used := s.Counters().BytesUsed; used != 0 {
		t.Fatalf("%d bytes used after Del", used)
	}
}

// A log that would pass the memory limit is kv.ErrFull, never a refusal.
func TestRateLimitFull(t *testing.T) {
	s := newTestStore(t, Config{MemoryLimit: 8 << 10, SweepInterval: time.Hour})
	var err error
	n := 0
	for ; n < kv.MaxRateLimit; n++ {
		var ok bool
		if ok, _, _, err = s.RateLimit("r", kv.MaxRateLimit, time.Hour); err != nil {
			break
		}
		if !ok {
			t.Fatalf("call %d: refused", n)
		}
	}
	if !errors.Is(err, kv.ErrFull) {
		t.Fatalf("%d calls logged in 8 KiB: %v, want kv.ErrFull", n, err)
	}
	if st := s.Counters(); st.BytesUsed > st.BytesLimit {
		t.Fatalf("%d of %d bytes used", st.BytesUsed, st.BytesLimit)
	}
	if calls := rateLog(t, s, "r"); len(calls) != n {
		t.Fatalf("%d calls logged, %d admitted", len(calls), n)
	}
}

// A call on a log with room allocates nothing, admitted or refused.
func TestRateLimitAllocs(t *testing.T) {
	s := newTestStore(t, Config{})
	s.RateLimit("r", 100, time.Hour)
	if n := testing.AllocsPerRun(50, func() { s.RateLimit("r", 100, time.Hour) }); n != 0 {
		t.Errorf("admitted: %v allocations", n)
	}
	if n := testing.AllocsPerRun(50, func() { s.RateLimit("r", 1, time.Hour) }); n != 0 {
		t.Errorf("refused: %v allocations", n)
	}
}
