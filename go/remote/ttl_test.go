package remote

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

func TestMsIsCheckedAndRoundsUp(t *testing.T) {
	cases := []struct {
		ttl  time.Duration
		want int64
	}{
		{0, 0},
		{1, 1}, // a positive ttl never becomes 0, "no expiry"
		{time.Millisecond - 1, 1},
		{time.Millisecond, 1},
		{time.Millisecond + 1, 2},
		{kv.MaxTTL - 1, int64(kv.MaxTTL / time.Millisecond)},
		{kv.MaxTTL, int64(kv.MaxTTL / time.Millisecond)},
	}
	for _, c := range cases {
		if got, err := ms(c.ttl); err != nil || got != c.want {
			t.Errorf("ms(%d) = %d, %v; want %d", c.ttl, got, err, c.want)
		}
	}
	for _, ttl := range []time.Duration{-1, kv.MaxTTL + 1, math.MaxInt64 - time.Millisecond + 2, math.MaxInt64, math.MinInt64} {
		if got, err := ms(ttl); !errors.Is(err, kv.ErrBadTTL) {
			t.Errorf("ms(%d) = %d, %v; want kv.ErrBadTTL", ttl, got, err)
		}
	}
}

// A TTL reply too large for a Duration saturates, never wraps negative.
func TestTTLReplyNeverWraps(t *testing.T) {
	cases := []struct {
		n    int64
		unit time.Duration
		want time.Duration
	}{
		{-2, time.Millisecond, -2},
		{-1, time.Microsecond, -1},
		{0, time.Millisecond, time.Millisecond}, // live, in its last unit
		{0, time.Microsecond, time.Microsecond},
		{5, time.Millisecond, 5 * time.Millisecond},
		{int64(kv.MaxTTL / time.Millisecond), time.Millisecond, kv.MaxTTL},
		{math.MaxInt64 / int64(time.Millisecond), time.Millisecond, math.MaxInt64 / time.Millisecond * time.Millisecond},
		{math.MaxInt64/int64(time.Millisecond) + 1, time.Millisecond, math.MaxInt64},
		{math.MaxInt64/int64(time.Microsecond) + 1, time.Microsecond, math.MaxInt64},
		{math.MaxInt64, time.Millisecond, math.MaxInt64},
	}
	for _, c := range cases {
		if got := ttlReply(c.n, c.unit); got != c.want {
			t.Errorf("ttlReply(%d, %v) = %d, want %d", c.n, c.unit, got, c.want)
		}
	}
}
