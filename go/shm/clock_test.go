package shm

import (
	"math"
	"testing"
	"time"
)

// A coarse reading may trail the precise clock by anything up to
// coarseSlack; whatever it is, the expiry check must say what the precise
// clock says. (Trusting the coarse reading alone would take an expired
// record for live while the reading trails.)
func TestClockCoarseAgreesWithPrecise(t *testing.T) {
	const now = int64(1000 * time.Hour)
	lags := []int64{0, 1, int64(time.Millisecond), int64(5 * time.Millisecond), int64(500 * time.Millisecond), coarseSlack - 1, coarseSlack}
	deadlines := []int64{0, 1, now - coarseSlack, now - 1, now, now + 1, now + int64(time.Millisecond),
		now + coarseSlack - 1, now + coarseSlack, now + coarseSlack + 1, now + int64(30*time.Second), math.MaxInt64}
	for _, lag := range lags {
		for _, d := range deadlines {
			c := clock{now: now, coarse: now - lag}
			if got, want := c.live(d), d == 0 || d > now; got != want {
				t.Errorf("coarse %d ns behind, deadline now%+d: live %v, want %v", lag, d-now, got, want)
			}
		}
	}
}

// Deadlines come from the precise clock, coarse reading or not: a TTL is
// never cut short by a trailing coarse clock. Rounding a coarse deadline up
// by the clock's resolution (4 ms at HZ 250) would not do: the coarse clock
// trails by up to ~4.9 ms on the bench VM, and more when ticks stall.
func TestClockDeadlineIsPrecise(t *testing.T) {
	before := nanotime()
	c := clock{coarse: before - int64(5*time.Millisecond)}
	d := c.deadline(int64(time.Second))
	if d < before+int64(time.Second) {
		t.Fatalf("deadline %d ns before now+ttl", before+int64(time.Second)-d)
	}
}

// DelIfEqCoarse: a lock far from its deadline is released; an expired one
// is not, even when the coarse reading trails the precise clock (as it
// does by up to a tick).
func TestDelIfEqCoarse(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	tok := []byte("0123456789abcdef0123456789abcdef")
	if ok, _ := e.SetNX("far", tok, time.Minute); !ok {
		t.Fatal("not acquired")
	}
	if ok, _ := e.DelIfEqCoarse("far", []byte("other"), nanotime()); ok {
		t.Fatal("released with another token")
	}
	if ok, err := e.DelIfEqCoarse("far", tok, nanotime()); !ok || err != nil {
		t.Fatalf("not released: %v", err)
	}
	if ok, _ := e.Exists("far"); ok {
		t.Fatal("still there after the release")
	}
	if ok, _ := e.SetNX("near", tok, 2*time.Millisecond); !ok {
		t.Fatal("not acquired")
	}
	time.Sleep(5 * time.Millisecond)
	trailing := nanotime() - int64(10*time.Millisecond)
	if ok, _ := e.DelIfEqCoarse("near", tok, trailing); ok {
		t.Fatal("an expired lock was released")
	}
	if st, _ := e.Stats(); st.Expired != 1 {
		t.Fatalf("expired %d, want 1 (the expired lock reclaimed when met)", st.Expired)
	}
}
