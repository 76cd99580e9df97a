package store

import (
	"math"
	"testing"
)

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
