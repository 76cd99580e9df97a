package remote

import (
	"fmt"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// kv.Leases and kv.RateLimiter: one round trip each, the EPHPM.LEASE* and
// EPHPM.RATELIMIT commands on an ephpm-kv server, the scripts of
// scripts.go on a Valkey or Redis. Arguments are checked before anything
// is sent; times travel in milliseconds, rounded up (a lease never ends
// sooner than asked, a window is never shorter), retry-after comes back in
// microseconds.

var (
	_ kv.Leases      = (*Engine)(nil)
	_ kv.RateLimiter = (*Engine)(nil)
)

// leaseModes are the ephpm-kv server's words for kv.LeaseMode.
var leaseModes = [...]string{kv.LeaseShared: "SHARED", kv.LeaseExclusive: "EXCLUSIVE", kv.LeasePermit: "PERMIT"}

// LeaseAcquire implements kv.Leases.
func (e *Engine) LeaseAcquire(key string, token []byte, mode kv.LeaseMode, limit int64, ttl, intent time.Duration) (int64, bool, error) {
	lim, px, ipx, err := checkLease(key, token, mode, limit, ttl, intent)
	if err != nil {
		return 0, false, err
	}
	return e.fencedCmd(func(c *client) {
		if c.dialect.redis() {
			c.evalsha(scriptLeaseAcquire, 2, 5)
			c.arg(key)
			c.arg(fenceCounterKey)
			c.argBytes(token)
			c.argInt(int64(mode))
		} else {
			c.command(7)
			c.arg("EPHPM.LEASEACQUIRE")
			c.arg(key)
			c.argBytes(token)
			c.arg(leaseModes[mode])
		}
		c.argInt(lim)
		c.argInt(px)
		c.argInt(ipx)
	})
}

// LeaseRelease implements kv.Leases.
func (e *Engine) LeaseRelease(key string, token []byte) (bool, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return false, err
	}
	return e.boolCmd(func(c *client) {
		c.keyCommand(scriptLeaseRelease, "EPHPM.LEASERELEASE", key, 1)
		c.argBytes(token)
	})
}

// LeaseRenew implements kv.Leases.
func (e *Engine) LeaseRenew(key string, token []byte, ttl time.Duration) (bool, error) {
	px, err := checkLeaseRenew(key, token, ttl)
	if err != nil {
		return false, err
	}
	return e.boolCmd(func(c *client) {
		c.keyCommand(scriptLeaseRenew, "EPHPM.LEASERENEW", key, 2)
		c.argBytes(token)
		c.argInt(px)
	})
}

// LeaseCount implements kv.Leases.
func (e *Engine) LeaseCount(key string) (int64, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	return e.intCmd(func(c *client) { c.keyCommand(scriptLeaseCount, "EPHPM.LEASECOUNT", key, 0) })
}

// LeaseTTL implements kv.Leases: a read, in microseconds on the wire.
func (e *Engine) LeaseTTL(key string, token []byte) (time.Duration, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return 0, err
	}
	n, err := e.intCmd(func(c *client) {
		c.keyCommand(scriptLeaseTTL, "EPHPM.LEASETTL", key, 1)
		c.argBytes(token)
	})
	if err != nil {
		return 0, err
	}
	return e.leaseTTLReply(n)
}

// leaseTTLReply checks a LeaseTTL reply in microseconds: -2 or a time left
// no longer than a lease can be (a server that does not keep the
// contract, not a number to pass on).
func (e *peer) leaseTTLReply(n int64) (time.Duration, error) {
	if n != int64(kv.TTLMissing) && (n < 0 || n > int64(kv.MaxTTL/time.Microsecond)) {
		return 0, e.classify(errProtocolReply{fmt.Sprintf("lease ttl reply %d out of range", n)})
	}
	return ttlReply(n, time.Microsecond), nil
}

// RateLimit implements kv.RateLimiter.
func (e *Engine) RateLimit(key string, limit int64, window time.Duration) (bool, int64, time.Duration, error) {
	wms, err := checkRateLimit(key, limit, window)
	if err != nil {
		return false, 0, 0, err
	}
	var res [3]int64
	err = e.do(func(c *client) {
		c.keyCommand(scriptRateLimit, "EPHPM.RATELIMIT", key, 2)
		c.argInt(limit)
		c.argInt(wms)
	}, func(_ int, r *reply, c *client) error {
		return readRateReply(r, c, &res)
	})
	if err != nil {
		return false, 0, 0, err
	}
	return e.rateResult(res)
}

// readRateReply reads EPHPM.RATELIMIT's (and the script's) reply: an array
// of allowed (1 or 0), remaining and retry-after in microseconds.
func readRateReply(r *reply, c *client, res *[3]int64) error {
	if r.kind != '*' || r.n != 3 {
		if err := discard(c, r); err != nil {
			return err
		}
		return errUnexpected(r)
	}
	for i := range res {
		el, err := c.read()
		if err != nil {
			return err
		}
		if el.kind != ':' {
			if err := discard(c, &el); err != nil {
				return err
			}
			return errUnexpected(&el)
		}
		res[i] = el.n
	}
	return nil
}

// rateResult checks a rate-limit reply's numbers: a reply out of range is
// a server that does not keep the contract, not a number to pass on.
func (e *peer) rateResult(res [3]int64) (bool, int64, time.Duration, error) {
	allowed, remaining, retry := res[0], res[1], res[2]
	if allowed < 0 || allowed > 1 || remaining < 0 || remaining >= kv.MaxRateLimit ||
		retry < 0 || retry > int64(kv.MaxTTL/time.Microsecond) || (allowed == 1 && retry != 0) {
		return false, 0, 0, e.classify(errProtocolReply{fmt.Sprintf("rate-limit reply %d %d %d out of range", allowed, remaining, retry)})
	}
	return allowed == 1, remaining, time.Duration(retry) * time.Microsecond, nil
}
