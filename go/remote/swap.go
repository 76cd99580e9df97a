package remote

// Compare-and-swap (kv.Engine.SetIfEq): SET ... IFEQ on an ephpm-kv server, a
// script on a Redis or a cluster.

import (
	"time"
)

// KEYS: key; ARGV: value, old, ms ("0": no expiry). 1 when stored.
var scriptSetIfEq = newScript(luaSet + `
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return 0 end
set(KEYS[1], ARGV[1], ARGV[3])
return 1`)

// SetIfEq implements kv.Engine.
func (e *Engine) SetIfEq(key string, value, old []byte, ttl time.Duration) (bool, error) {
	px, err := checkWrite(e, key, value, ttl)
	if err != nil {
		return false, err
	}
	if never, err := checkTokenOp(e, key, old); never || err != nil {
		return false, err
	}
	var ok bool
	err = e.do(func(c *client) {
		if c.dialect.redis() {
			c.evalsha(scriptSetIfEq, 1, 3)
			c.arg(key)
			c.argBytes(value)
			c.argBytes(old)
			c.argInt(px)
			return
		}
		n := 5
		if px > 0 {
			n += 2
		}
		c.command(n)
		c.arg("SET")
		c.arg(key)
		c.argBytes(value)
		c.arg("IFEQ")
		c.argBytes(old)
		if px > 0 {
			c.arg("PX")
			c.argInt(px)
		}
	}, func(_ int, r *reply, _ *client) error {
		switch {
		case r.kind == '+':
			ok = true
		case r.kind == ':':
			ok = r.n == 1
		case !r.isNil():
			return errUnexpected(r)
		}
		return nil
	})
	return ok, err
}

// SetIfEq implements kv.Engine.
func (c *Cluster) SetIfEq(key string, value, old []byte, ttl time.Duration) (bool, error) {
	px, err := checkWrite(c, key, value, ttl)
	if err != nil {
		return false, err
	}
	if never, err := checkTokenOp(c, key, old); never || err != nil {
		return false, err
	}
	n, err := c.evalInt(scriptSetIfEq, []string{key}, value, old, px)
	return n == 1, err
}
