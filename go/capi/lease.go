package main

/*
#include "ops_go.h"
*/
import "C"

import (
	"fmt"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

//export ephpmKvLeaseAcquire
func ephpmKvLeaseAcquire(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, mode C.int32_t, limit, ttl, intent C.int64_t, fence *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	l := engine()
	if mode < 0 || mode > 255 { // kv.LeaseMode is a byte: never let a wrapped value pick a mode
		return fail(cerr, fmt.Errorf("%w: unknown mode %d", kv.ErrBadArgument, mode))
	}
	f, ok, err := l.LeaseAcquire(goString(key, keyLen), goBytes(token, tokenLen), kv.LeaseMode(mode), int64(limit), time.Duration(ttl), time.Duration(intent))
	*fence = C.int64_t(f)
	return boolRC(ok, err, cerr)
}

//export ephpmKvLeaseRelease
func ephpmKvLeaseRelease(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	l := engine()
	ok, err := l.LeaseRelease(goString(key, keyLen), goBytes(token, tokenLen))
	return boolRC(ok, err, cerr)
}

//export ephpmKvLeaseRenew
func ephpmKvLeaseRenew(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	l := engine()
	ok, err := l.LeaseRenew(goString(key, keyLen), goBytes(token, tokenLen), time.Duration(ttl))
	return boolRC(ok, err, cerr)
}

//export ephpmKvLeaseCount
func ephpmKvLeaseCount(key *C.ephpm_cchar, keyLen C.size_t, count *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	l := engine()
	n, err := l.LeaseCount(goString(key, keyLen))
	if err != nil {
		return fail(cerr, err)
	}
	*count = C.int64_t(n)
	return 0
}

//export ephpmKvLeaseTTL
func ephpmKvLeaseTTL(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, out *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ttl, err := engine().LeaseTTL(goString(key, keyLen), goBytes(token, tokenLen))
	return ttlRC(ttl, err, out, cerr)
}

//export ephpmKvRateLimit
func ephpmKvRateLimit(key *C.ephpm_cchar, keyLen C.size_t, limit, window C.int64_t, remaining, retryAfter *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	r := engine()
	ok, left, retry, err := r.RateLimit(goString(key, keyLen), int64(limit), time.Duration(window))
	*remaining = C.int64_t(left)
	*retryAfter = C.int64_t(retry)
	return boolRC(ok, err, cerr)
}
