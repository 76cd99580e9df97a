package remote

// A session's read and write, each one round trip.

import (
	"errors"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// LockAndGet implements kv.LockGetter in one round trip: SET lock token NX PX
// and GET key, pipelined. When the lock was not acquired, the GET's reply
// is read and dropped.
func (e *Engine) LockAndGet(lock string, token []byte, lockTTL time.Duration, key string, dst []byte) (bool, int, bool, error) {
	px, err := checkLockAndGet(e, lock, token, lockTTL, key)
	if err != nil {
		return false, 0, false, err
	}
	var (
		acquired, found, held bool
		n                     int
	)
	err = e.roundTrip(func(c *client) {
		setCmd(c, lock, token, true, px)
		c.command(2)
		c.arg("GET")
		c.arg(key)
	}, func(i int, r *reply, _ *client) (err error) {
		if i == 0 {
			if acquired = r.kind == '+'; !acquired && !r.isNil() {
				return errUnexpected(r)
			}
			held = !acquired
			return nil
		}
		if !acquired {
			return nil
		}
		n, found, err = e.getReply(r, key, dst)
		return err
	})
	if err != nil && acquired && !errors.Is(err, kv.ErrUnavailable) {
		// The lock was taken but the read refused (a Redis key of
		// another type): given back, not left to block the next
		// request for its TTL. Not after a timeout: nothing answers.
		e.DelIfEq(lock, token)
	}
	if err != nil && held && !errors.Is(err, kv.ErrUnavailable) {
		// Held by someone else: the GET's reply is dropped unread, so
		// its refusal too (a Redis key of another type).
		return false, 0, false, nil
	}
	if err != nil {
		return false, 0, false, err
	}
	return acquired, n, found, nil
}

// SetIfLocked implements kv.LockedSetter with EPHPM.SETIFLOCKED, and DELIFEQ
// pipelined after it to release: one round trip either way. The server
// runs them in order, so the lock goes after the write. When the lock was
// not ours, the DELIFEQ finds another token (or none) and deletes nothing.
func (e *Engine) SetIfLocked(key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration, release bool) (bool, error) {
	px, lockPX, never, err := checkLockedWrite(e, key, value, ttl, lock, token, lockTTL)
	if never || err != nil {
		return false, err
	}
	var written, unknown bool
	err = e.do(func(c *client) {
		unknown = c.dialect.kind == dialectUnknown
		if c.dialect.redis() {
			// One script: check, write, then renew (with the lock's
			// fence record) or release.
			c.evalsha(scriptSetIfLocked, 3, 5)
			c.arg(key)
			c.arg(lock)
			c.arg(serverLockFenceKey(lock))
			c.argBytes(value)
			c.argInt(px)
			c.argBytes(token)
			c.argInt(lockPX)
			if release {
				c.arg("1")
			} else {
				c.arg("0")
			}
			return
		}
		c.command(7)
		c.arg("EPHPM.SETIFLOCKED")
		c.arg(key)
		c.argBytes(value)
		c.argInt(px)
		c.arg(lock)
		c.argBytes(token)
		c.argInt(lockPX)
		// Not to a server not known to be an ephpm-kv server: a Valkey 9
		// would run the DELIFEQ after refusing EPHPM.SETIFLOCKED, releasing
		// the lock without the write.
		if release && !unknown {
			tokenCmd("DELIFEQ", lock, token)(c)
		}
	}, func(i int, r *reply, c *client) error {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		if i == 0 {
			written = r.n == 1
			if unknown {
				c.dialect.kind = dialectEphpm // it ran EPHPM.SETIFLOCKED
			}
		}
		return nil
	})
	if err == nil && written && release && unknown {
		// An ephpm-kv server wrote (a Valkey or Redis would have been
		// sent the script): release now, after the write, one round
		// trip more, on a connection's first use only.
		_, err = e.DelIfEq(lock, token)
	}
	return written, err
}
