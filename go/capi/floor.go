//go:build benchfloor

package main

// The floor of the lock path for make bench (go build -tags benchfloor, never
// shipped): setnx and del_if_eq cross from C into Go, set up the same panic
// guard as every export, and return at once without touching any store. The
// time a PHP lock pair takes on this build is what PHP, the extension and the
// two C->Go crossings cost; a real engine's figure minus this one is the
// store's own share.

/*
#cgo CFLAGS: -DEPHPM_KV_BENCH_FLOOR -Werror=implicit-function-declaration -Werror=incompatible-pointer-types
#include "ops_go.h"
*/
import "C"

//export ephpmKvFloorSetnx
func ephpmKvFloorSetnx(key *C.ephpm_cchar, keyLen C.size_t, val *C.ephpm_cchar, valLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	return 1
}

//export ephpmKvFloorDelIfEq
func ephpmKvFloorDelIfEq(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, coarse C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	return 1
}
