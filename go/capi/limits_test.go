package main

import (
	"testing"

	"github.com/ephpm/ephpm-kv/kv"
)

// The extension refuses TTLs past EPHPM_KV_MAX_TTL_SECONDS before they reach
// Go, and Go refuses past kv.MaxTTL: both must be the one maximum.
func TestCLimitsMatchGo(t *testing.T) {
	if cMaxTTLSeconds != kv.MaxTTLSeconds {
		t.Errorf("EPHPM_KV_MAX_TTL_SECONDS = %d, kv.MaxTTLSeconds = %d", cMaxTTLSeconds, kv.MaxTTLSeconds)
	}
	if cMaxKeySize != kv.MaxKeySize {
		t.Errorf("EPHPM_KV_MAX_KEY_SIZE = %d, kv.MaxKeySize = %d", cMaxKeySize, kv.MaxKeySize)
	}
}
