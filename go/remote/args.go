package remote

// Arguments, checked before anything is sent: one function per family of
// operations, shared by Engine and Cluster so that the two differ only in
// how they reach the server. Each returns the first refusal, in one order:
// times, then keys, then sizes against the server's value limit, last
// because learning the limit may take a round trip (and fail). Times come
// back in milliseconds, the server's unit.

import (
	"errors"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// valueLimit is an engine's part in the checks: the server's value limit,
// learned on first use.
type valueLimit interface {
	// checkValue refuses, with kv.ErrValueTooLarge, a value the server
	// would refuse. Its other errors are the server's (unreachable,
	// misconfigured) while learning the limit.
	checkValue(value []byte) error
	// checkToken refuses, with kv.ErrValueTooLarge, a token longer than
	// any value the server holds, as checkValue does.
	checkToken(token []byte) error
}

// ms checks a ttl (0 through kv.MaxTTL, else kv.ErrBadTTL, before anything
// is sent) and rounds it up to whole milliseconds, the server's unit, so a
// positive sub-millisecond ttl never becomes 0 ("no expiry").
func ms(ttl time.Duration) (int64, error) {
	if err := kv.CheckTTL(ttl); err != nil {
		return 0, err
	}
	return int64((ttl + time.Millisecond - 1) / time.Millisecond), nil
}

// checkKeys reports the first bad key of a multi-key read.
func checkKeys(keys []string) error {
	for _, k := range keys {
		if err := kv.CheckKey(k); err != nil {
			return err
		}
	}
	return nil
}

// checkKeyTTL reports a bad ttl, then a bad key (Expire, Incr).
func checkKeyTTL(key string, ttl time.Duration) (px int64, err error) {
	px, err = ms(ttl)
	if err == nil {
		err = kv.CheckKey(key)
	}
	return px, err
}

// checkWrite reports a bad ttl, a bad key, then a value too large for the
// server (Set, SetNX, SetNXFenced and the evictable writes).
func checkWrite(l valueLimit, key string, value []byte, ttl time.Duration) (px int64, err error) {
	px, err = checkKeyTTL(key, ttl)
	if err == nil {
		err = l.checkValue(value)
	}
	return px, err
}

// checkTokenOp reports a bad key, and whether token can never match: one
// longer than any value the server holds. Such a token is not sent: past
// 64 KiB (every server's smallest bulk limit) the server may refuse it as
// a protocol error and close the connection, where the answer is simply
// "no match", as it is in process (DelIfEq, TTLIfEq).
func checkTokenOp(l valueLimit, key string, token []byte) (never bool, err error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	err = l.checkToken(token)
	if errors.Is(err, kv.ErrValueTooLarge) {
		return true, nil
	}
	return false, err
}

// checkTokenTTL reports a bad ttl, then what checkTokenOp does (ExpireIfEq).
func checkTokenTTL(l valueLimit, key string, token []byte, ttl time.Duration) (px int64, never bool, err error) {
	if px, err = ms(ttl); err != nil {
		return 0, false, err
	}
	never, err = checkTokenOp(l, key, token)
	return px, never, err
}

// checkLockAndGet reports LockAndGet's bad lock ttl, bad lock and key
// (both, joined), then a token too large for the server: written as the
// lock's value, it is refused, not a "never matches".
func checkLockAndGet(l valueLimit, lock string, token []byte, lockTTL time.Duration, key string) (px int64, err error) {
	px, err = ms(lockTTL)
	if err == nil {
		err = errors.Join(kv.CheckKey(lock), kv.CheckKey(key))
	}
	if err == nil {
		err = l.checkValue(token)
	}
	return px, err
}

// checkLockedWrite reports SetIfLocked's bad ttl or lock ttl, bad key and
// lock (both, joined), a value too large for the server, then whether the
// lock's token can never match (see checkTokenOp).
func checkLockedWrite(l valueLimit, key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration) (px, lockPX int64, never bool, err error) {
	if px, err = ms(ttl); err != nil {
		return 0, 0, false, err
	}
	lockPX, err = ms(lockTTL)
	if err == nil {
		err = errors.Join(kv.CheckKey(key), kv.CheckKey(lock))
	}
	if err == nil {
		err = l.checkValue(value)
	}
	if err != nil {
		return 0, 0, false, err
	}
	never, err = checkTokenOp(l, lock, token)
	return px, lockPX, never, err
}

// checkLease reports LeaseAcquire's bad key, then its bad lease arguments;
// lim is 0 unless mode is kv.LeasePermit (limit is ignored then).
func checkLease(key string, token []byte, mode kv.LeaseMode, limit int64, ttl, intent time.Duration) (lim, px, ipx int64, err error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, 0, 0, err
	}
	if err := kv.CheckLease(token, mode, limit, ttl, intent); err != nil {
		return 0, 0, 0, err
	}
	if mode == kv.LeasePermit {
		lim = limit
	}
	// Both within 0..kv.MaxTTL now: ms cannot refuse them.
	px, _ = ms(ttl)
	ipx, _ = ms(intent)
	return lim, px, ipx, nil
}

// checkLeaseRenew reports LeaseRenew's bad key, token or ttl.
func checkLeaseRenew(key string, token []byte, ttl time.Duration) (px int64, err error) {
	if err := kv.CheckLeaseRenew(key, token, ttl); err != nil {
		return 0, err
	}
	px, _ = ms(ttl) // a lease ttl is within 0..kv.MaxTTL
	return px, nil
}

// checkRateLimit reports RateLimit's bad key, then its bad limit or window.
func checkRateLimit(key string, limit int64, window time.Duration) (wms int64, err error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	if err := kv.CheckRateLimit(limit, window); err != nil {
		return 0, err
	}
	wms, _ = ms(window) // a window is within 0..kv.MaxTTL
	return wms, nil
}
