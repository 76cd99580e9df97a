package remote

// Expiry and time left (Valkey's expire.c).

import (
	"math"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Expire implements kv.Engine.
func (e *Engine) Expire(key string, ttl time.Duration) (bool, error) {
	px, err := checkKeyTTL(key, ttl)
	if err != nil {
		return false, err
	}
	return e.boolCmd(func(c *client) {
		switch {
		case !c.dialect.redis():
			c.command(3)
			c.arg("EPHPM.PEXPIRE")
		case px > 0:
			c.command(3)
			c.arg("PEXPIRE")
		default:
			c.evalsha(scriptExpire, 1, 1)
		}
		c.arg(key)
		c.argInt(px)
	})
}

// ExpireIfEq implements kv.Engine.
func (e *Engine) ExpireIfEq(key string, token []byte, ttl time.Duration) (bool, error) {
	px, never, err := checkTokenTTL(e, key, token, ttl)
	if never || err != nil {
		return false, err
	}
	var ok bool
	err = e.do(func(c *client) {
		// Always the script on a Valkey or Redis, even one with SET ...
		// IFEQ: a SET is refused over maxmemory (denyoom), PEXPIRE is
		// not, and a holder that cannot renew at a full server loses
		// its lock. The lock's fence record (see lockFenceKey) is
		// renewed with it; the ephpm-kv server keeps its fence itself.
		if c.dialect.redis() {
			c.evalsha(scriptExpireIfEq, 2, 2)
			c.arg(key)
			c.arg(serverLockFenceKey(key))
		} else {
			c.keyCommand(scriptExpireIfEq, "EPHPM.PEXPIREIFEQ", key, 2)
		}
		c.argBytes(token)
		c.argInt(px)
	}, func(_ int, r *reply, _ *client) error {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		ok = r.n == 1
		return nil
	})
	return ok, err
}

// ttlReply turns -2/-1/n-units into a TTL. An n too large for a Duration
// (a server that kept a TTL past kv.MaxTTL, such as one from before the
// maximum) saturates: wrapped, a live key's TTL would read as negative.
// 0 (a live key in its last unit: Redis's PTTL truncates, the ephpm-kv
// server's rounds) is one unit: a live key's TTL is positive, as in
// process, never the 0 that as a TTL means "no expiry".
func ttlReply(n int64, unit time.Duration) time.Duration {
	switch {
	case n < 0:
		return time.Duration(n) // kv.TTLMissing / kv.TTLPersistent
	case n == 0:
		return unit
	case n > math.MaxInt64/int64(unit):
		return math.MaxInt64
	}
	return time.Duration(n) * unit
}

// TTL implements kv.Engine.
func (e *Engine) TTL(key string) (time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	n, err := e.intCmd(keyCmd("PTTL", key))
	if err != nil {
		return 0, err
	}
	return ttlReply(n, time.Millisecond), nil
}

// TTLIfEq implements kv.Engine.
func (e *Engine) TTLIfEq(key string, token []byte) (time.Duration, error) {
	if never, err := checkTokenOp(e, key, token); never || err != nil {
		return kv.TTLMissing, err
	}
	var ttl time.Duration
	err := e.do(func(c *client) {
		if !c.dialect.redis() {
			tokenCmd("EPHPM.PTTLIFEQ", key, token)(c)
			return
		}
		c.evalsha(scriptTTLIfEq, 1, 1)
		c.arg(key)
		c.argBytes(token)
	}, func(_ int, r *reply, c *client) error {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		unit := time.Microsecond
		if c.dialect.redis() {
			unit = time.Millisecond
		}
		ttl = ttlReply(r.n, unit)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return ttl, nil
}
