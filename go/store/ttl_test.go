package store

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv/kvtest"
)

// Over the whole int64 range of ns: a TTL is refused (kv.ErrBadTTL) or
// honoured to the nanosecond, never wrapped into one already passed.
func TestTTLRangeIsHonouredOrRefused(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	s := newTestStore(t, Config{})
	kvtest.CheckTTLs(t, s, time.Nanosecond, kvtest.TTLInputs(rand.New(rand.NewPCG(seed, seed)), 2000))
}

func TestDeadlineSaturates(t *testing.T) {
	cases := []struct{ now, ttl, want int64 }{
		{5, 10, 15},
		{math.MaxInt64 - 10, 10, math.MaxInt64},
		{math.MaxInt64 - 10, 11, math.MaxInt64},
		{math.MaxInt64 - 10, math.MaxInt64, math.MaxInt64},
		{1, math.MaxInt64, math.MaxInt64},
	}
	for _, c := range cases {
		if got := addSat(c.now, c.ttl); got != c.want {
			t.Errorf("addSat(%d, %d) = %d, want %d", c.now, c.ttl, got, c.want)
		}
	}
}
