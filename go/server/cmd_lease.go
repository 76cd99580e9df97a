package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// The lease family (kv.Leases): read/write locks and semaphores, many
// holders of one key, each a token with its own expiry and fence. TTLs in
// milliseconds, as the other EPHPM.* commands.

// leaseModes are the mode words of EPHPM.LEASEACQUIRE.
var leaseModes = map[string]kv.LeaseMode{"shared": kv.LeaseShared, "exclusive": kv.LeaseExclusive, "permit": kv.LeasePermit}

// EPHPM.LEASEACQUIRE key token SHARED|EXCLUSIVE|PERMIT permits ms intent-ms:
// the fence when granted (a renewal keeps the holder's), :0 when refused.
// permits counts only for PERMIT; intent-ms (0: none) is a refused
// writer's intent. A fence is never 0.
func cmdLeaseAcquire(s *Server, c *conn, a [][]byte) {
	mode, ok := leaseModes[strings.ToLower(string(a[3]))]
	if !ok {
		writeStoreErr(c, fmt.Errorf("%w: unknown mode '%.32s' (SHARED, EXCLUSIVE or PERMIT)", kv.ErrBadArgument, a[3]))
		return
	}
	limit, ok := parseInt(a[4])
	if !ok {
		c.WriteError(errNotInt)
		return
	}
	ttl, ok := msArg(c, a[5], a)
	if !ok {
		return
	}
	intent, ok := msArg(c, a[6], a)
	if !ok {
		return
	}
	fence, granted, err := s.store.LeaseAcquire(key(a[1]), a[2], mode, limit, ttl, intent)
	switch {
	case err != nil:
		writeStoreErr(c, err)
	case granted:
		c.WriteInt64(fence)
	default:
		c.WriteInt(0)
	}
}

// EPHPM.LEASERELEASE key token: :1 when token held a live lease (its
// intent, if it had one, goes too).
func cmdLeaseRelease(s *Server, c *conn, a [][]byte) {
	replyBool(c)(s.store.LeaseRelease(key(a[1]), a[2]))
}

// EPHPM.LEASERENEW key token ms: :1 when token's live lease now expires
// after ms.
func cmdLeaseRenew(s *Server, c *conn, a [][]byte) {
	if ttl, ok := msArg(c, a[3], a); ok {
		replyBool(c)(s.store.LeaseRenew(key(a[1]), a[2], ttl))
	}
}

// EPHPM.LEASECOUNT key: the live holders (writers' intents are not).
func cmdLeaseCount(s *Server, c *conn, a [][]byte) {
	n, err := s.store.LeaseCount(key(a[1]))
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	c.WriteInt64(n)
}

// EPHPM.LEASETTL key token: microseconds left of token's live lease (as
// EPHPM.PTTLIFEQ for a lock), -2 when token holds none (an intent is not a
// lease). A read: the lease keeps its expiry.
func cmdLeaseTTL(s *Server, c *conn, a [][]byte) {
	ttl, err := s.store.LeaseTTL(key(a[1]), a[2])
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	writeTTL(c, ttl, time.Microsecond)
}
