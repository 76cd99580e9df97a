package main

/*
#include "ephpm_kv_ops.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
)

var errorCodes = []struct {
	err  error
	code C.int32_t
}{
	{kv.ErrEmptyKey, C.EPHPM_KV_E_EMPTY_KEY},
	{kv.ErrKeyTooLarge, C.EPHPM_KV_E_KEY_TOO_LARGE},
	{kv.ErrValueTooLarge, C.EPHPM_KV_E_VALUE_TOO_LARGE},
	{kv.ErrBadTTL, C.EPHPM_KV_E_BAD_TTL},
	{kv.ErrFull, C.EPHPM_KV_E_FULL},
	{kv.ErrNotInteger, C.EPHPM_KV_E_NOT_INTEGER},
	{kv.ErrOverflow, C.EPHPM_KV_E_OVERFLOW},
	{errStarted, C.EPHPM_KV_E_CONFIG},
	{kv.ErrClosed, C.EPHPM_KV_E_UNAVAILABLE},
	{kv.ErrUnavailable, C.EPHPM_KV_E_UNAVAILABLE},
}

// fail reports err through cerr and returns the negative code.
func fail(cerr *C.ephpm_kv_error, err error) C.int {
	code := C.int32_t(C.EPHPM_KV_E_INTERNAL)
	for _, ec := range errorCodes {
		if errors.Is(err, ec.err) {
			code = ec.code
			break
		}
	}
	if cerr != nil {
		cerr.code = code
		msg := unsafe.Slice((*byte)(unsafe.Pointer(&cerr.message[0])), len(cerr.message))
		n := copy(msg[:len(msg)-1], err.Error())
		msg[n] = 0
	}
	return -C.int(code)
}

// recoverInto turns a panic into EPHPM_KV_E_INTERNAL: a panic must never
// unwind into C, which cannot handle it.
func recoverInto(cerr *C.ephpm_kv_error, rc *C.int) {
	if r := recover(); r != nil {
		*rc = fail(cerr, fmt.Errorf("ephpm-kv internal error (please report): %v", r))
	}
}
