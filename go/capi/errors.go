package main

/*
#include "ops_go.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
	"github.com/ephpm/ephpm-kv/shm"
)

// errorCodes maps engine errors to the C ABI's codes. name is the code's
// EPHPM_KV_E_ suffix, which is also its Ephpm\KvException constant;
// errors_test.go holds the header, this table and the stub to one another.
var errorCodes = []struct {
	name string
	err  error
	code int32
}{
	{"EMPTY_KEY", kv.ErrEmptyKey, C.EPHPM_KV_E_EMPTY_KEY},
	{"KEY_TOO_LARGE", kv.ErrKeyTooLarge, C.EPHPM_KV_E_KEY_TOO_LARGE},
	{"VALUE_TOO_LARGE", kv.ErrValueTooLarge, C.EPHPM_KV_E_VALUE_TOO_LARGE},
	{"BAD_TTL", kv.ErrBadTTL, C.EPHPM_KV_E_BAD_TTL},
	{"FULL", kv.ErrFull, C.EPHPM_KV_E_FULL},
	{"NOT_INTEGER", kv.ErrNotInteger, C.EPHPM_KV_E_NOT_INTEGER},
	{"OVERFLOW", kv.ErrOverflow, C.EPHPM_KV_E_OVERFLOW},
	{"BAD_ARGUMENT", kv.ErrBadArgument, C.EPHPM_KV_E_BAD_ARGUMENT},
	{"WRONG_TYPE", kv.ErrWrongType, C.EPHPM_KV_E_WRONG_TYPE},
	{"CONFIG", errStarted, C.EPHPM_KV_E_CONFIG},
	{"CONFIG", errConfig, C.EPHPM_KV_E_CONFIG},
	{"CONFIG", remote.ErrEvicting, C.EPHPM_KV_E_CONFIG},
	{"CONFIG", remote.ErrNoSlot, C.EPHPM_KV_E_CONFIG},
	{"CONFIG", shm.ErrShrunk, C.EPHPM_KV_E_CONFIG},
	{"CORRUPT", shm.ErrCorrupt, C.EPHPM_KV_E_CORRUPT},
	{"UNAVAILABLE", kv.ErrClosed, C.EPHPM_KV_E_UNAVAILABLE},
	{"UNAVAILABLE", kv.ErrUnavailable, C.EPHPM_KV_E_UNAVAILABLE},
}

// errConfig marks a configuration the engine refused (e.g. a malformed
// ephpm.server); configError carries it without changing the message.
var errConfig = errors.New("configuration refused")

type configError struct{ error }

func (e configError) Unwrap() error      { return e.error }
func (configError) Is(target error) bool { return target == errConfig }

// codeInternal is every other error's code: a bug, such as a recovered panic.
const codeInternal int32 = C.EPHPM_KV_E_INTERNAL

// codeOf returns err's EPHPM_KV_E_* code.
func codeOf(err error) int32 {
	for _, ec := range errorCodes {
		if errors.Is(err, ec.err) {
			return ec.code
		}
	}
	return codeInternal
}

// fail reports err through cerr and returns the negative code.
func fail(cerr *C.ephpm_kv_error, err error) C.int {
	code := codeOf(err)
	if cerr != nil {
		cerr.code = C.int32_t(code)
		msg := unsafe.Slice((*byte)(unsafe.Pointer(&cerr.message[0])), len(cerr.message))
		n := copy(msg[:len(msg)-1], err.Error())
		msg[n] = 0
		handedToC(unsafe.Pointer(&msg[0]), n+1)
	}
	return -C.int(code)
}

// recoverInto turns a panic into EPHPM_KV_E_INTERNAL: a panic must never
// unwind into C, which cannot handle it.
func recoverInto(cerr *C.ephpm_kv_error, rc *C.int) {
	if r := recover(); r != nil {
		if ref := active.Load(); ref != nil {
			if e, ok := ref.Engine.(*shm.Engine); ok {
				if err := e.Fault(r); err != nil {
					*rc = fail(cerr, err)
					return
				}
			}
		}
		*rc = fail(cerr, fmt.Errorf("ephpm-kv internal error (please report): %v", r))
	}
}
