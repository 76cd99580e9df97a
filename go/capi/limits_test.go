package main

import (
	"testing"

	"github.com/ephpm/ephpm-kv/kv"
)

// The C ABI's constants against the Go side, in one place: the extension
// checks its input with the header's, Go with its own, and the two must
// be the same numbers.
func TestABIConstantsMatchGo(t *testing.T) {
	t.Run("limits", func(t *testing.T) {
		// The extension refuses TTLs past EPHPM_KV_MAX_TTL_SECONDS before
		// they reach Go, and Go refuses past kv.MaxTTL.
		if cMaxTTLSeconds != kv.MaxTTLSeconds {
			t.Errorf("EPHPM_KV_MAX_TTL_SECONDS = %d, kv.MaxTTLSeconds = %d", cMaxTTLSeconds, kv.MaxTTLSeconds)
		}
		if cMaxKeySize != kv.MaxKeySize {
			t.Errorf("EPHPM_KV_MAX_KEY_SIZE = %d, kv.MaxKeySize = %d", cMaxKeySize, kv.MaxKeySize)
		}
	})
	t.Run("ttl specials", func(t *testing.T) {
		// ttl() hands the engine's TTL to C as is.
		if cTTLPersistent != int64(kv.TTLPersistent) || cTTLMissing != int64(kv.TTLMissing) {
			t.Errorf("EPHPM_KV_TTL_PERSISTENT, _MISSING = %d, %d; kv.TTLPersistent, TTLMissing = %d, %d",
				cTTLPersistent, cTTLMissing, kv.TTLPersistent, kv.TTLMissing)
		}
	})
	t.Run("watch states", func(t *testing.T) {
		// watch_state() hands the watchdog's state to C as is.
		if cWatchLost != watchLost || cWatchHeld != watchHeld || cWatchStopped != watchStopped {
			t.Errorf("EPHPM_KV_WATCH_LOST, _HELD, _STOPPED = %d, %d, %d; Go's = %d, %d, %d",
				cWatchLost, cWatchHeld, cWatchStopped, watchLost, watchHeld, watchStopped)
		}
	})
	t.Run("leases", func(t *testing.T) {
		// lease_acquire() hands its mode to Go as is; the extension checks
		// permits and rate limits with the header's bounds.
		if cLeaseShared != int(kv.LeaseShared) || cLeaseExclusive != int(kv.LeaseExclusive) || cLeasePermit != int(kv.LeasePermit) {
			t.Errorf("EPHPM_KV_LEASE_SHARED, _EXCLUSIVE, _PERMIT = %d, %d, %d; kv's = %d, %d, %d",
				cLeaseShared, cLeaseExclusive, cLeasePermit, kv.LeaseShared, kv.LeaseExclusive, kv.LeasePermit)
		}
		if cMaxLeaseToken != kv.MaxLeaseToken || cMaxLeaseHolders != kv.MaxLeaseHolders || cMaxRateLimit != kv.MaxRateLimit {
			t.Errorf("EPHPM_KV_MAX_LEASE_TOKEN, _HOLDERS, _RATE_LIMIT = %d, %d, %d; kv's = %d, %d, %d",
				cMaxLeaseToken, cMaxLeaseHolders, cMaxRateLimit, kv.MaxLeaseToken, kv.MaxLeaseHolders, kv.MaxRateLimit)
		}
	})
	t.Run("scan", func(t *testing.T) {
		// scan() hands kv.KeyKind to C as is; the extension checks count
		// with the header's bound.
		if cKindValue != int(kv.KindValue) || cKindEvictable != int(kv.KindEvictable) ||
			cKindLeases != int(kv.KindLeases) || cKindRateLog != int(kv.KindRateLog) {
			t.Errorf("EPHPM_KV_KIND_VALUE, _EVICTABLE, _LEASES, _RATELOG = %d, %d, %d, %d; kv's = %d, %d, %d, %d",
				cKindValue, cKindEvictable, cKindLeases, cKindRateLog, kv.KindValue, kv.KindEvictable, kv.KindLeases, kv.KindRateLog)
		}
		if cMaxScanCount != kv.MaxScanCount {
			t.Errorf("EPHPM_KV_MAX_SCAN_COUNT = %d, kv.MaxScanCount = %d", cMaxScanCount, kv.MaxScanCount)
		}
	})
	t.Run("error codes", checkErrorCodes)
}
