package store

import (
	"math"
	"testing"
	"time"
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

// Every read of an expired entry reclaims it, as Get does: the server's GET
// reads through View, and a server's keys/expired counters must agree with
// the extension's in-process ones (stats.phpt in the suite's server run).
func TestReadersReclaimExpired(t *testing.T) {
	readers := map[string]func(s *Store) bool{
		"Get":   func(s *Store) bool { _, ok, _ := s.Get("short", make([]byte, 8)); return ok },
		"View":  func(s *Store) bool { ok, _ := s.View("short", func([]byte) {}); return ok },
		"Value": func(s *Store) bool { _, ok, _ := s.Value("short"); return ok },
	}
	for name, read := range readers {
		s := newTestStore(t, Config{})
		noErr(t, s.Set("short", []byte("v"), 5*time.Millisecond))
		time.Sleep(10 * time.Millisecond)
		if read(s) {
			t.Errorf("%s sees an expired entry", name)
		}
		if c := s.Counters(); c.Keys != 0 || c.Expired != 1 || c.BytesUsed != 0 {
			t.Errorf("after %s of an expired entry: keys %d, expired %d, bytes used %d; want 0, 1, 0", name, c.Keys, c.Expired, c.BytesUsed)
		}
	}
}
