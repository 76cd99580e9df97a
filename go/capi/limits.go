package main

/*
#include "ephpm_kv_ops.h"
*/
import "C"

// The C ABI's limits as Go constants, so a test can hold them to the Go
// side's (cgo is not allowed in _test.go files).
const (
	cMaxTTLSeconds = int64(C.EPHPM_KV_MAX_TTL_SECONDS)
	cMaxKeySize    = int(C.EPHPM_KV_MAX_KEY_SIZE)
)
