package main

/*
#include "ops_go.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"

	"github.com/ephpm/ephpm-kv/kv"
)

// The scan op: one step of a walk over the keys (kv.Scanner, which every
// engine implements), for ephpm_kv_scan() and the status page.

//export ephpmKvScan
func ephpmKvScan(cursor *C.ephpm_cchar, cursorLen C.size_t, match *C.ephpm_cchar, matchLen C.size_t, count C.int64_t, buf **C.char, bufLen *C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	packed, more, err := scanStep(engine(), goString(cursor, cursorLen), goString(match, matchLen), int64(count))
	if err != nil {
		return fail(cerr, err)
	}
	*buf, *bufLen = cCopy(packed), C.size_t(len(packed))
	return boolRC(more, nil, cerr)
}

// scanStep runs one Scan call on s and packs its page as the scan op
// returns it: the next cursor's length (int64, native byte order) and the
// cursor, then per key its kind, TTL in ns (or kv.TTLPersistent), size,
// fence and length (five int64) and the key. more: the walk goes on.
func scanStep(s kv.Scanner, cursor, match string, count int64) (packed []byte, more bool, err error) {
	if count < 1 || count > kv.MaxScanCount {
		return nil, false, fmt.Errorf("%w: count must be 1 to %d, got %d", kv.ErrBadArgument, kv.MaxScanCount, count)
	}
	var keys []byte
	next, err := s.Scan(cursor, match, int(count), func(k kv.KeyInfo) {
		keys = binary.NativeEndian.AppendUint64(keys, uint64(k.Kind))
		keys = binary.NativeEndian.AppendUint64(keys, uint64(k.TTL))
		keys = binary.NativeEndian.AppendUint64(keys, uint64(k.Size))
		keys = binary.NativeEndian.AppendUint64(keys, uint64(k.Fence))
		keys = binary.NativeEndian.AppendUint64(keys, uint64(len(k.Key)))
		keys = append(keys, k.Key...)
	})
	if err != nil {
		return nil, false, err
	}
	packed = make([]byte, 0, 8+len(next)+len(keys))
	packed = binary.NativeEndian.AppendUint64(packed, uint64(len(next)))
	packed = append(packed, next...)
	return append(packed, keys...), next != "", nil
}
