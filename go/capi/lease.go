package main

/*
#include "ephpm_kv_ops.h"
*/
import "C"

import (
	"fmt"
	"time"

	"github.com/ephpm/ephpm-kv/etcdkv"
	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
	"github.com/ephpm/ephpm-kv/shm"
	"github.com/ephpm/ephpm-kv/store"
)

// Every engine configure, configure_shm and serverEngine (server.go) can
// start: the in-process map, the segment, an ephpm-kv server, a Valkey or
// Redis, a Redis Cluster, etcd. Each serves the lease and rate-limit ops
// itself, or the library does not build.
var (
	_ kv.Leases      = (*store.Store)(nil)
	_ kv.RateLimiter = (*store.Store)(nil)
	_ kv.Leases      = (*shm.Engine)(nil)
	_ kv.RateLimiter = (*shm.Engine)(nil)
	_ kv.Leases      = (*remote.Engine)(nil)
	_ kv.RateLimiter = (*remote.Engine)(nil)
	_ kv.Leases      = (*remote.Cluster)(nil)
	_ kv.RateLimiter = (*remote.Cluster)(nil)
	_ kv.Leases      = (*etcdkv.Engine)(nil)
	_ kv.RateLimiter = (*etcdkv.Engine)(nil)
)

// The lease and rate-limit ops (ReadWriteLock, Semaphore,
// ephpm_kv_rate_limit) call kv.Leases and kv.RateLimiter, optional until
// every engine implements them: an engine without them answers with an
// error that says so, never with a refusal PHP would read as contention.

func leases() (kv.Leases, error) {
	e := engine()
	if l, ok := e.(kv.Leases); ok {
		return l, nil
	}
	return nil, fmt.Errorf("the %T engine does not implement leases (read/write locks, semaphores) yet", e)
}

func rateLimiter() (kv.RateLimiter, error) {
	e := engine()
	if r, ok := e.(kv.RateLimiter); ok {
		return r, nil
	}
	return nil, fmt.Errorf("the %T engine does not implement the rate limiter yet", e)
}

//export ephpmKvLeaseAcquire
func ephpmKvLeaseAcquire(key *C.char, keyLen C.size_t, token *C.char, tokenLen C.size_t, mode C.int32_t, limit, ttl, intent C.int64_t, fence *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	l, err := leases()
	if err != nil {
		return fail(cerr, err)
	}
	if mode < 0 || mode > 255 { // kv.LeaseMode is a byte: never let a wrapped value pick a mode
		return fail(cerr, fmt.Errorf("%w: unknown mode %d", kv.ErrBadLease, mode))
	}
	f, ok, err := l.LeaseAcquire(goString(key, keyLen), goBytes(token, tokenLen), kv.LeaseMode(mode), int64(limit), time.Duration(ttl), time.Duration(intent))
	*fence = C.int64_t(f)
	return boolRC(ok, err, cerr)
}

//export ephpmKvLeaseRelease
func ephpmKvLeaseRelease(key *C.char, keyLen C.size_t, token *C.char, tokenLen C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	l, err := leases()
	if err != nil {
		return fail(cerr, err)
	}
	ok, err := l.LeaseRelease(goString(key, keyLen), goBytes(token, tokenLen))
	return boolRC(ok, err, cerr)
}

//export ephpmKvLeaseRenew
func ephpmKvLeaseRenew(key *C.char, keyLen C.size_t, token *C.char, tokenLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	l, err := leases()
	if err != nil {
		return fail(cerr, err)
	}
	ok, err := l.LeaseRenew(goString(key, keyLen), goBytes(token, tokenLen), time.Duration(ttl))
	return boolRC(ok, err, cerr)
}

//export ephpmKvLeaseCount
func ephpmKvLeaseCount(key *C.char, keyLen C.size_t, count *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	l, err := leases()
	if err != nil {
		return fail(cerr, err)
	}
	n, err := l.LeaseCount(goString(key, keyLen))
	if err != nil {
		return fail(cerr, err)
	}
	*count = C.int64_t(n)
	return 0
}

//export ephpmKvRateLimit
func ephpmKvRateLimit(key *C.char, keyLen C.size_t, limit, window C.int64_t, remaining, retryAfter *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	r, err := rateLimiter()
	if err != nil {
		return fail(cerr, err)
	}
	ok, left, retry, err := r.RateLimit(goString(key, keyLen), int64(limit), time.Duration(window))
	*remaining = C.int64_t(left)
	*retryAfter = C.int64_t(retry)
	return boolRC(ok, err, cerr)
}
