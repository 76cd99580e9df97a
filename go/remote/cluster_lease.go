package remote

import (
	"fmt"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// kv.Leases and kv.RateLimiter on a Redis Cluster: the single-node
// scripts, each on one key's slot. LeaseAcquire's fence comes from the
// counter of the key's hash tag (clusterFenceCounter), as SetNXFenced's
// does there: fences rise per hash tag, so a lease's fence and a lock's
// compare only under one tag.

var (
	_ kv.Leases      = (*Cluster)(nil)
	_ kv.RateLimiter = (*Cluster)(nil)
)

// LeaseAcquire implements kv.Leases.
func (c *Cluster) LeaseAcquire(key string, token []byte, mode kv.LeaseMode, limit int64, ttl, intent time.Duration) (int64, bool, error) {
	lim, px, ipx, err := checkLease(key, token, mode, limit, ttl, intent)
	if err != nil {
		return 0, false, err
	}
	counter, ok := clusterFenceCounter(key)
	if !ok {
		return 0, false, fmt.Errorf("%w: %q (use a name without '}', or one with a {tag})", ErrNoSlot, key)
	}
	fence, err := c.evalInt(scriptLeaseAcquire, []string{key, counter}, token, int64(mode), lim, px, ipx)
	if err != nil {
		return 0, false, err
	}
	return fence, fence != 0, nil
}

// LeaseRelease implements kv.Leases.
func (c *Cluster) LeaseRelease(key string, token []byte) (bool, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return false, err
	}
	n, err := c.evalInt(scriptLeaseRelease, []string{key}, token)
	return n == 1, err
}

// LeaseRenew implements kv.Leases.
func (c *Cluster) LeaseRenew(key string, token []byte, ttl time.Duration) (bool, error) {
	px, err := checkLeaseRenew(key, token, ttl)
	if err != nil {
		return false, err
	}
	n, err := c.evalInt(scriptLeaseRenew, []string{key}, token, px)
	return n == 1, err
}

// LeaseCount implements kv.Leases.
func (c *Cluster) LeaseCount(key string) (int64, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	return c.evalInt(scriptLeaseCount, []string{key})
}

// LeaseTTL implements kv.Leases.
func (c *Cluster) LeaseTTL(key string, token []byte) (time.Duration, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return 0, err
	}
	n, err := c.evalInt(scriptLeaseTTL, []string{key}, token)
	if err != nil {
		return 0, err
	}
	return c.peer.leaseTTLReply(n)
}

// RateLimit implements kv.RateLimiter.
func (c *Cluster) RateLimit(key string, limit int64, window time.Duration) (bool, int64, time.Duration, error) {
	wms, err := checkRateLimit(key, limit, window)
	if err != nil {
		return false, 0, 0, err
	}
	v, err := c.eval(scriptRateLimit, []string{key}, limit, wms)
	if err != nil {
		return false, 0, 0, err
	}
	var res [3]int64
	a, ok := v.([]any)
	ok = ok && len(a) == len(res)
	for i := 0; ok && i < len(res); i++ {
		res[i], ok = a[i].(int64)
	}
	if !ok {
		return false, 0, 0, c.classify(errProtocolReply{fmt.Sprintf("unexpected reply %v", v)})
	}
	return c.peer.rateResult(res)
}
