package server

import (
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// The EPHPM.* commands: what the extension's server mode needs where Redis
// has no exact equivalent. TTLs in milliseconds; 0 = none.

// EPHPM.SETNXFENCED key token ms: the fence, or 0 when someone holds it.
func cmdSetNXFenced(s *Server, c *conn, a [][]byte) {
	ttl, ok := msArg(c, a[3], a)
	if !ok {
		return
	}
	fence, _, err := s.store.SetNXFenced(key(a[1]), a[2], ttl)
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	c.WriteInt64(fence)
}

// EPHPM.FENCE resource fence: 1 when fence is the highest seen.
func cmdFence(s *Server, c *conn, a [][]byte) {
	fence, ok := parseInt(a[2])
	if !ok {
		c.WriteError(errNotInt)
		return
	}
	replyBool(c)(s.store.Fence(key(a[1]), fence))
}

// EPHPM.PEXPIRE key ms: 0 removes the expiry; 1 for any live key.
func cmdEphpmExpire(s *Server, c *conn, a [][]byte) {
	if ttl, ok := msArg(c, a[2], a); ok {
		replyBool(c)(s.store.Expire(key(a[1]), ttl))
	}
}

// EPHPM.PEXPIREIFEQ key token ms: renew a lease only its owner holds.
func cmdEphpmExpireIfEq(s *Server, c *conn, a [][]byte) {
	if ttl, ok := msArg(c, a[3], a); ok {
		replyBool(c)(s.store.ExpireIfEq(key(a[1]), a[2], ttl))
	}
}

// EPHPM.PTTLIFEQ key token: microseconds left while the value equals token.
func cmdPTTLIfEq(s *Server, c *conn, a [][]byte) {
	ttl, err := s.store.TTLIfEq(key(a[1]), a[2])
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	writeTTL(c, ttl, time.Microsecond)
}

// EPHPM.INCRBY key by ms: the ttl applies when the counter is created.
func cmdEphpmIncrBy(s *Server, c *conn, a [][]byte) {
	by, ok := parseInt(a[2])
	if !ok {
		c.WriteError(errNotInt)
		return
	}
	ttl, ok := msArg(c, a[3], a)
	if !ok {
		return
	}
	n, err := s.store.Incr(key(a[1]), by, ttl)
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	c.WriteInt64(n)
}

// EPHPM.SETEVICTABLE key value ms [NX]: SET of an evictable entry
// (kv.Cache), which the store may evict to make room for any write; every
// other write stores a held entry, never evicted. With NX, as SET's: OK
// when stored, nil when a live entry was there.
func cmdSetEvictable(s *Server, c *conn, a [][]byte) {
	ttl, ok := msArg(c, a[3], a)
	if !ok {
		return
	}
	opt := store.SetOptions{TTL: ttl, Evictable: true}
	switch {
	case len(a) == 5 && strings.EqualFold(string(a[4]), "nx"):
		opt.Cond = store.IfAbsent
	case len(a) > 4:
		c.WriteError(errSyntax)
		return
	}
	res, err := s.store.SetWith(key(a[1]), a[2], opt)
	switch {
	case err != nil:
		writeStoreErr(c, err)
	case !res.Stored:
		c.WriteNull()
	default:
		c.WriteString("OK")
	}
}

// EPHPM.STATS: the store's counters as name/value pairs (kv.StatsFields).
func cmdStats(s *Server, c *conn, a [][]byte) {
	st := s.store.Counters()
	c.WriteArray(2 * len(kv.StatsFields))
	for _, f := range kv.StatsFields {
		c.WriteBulkString(f.Name)
		c.WriteInt64(*f.Of(&st))
	}
}
