package server

import (
	"math"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Expiry: EXPIRE, PEXPIRE, PERSIST, TTL, PTTL, and the checked conversion
// of every RESP time form to a TTL. A time is honoured to the millisecond
// or refused with "invalid expire time" (never wrapped, never shortened):
// no TTL may exceed kv.MaxTTL.

// unitOf is the unit of a time form or command, from its first letter:
// milliseconds for the P ones (PX, PXAT, PEXPIRE, PTTL), else seconds.
func unitOf(first byte) time.Duration {
	if first|0x20 == 'p' {
		return time.Millisecond
	}
	return time.Second
}

// relTTL converts n units from now; false when n is not in 1..MaxTTL.
func relTTL(n int64, unit time.Duration) (time.Duration, bool) {
	if n <= 0 || n > int64(kv.MaxTTL/unit) {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// setTTLArg parses the time of SET's EX, PX, EXAT, PXAT (and of SETEX,
// PSETEX) and answers the error itself when it returns false. A time
// already past gives a negative TTL: the key is to be removed.
func setTTLArg(c *conn, b []byte, form, cmd string) (time.Duration, bool) {
	n, ok := parseInt(b)
	if !ok {
		c.WriteError(errNotInt)
		return 0, false
	}
	unit := unitOf(form[0])
	if len(form) == 2 { // EX, PX: relative
		ttl, ok := relTTL(n, unit)
		if !ok {
			c.WriteError(errInvalidExpire(cmd))
		}
		return ttl, ok
	}
	// EXAT, PXAT: a Unix time
	if n <= 0 || n > math.MaxInt64/int64(unit) {
		c.WriteError(errInvalidExpire(cmd))
		return 0, false
	}
	ttl := time.Duration(n*int64(unit) - time.Now().UnixNano())
	if ttl > kv.MaxTTL {
		c.WriteError(errInvalidExpire(cmd))
		return 0, false
	}
	if ttl <= 0 {
		return -1, true // already past
	}
	return ttl, true
}

// EXPIRE/PEXPIRE key n: a non-positive n deletes the key, as in Redis; one
// beyond MaxTTL is refused and leaves the key as it was.
func cmdExpire(s *Server, c *conn, a [][]byte) {
	n, ok := parseInt(a[2])
	if !ok {
		c.WriteError(errNotInt)
		return
	}
	if n <= 0 {
		replyBool(c)(s.store.Del(key(a[1])))
		return
	}
	unit := unitOf(a[0][0])
	ttl, ok := relTTL(n, unit)
	if !ok {
		c.WriteError(errInvalidExpire(cmdName(a)))
		return
	}
	replyBool(c)(s.store.Expire(key(a[1]), ttl))
}

func cmdPersist(s *Server, c *conn, a [][]byte) { replyBool(c)(s.store.Persist(key(a[1]))) }

// TTL, PTTL
func cmdTTL(s *Server, c *conn, a [][]byte) {
	ttl, err := s.store.TTL(key(a[1]))
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	unit := unitOf(a[0][0])
	writeTTL(c, ttl, unit)
}

// writeTTL replies -2, -1 or the time left in unit, rounded as Redis does.
func writeTTL(c *conn, ttl time.Duration, unit time.Duration) {
	switch ttl {
	case kv.TTLMissing, kv.TTLPersistent:
		c.WriteInt64(int64(ttl))
	default:
		c.WriteInt64(int64((ttl + unit/2) / unit))
	}
}

// msArg parses the TTL in milliseconds of an EPHPM.* command: 0 is none,
// and 1..MaxTTL is honoured; anything else is refused.
func msArg(c *conn, b []byte, a [][]byte) (time.Duration, bool) {
	n, ok := parseInt(b)
	if !ok {
		c.WriteError(errNotInt)
		return 0, false
	}
	if n == 0 {
		return 0, true
	}
	ttl, ok := relTTL(n, time.Millisecond)
	if !ok {
		c.WriteError(errInvalidExpire(cmdName(a)))
	}
	return ttl, ok
}
