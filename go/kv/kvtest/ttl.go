// Package kvtest holds checks every kv.Engine must pass, shared by the
// engines' tests.
package kvtest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// TTLInputs returns the edges of the int64 nanosecond range (around 0, the
// clock units, kv.MaxTTL and the int64 limits, and the TTLs that used to
// wrap) plus n random samples: half uniform over int64, half spread evenly
// over magnitudes so that valid TTLs of every size are drawn too.
func TTLInputs(r *rand.Rand, n int) []time.Duration {
	ttls := []time.Duration{
		math.MinInt64, math.MinInt64 + 1, -kv.MaxTTL, -time.Second, -1,
		0, 1, 2, time.Microsecond - 1, time.Microsecond, time.Millisecond - 1, time.Millisecond,
		time.Millisecond + 1, time.Second, time.Hour,
		kv.MaxTTL - time.Millisecond, kv.MaxTTL - 1, kv.MaxTTL, kv.MaxTTL + 1, kv.MaxTTL + time.Millisecond,
		9223372000 * time.Second, 9223372035 * time.Second, // the TTLs that wrapped now + ttl
		math.MaxInt64 / 2, math.MaxInt64 - time.Millisecond, math.MaxInt64 - 1, math.MaxInt64,
	}
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			ttls = append(ttls, time.Duration(r.Uint64()))
			continue
		}
		bits := r.IntN(63)
		d := time.Duration(int64(1)<<bits | r.Int64N(int64(1)<<bits))
		if r.IntN(8) == 0 {
			d = -d
		}
		ttls = append(ttls, d)
	}
	return ttls
}

// ttlOp is one way to give key a ttl. It prepares the key, then applies
// ttl; untouched reports the key's state when the ttl was refused.
type ttlOp struct {
	name    string
	prepare func(e kv.Engine, key string) error
	apply   func(e kv.Engine, key string, ttl time.Duration) error
	// absentOnRefusal is set when the op creates the key, so a refused ttl
	// leaves none; otherwise the key stays without expiry.
	absentOnRefusal bool
}

func wantTrue(ok bool, err error) error {
	if err == nil && !ok {
		return errors.New("returned false")
	}
	return err
}

var ttlOps = []ttlOp{
	{"Set", del, func(e kv.Engine, k string, ttl time.Duration) error { return e.Set(k, []byte("v"), ttl) }, true},
	{"SetNX", del, func(e kv.Engine, k string, ttl time.Duration) error { return wantTrue(e.SetNX(k, []byte("v"), ttl)) }, true},
	{"SetNXFenced", del, func(e kv.Engine, k string, ttl time.Duration) error {
		_, ok, err := e.SetNXFenced(k, []byte("v"), ttl)
		return wantTrue(ok, err)
	}, true},
	{"Incr", del, func(e kv.Engine, k string, ttl time.Duration) error { _, err := e.Incr(k, 1, ttl); return err }, true},
	{"Expire", persistent, func(e kv.Engine, k string, ttl time.Duration) error { return wantTrue(e.Expire(k, ttl)) }, false},
	{"ExpireIfEq", persistent, func(e kv.Engine, k string, ttl time.Duration) error {
		return wantTrue(e.ExpireIfEq(k, []byte("v"), ttl))
	}, false},
	// The session steps: the lock's ttl, the data's, and a renewal.
	{"LockAndGet", del, func(e kv.Engine, k string, ttl time.Duration) error {
		acquired, _, _, err := kv.LockAndGet(e, k, []byte("v"), ttl, "kvtest:data", nil)
		return wantTrue(acquired, err)
	}, true},
	{"SetIfLocked data", func(e kv.Engine, k string) error {
		if err := e.Set("kvtest:lock", []byte("tok"), 0); err != nil {
			return err
		}
		return del(e, k)
	}, func(e kv.Engine, k string, ttl time.Duration) error {
		return wantTrue(kv.SetIfLocked(e, k, []byte("v"), ttl, "kvtest:lock", []byte("tok"), time.Minute, false))
	}, true},
	{"SetIfLocked lock", persistent, func(e kv.Engine, k string, ttl time.Duration) error {
		return wantTrue(kv.SetIfLocked(e, "kvtest:data", []byte("x"), 0, k, []byte("v"), ttl, false))
	}, false},
}

func del(e kv.Engine, key string) error { _, err := e.Del(key); return err }

func persistent(e kv.Engine, key string) error { return e.Set(key, []byte("v"), 0) }

// CheckTTLs gives a key each ttl through every TTL-taking operation of e.
// Each must either refuse it with kv.ErrBadTTL, exactly when it lies outside
// 0..kv.MaxTTL, leaving the key as it was, or store it: then the key has no
// expiry for 0, and otherwise TTL() is within resolution (the engine's
// clock unit) of ttl less the time the check took, the key present while it
// reports time left, and a positive ttl never became "no expiry".
func CheckTTLs(t testing.TB, e kv.Engine, resolution time.Duration, ttls []time.Duration) {
	t.Helper()
	for _, op := range ttlOps {
		checkTTLsOf(t, e, op, resolution, ttls)
	}
}

// checkTTLsOf is CheckTTLs for one operation.
func checkTTLsOf(t testing.TB, e kv.Engine, op ttlOp, resolution time.Duration, ttls []time.Duration) {
	t.Helper()
	for _, ttl := range ttls {
		if err := checkTTL(e, op, ttl, resolution); err != nil {
			t.Errorf("%s with ttl %d ns (%.9g s): %v", op.name, int64(ttl), ttl.Seconds(), err)
		}
	}
}

func checkTTL(e kv.Engine, op ttlOp, ttl, resolution time.Duration) error {
	const key = "kvtest:ttl"
	if err := op.prepare(e, key); err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	start := time.Now()
	err := op.apply(e, key, ttl)
	// Exists first: a key seen gone stays gone, so TTL() must agree.
	present, xerr := e.Exists(key)
	got, terr := e.TTL(key)
	elapsed := time.Since(start)
	if xerr != nil || terr != nil {
		return fmt.Errorf("Exists: %v, TTL: %v", xerr, terr)
	}
	if ttl < 0 || ttl > kv.MaxTTL {
		switch {
		case !errors.Is(err, kv.ErrBadTTL):
			return fmt.Errorf("want kv.ErrBadTTL, got %v (TTL now %v)", err, got)
		case op.absentOnRefusal && (present || got != kv.TTLMissing):
			return fmt.Errorf("refused, yet the key exists (TTL %v)", got)
		case !op.absentOnRefusal && got != kv.TTLPersistent:
			return fmt.Errorf("refused, yet the key's TTL changed to %v", got)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("want success, got %w", err)
	}
	switch {
	case ttl == 0:
		if got != kv.TTLPersistent || !present {
			return fmt.Errorf("ttl 0 must mean no expiry; TTL %v, present %v", got, present)
		}
	case got == kv.TTLPersistent:
		return errors.New("a positive ttl became no expiry")
	case got == kv.TTLMissing:
		// Gone is right only for a ttl that may have run out already.
		if ttl > elapsed+resolution {
			return fmt.Errorf("the key is gone after %v", elapsed)
		}
	case got > ttl+resolution || got < ttl-elapsed-resolution:
		return fmt.Errorf("TTL %v is not within %v of %v (check took %v)", got, resolution, ttl, elapsed)
	case !present:
		return fmt.Errorf("TTL reports %v left for a key Exists says is gone", got)
	}
	return nil
}
