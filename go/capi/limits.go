package main

/*
#include "ops_go.h"
*/
import "C"

import "github.com/ephpm/ephpm-kv/kv"

// The C ABI's limits as Go constants, so a test can hold them to the Go
// side's (cgo is not allowed in _test.go files).
const (
	cMaxTTLSeconds = int64(C.EPHPM_KV_MAX_TTL_SECONDS)
	cMaxKeySize    = int(C.EPHPM_KV_MAX_KEY_SIZE)
	cTTLPersistent = int64(C.EPHPM_KV_TTL_PERSISTENT)
	cTTLMissing    = int64(C.EPHPM_KV_TTL_MISSING)
	cWatchLost     = int32(C.EPHPM_KV_WATCH_LOST)
	cWatchHeld     = int32(C.EPHPM_KV_WATCH_HELD)
	cWatchStopped  = int32(C.EPHPM_KV_WATCH_STOPPED)

	cLeaseShared     = int(C.EPHPM_KV_LEASE_SHARED)
	cLeaseExclusive  = int(C.EPHPM_KV_LEASE_EXCLUSIVE)
	cLeasePermit     = int(C.EPHPM_KV_LEASE_PERMIT)
	cMaxLeaseToken   = int(C.EPHPM_KV_MAX_LEASE_TOKEN)
	cMaxLeaseHolders = int(C.EPHPM_KV_MAX_LEASE_HOLDERS)
	cMaxRateLimit    = int(C.EPHPM_KV_MAX_RATE_LIMIT)

	cKindValue     = int(C.EPHPM_KV_KIND_VALUE)
	cKindEvictable = int(C.EPHPM_KV_KIND_EVICTABLE)
	cKindLeases    = int(C.EPHPM_KV_KIND_LEASES)
	cKindRateLog   = int(C.EPHPM_KV_KIND_RATELOG)
	cMaxScanCount  = int(C.EPHPM_KV_MAX_SCAN_COUNT)
)

// struct ephpm_kv_stats is exactly kv.StatsFields' counters, int64_t each:
// ephpmKvStats writes it as an array. Either array length below is
// negative, and the library does not compile, when the sizes differ.
const statsSize = 8 * len(kv.StatsFields)

var (
	_ [C.sizeof_ephpm_kv_stats - statsSize]struct{}
	_ [statsSize - C.sizeof_ephpm_kv_stats]struct{}
)
