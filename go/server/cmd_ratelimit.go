package server

import "time"

// The rate-limit family (kv.RateLimiter): an exact sliding-window log.

// EPHPM.RATELIMIT key limit window-ms: [allowed (1 or 0), remaining,
// retry-after in microseconds, rounded up (0 when allowed)].
func cmdRateLimit(s *Server, c *conn, a [][]byte) {
	limit, ok := parseInt(a[2])
	if !ok {
		c.WriteError(errNotInt)
		return
	}
	window, ok := msArg(c, a[3], a)
	if !ok {
		return
	}
	allowed, remaining, retry, err := s.store.RateLimit(key(a[1]), limit, window)
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	c.WriteArray(3)
	if allowed {
		c.WriteInt(1)
	} else {
		c.WriteInt(0)
	}
	c.WriteInt64(remaining)
	c.WriteInt64(int64((retry + time.Microsecond - 1) / time.Microsecond))
}
