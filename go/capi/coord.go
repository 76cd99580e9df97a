package main

/*
#include <stdlib.h>
#include "ops_go.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"time"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
)

// The coordination ops: compare-and-swap, and the leader election, barrier
// and queue composed of it (kv's leader.go, barrier.go, queue.go).

//export ephpmKvSetIfEq
func ephpmKvSetIfEq(key *C.ephpm_cchar, keyLen C.size_t, val *C.ephpm_cchar, valLen C.size_t, old *C.ephpm_cchar, oldLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := engine().SetIfEq(goString(key, keyLen), goBytes(val, valLen), goBytes(old, oldLen), time.Duration(ttl))
	return boolRC(ok, err, cerr)
}

//export ephpmKvLeaderCampaign
func ephpmKvLeaderCampaign(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, value *C.ephpm_cchar, valueLen C.size_t, ttl C.int64_t, term *C.int64_t, rec *C.char, recCap C.size_t, recLen *C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	t, r, ok, err := kv.Campaign(engine(), goString(key, keyLen), goBytes(token, tokenLen), goBytes(value, valueLen), time.Duration(ttl))
	if ok && len(r) > int(recCap) {
		// The caller's buffer was sized by the contract; never write past it.
		engine().DelIfEq(goString(key, keyLen), r)
		return fail(cerr, errRecordBuffer)
	}
	if ok {
		*term = C.int64_t(t)
		*recLen = C.size_t(copy(goBuf(rec, recCap), r))
	}
	return boolRC(ok, err, cerr)
}

//export ephpmKvLeaderCurrent
func ephpmKvLeaderCurrent(key *C.ephpm_cchar, keyLen C.size_t, buf *C.char, bufCap C.size_t, valueLen *C.size_t, term, remaining *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	info, ok, err := kv.CurrentLeader(engine(), goString(key, keyLen))
	if ok {
		*valueLen = C.size_t(len(info.Value))
		*term = C.int64_t(info.Term)
		*remaining = C.int64_t(info.Remaining)
		if len(info.Value) <= int(bufCap) {
			copy(goBuf(buf, bufCap), info.Value)
		}
	}
	return boolRC(ok, err, cerr)
}

//export ephpmKvBarrierWait
func ephpmKvBarrierWait(key *C.ephpm_cchar, keyLen C.size_t, parties, timeout C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := kv.BarrierWait(engine(), goString(key, keyLen), int64(parties), time.Duration(timeout))
	return boolRC(ok, err, cerr)
}

//export ephpmKvQueuePush
func ephpmKvQueuePush(key *C.ephpm_cchar, keyLen C.size_t, payload *C.ephpm_cchar, payloadLen C.size_t, delay C.int64_t, id *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	n, err := kv.QueuePush(engine(), goString(key, keyLen), goBytes(payload, payloadLen), time.Duration(delay))
	*id = C.int64_t(n)
	return boolRC(true, err, cerr)
}

// cCopy is b in a malloc()ed buffer the caller frees. Go's copy, not
// C's memcpy, reads the Go heap: memcheck (test-valgrind) cannot follow the
// Go heap, and build/valgrind-go.supp hides only what faults inside the
// library, where Go's own memmove runs.
func cCopy(b []byte) *C.char {
	p := (*C.char)(C.malloc(C.size_t(max(len(b), 1))))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(b)), b)
	handedToC(unsafe.Pointer(p), len(b))
	return p
}

//export ephpmKvQueuePop
func ephpmKvQueuePop(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, visibility, maxAttempts, wait C.int64_t, id, attempts *C.int64_t, payload **C.char, payloadLen *C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	j, ok, err := kv.QueuePop(engine(), goString(key, keyLen), goBytes(token, tokenLen), time.Duration(visibility), int64(maxAttempts), time.Duration(wait))
	if ok && err == nil {
		*id, *attempts = C.int64_t(j.ID), C.int64_t(j.Attempts)
		*payload, *payloadLen = cCopy(j.Payload), C.size_t(len(j.Payload))
	}
	return boolRC(ok, err, cerr)
}

// jobID is a job id from C: ids start at 1, anything else names no job.
func jobID(id C.int64_t) uint64 {
	if id < 1 {
		return 0
	}
	return uint64(id)
}

//export ephpmKvQueueAck
func ephpmKvQueueAck(key *C.ephpm_cchar, keyLen C.size_t, id C.int64_t, token *C.ephpm_cchar, tokenLen C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := kv.QueueAck(engine(), goString(key, keyLen), jobID(id), goBytes(token, tokenLen))
	return boolRC(ok, err, cerr)
}

//export ephpmKvQueueRelease
func ephpmKvQueueRelease(key *C.ephpm_cchar, keyLen C.size_t, id C.int64_t, token *C.ephpm_cchar, tokenLen C.size_t, delay C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := kv.QueueRelease(engine(), goString(key, keyLen), jobID(id), goBytes(token, tokenLen), time.Duration(delay))
	return boolRC(ok, err, cerr)
}

//export ephpmKvQueueTouch
func ephpmKvQueueTouch(key *C.ephpm_cchar, keyLen C.size_t, id C.int64_t, token *C.ephpm_cchar, tokenLen C.size_t, visibility C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := kv.QueueTouch(engine(), goString(key, keyLen), jobID(id), goBytes(token, tokenLen), time.Duration(visibility))
	return boolRC(ok, err, cerr)
}

//export ephpmKvQueueSize
func ephpmKvQueueSize(key *C.ephpm_cchar, keyLen C.size_t, maxAttempts C.int64_t, size *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	n, err := kv.QueueSize(engine(), goString(key, keyLen), int64(maxAttempts))
	*size = C.int64_t(n)
	return boolRC(true, err, cerr)
}

//export ephpmKvQueueDead
func ephpmKvQueueDead(key *C.ephpm_cchar, keyLen C.size_t, maxAttempts, limit C.int64_t, buf **C.char, bufLen *C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	jobs, err := kv.QueueDead(engine(), goString(key, keyLen), int64(maxAttempts), int64(limit))
	if err != nil {
		return fail(cerr, err)
	}
	var packed []byte
	for _, j := range jobs {
		packed = binary.NativeEndian.AppendUint64(packed, j.ID)
		packed = binary.NativeEndian.AppendUint64(packed, uint64(j.Attempts))
		packed = binary.NativeEndian.AppendUint64(packed, uint64(len(j.Payload)))
		packed = append(packed, j.Payload...)
	}
	*buf, *bufLen = cCopy(packed), C.size_t(len(packed))
	return 1
}

//export ephpmKvQueueRetry
func ephpmKvQueueRetry(key *C.ephpm_cchar, keyLen C.size_t, maxAttempts, id C.int64_t, moved *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	which := uint64(0) // every dead job
	if id != -1 {
		if which = jobID(id); which == 0 {
			*moved = 0
			return 1
		}
	}
	n, err := kv.QueueRetry(engine(), goString(key, keyLen), int64(maxAttempts), which)
	*moved = C.int64_t(n)
	return boolRC(true, err, cerr)
}

// errRecordBuffer refuses a leader_campaign whose rec buffer is smaller
// than the contract's value_len + token_len + EPHPM_KV_LEADER_OVERHEAD.
var errRecordBuffer = fmt.Errorf("%w: rec must hold value_len + token_len + %d bytes", kv.ErrBadArgument, kv.LeaderOverhead)
