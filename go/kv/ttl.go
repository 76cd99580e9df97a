package kv

import (
	"fmt"
	"time"
)

// MaxTTL is the longest TTL every engine, the server and the extension accept
// (100 years of 365 days). Deadlines are int64 nanoseconds on the monotonic
// clock (and Unix milliseconds in snapshots): a fixed maximum keeps now + ttl
// representable with room to spare, so a TTL is honoured or refused, never
// wrapped into one that has already passed. EPHPM_KV_MAX_TTL_SECONDS in
// capi/ephpm_kv_ops.h is the same number.
const MaxTTL = 100 * 365 * 24 * time.Hour

// MaxTTLSeconds is MaxTTL in whole seconds, for messages.
const MaxTTLSeconds = int64(MaxTTL / time.Second)

// CheckTTL accepts 0 (no expiry) through MaxTTL.
func CheckTTL(ttl time.Duration) error {
	if ttl < 0 || ttl > MaxTTL {
		return fmt.Errorf("%w: %d ns is outside 0..%d seconds", ErrBadTTL, int64(ttl), MaxTTLSeconds)
	}
	return nil
}
