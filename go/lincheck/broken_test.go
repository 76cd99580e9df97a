package lincheck

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// Broken engines: each wraps a correct one and gets one thing wrong, the
// way real lock code does. The checker must catch each on a real
// concurrent workload.

// blindRelease releases with a plain DEL: a holder past its TTL deletes the
// next holder's lock.
type blindRelease struct{ kv.Engine }

func (b blindRelease) DelIfEq(key string, _ []byte) (bool, error) { return b.Del(key) }

// getThenSet acquires with a GET and then a SET: two callers can both see
// the key absent.
type getThenSet struct {
	kv.Engine
	fences *atomic.Int64
}

func (g getThenSet) SetNXFenced(key string, v []byte, ttl time.Duration) (int64, bool, error) {
	if _, found, err := g.Get(key, nil); found || err != nil {
		return 0, false, err
	}
	runtime.Gosched() // the round trip between the two calls
	if err := g.Set(key, v, ttl); err != nil {
		return 0, false, err
	}
	return g.fences.Add(1), true, nil
}

// ownFences counts fences per connection (as a per-process store does):
// another client's later lock can get a smaller fence.
type ownFences struct {
	kv.Engine
	n int64
}

func (o *ownFences) SetNXFenced(key string, v []byte, ttl time.Duration) (int64, bool, error) {
	_, ok, err := o.Engine.SetNXFenced(key, v, ttl)
	if ok {
		o.n++
	}
	return o.n, ok, err
}

// earlyExpiry stores a quarter of the TTL asked for.
type earlyExpiry struct{ kv.Engine }

func (e earlyExpiry) SetNXFenced(key string, v []byte, ttl time.Duration) (int64, bool, error) {
	return e.Engine.SetNXFenced(key, v, ttl/4)
}

// SetIfEq too: a campaign's second step (the term's stamp) sets the ttl.
func (e earlyExpiry) SetIfEq(key string, v, old []byte, ttl time.Duration) (bool, error) {
	return e.Engine.SetIfEq(key, v, old, ttl/4)
}

func runInProcess(t *testing.T, w Workload, wrap func(kv.Engine) kv.Engine) Result {
	t.Helper()
	s := store.New(store.Config{})
	t.Cleanup(func() { s.Close() })
	rec := NewRecorder()
	err := Run(context.Background(), func(int) (kv.Engine, error) { return wrap(s), nil }, w, rec)
	if err != nil {
		t.Fatal(err)
	}
	r := Check(Config{Slack: time.Millisecond, Guarantees: All}, rec.History(), time.Minute)
	t.Logf("%s", r)
	if r.Granted < 20 {
		t.Fatalf("only %d grants: the workload did not run", r.Granted)
	}
	return r
}

// Short TTLs with holders that overrun them: lock handover by expiry, the
// case where a release that does not compare does its harm.
var expiring = Workload{Clients: 6, Duration: 800 * time.Millisecond, TTL: 20 * time.Millisecond,
	Hold: 5 * time.Millisecond, Overrun: 0.2}

func TestInProcessStoreIsLinearizable(t *testing.T) {
	leaderExpiring := expiring
	leaderExpiring.Leader = true
	for name, w := range map[string]Workload{
		"long TTLs":          {Clients: 8, Duration: 800 * time.Millisecond, Hold: time.Millisecond},
		"expiring":           expiring,
		"leaders, long TTLs": {Clients: 8, Duration: 800 * time.Millisecond, Hold: time.Millisecond, Leader: true},
		"leaders, expiring":  leaderExpiring,
	} {
		t.Run(name, func(t *testing.T) {
			if r := runInProcess(t, w, func(e kv.Engine) kv.Engine { return e }); !r.Linearizable() {
				t.Errorf("the in-process store: %v", r)
			}
		})
	}
}

func leader(w Workload) Workload {
	w.Leader = true
	return w
}

func TestCheckerCatchesBrokenEngines(t *testing.T) {
	longTTL := Workload{Clients: 8, Duration: 800 * time.Millisecond, Hold: time.Millisecond}
	for _, c := range []struct {
		name string
		w    Workload
		wrap func(kv.Engine) kv.Engine
	}{
		{"release with DEL", expiring, func(e kv.Engine) kv.Engine { return blindRelease{e} }},
		{"acquire with GET then SET", longTTL, func() func(kv.Engine) kv.Engine {
			var fences atomic.Int64
			return func(e kv.Engine) kv.Engine { return getThenSet{e, &fences} }
		}()},
		{"fences per connection", longTTL, func(e kv.Engine) kv.Engine { return &ownFences{Engine: e} }},
		{"expiry at a quarter of the TTL", expiring, func(e kv.Engine) kv.Engine { return earlyExpiry{e} }},
		{"leaders: resign with DEL", leader(expiring), func(e kv.Engine) kv.Engine { return blindRelease{e} }},
		{"leaders: campaign with GET then SET", leader(longTTL), func() func(kv.Engine) kv.Engine {
			var fences atomic.Int64
			return func(e kv.Engine) kv.Engine { return getThenSet{e, &fences} }
		}()},
		{"leaders: expiry at a quarter of the TTL", leader(expiring), func(e kv.Engine) kv.Engine { return earlyExpiry{e} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := runInProcess(t, c.w, c.wrap); r.Linearizable() {
				t.Errorf("a broken engine passed: %v", r)
			}
		})
	}
}
