package main

/*
#include "ops_go.h"
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
	"github.com/ephpm/ephpm-kv/shm"
	"github.com/ephpm/ephpm-kv/store"
)

// Keys, values and buffers are viewed in place: the engine contract says it
// copies whatever it keeps, and C keeps them alive for the call.

func goString(p *C.ephpm_cchar, n C.size_t) string {
	return unsafe.String((*byte)(unsafe.Pointer(p)), int(n))
}

func goBytes(p *C.ephpm_cchar, n C.size_t) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}

// goBuf is a caller's buffer the op writes into.
func goBuf(p *C.char, n C.size_t) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}

// cString copies what a configuration keeps past the call.
func cString(p *C.ephpm_cchar, n C.size_t) string {
	return C.GoStringN((*C.char)(p), C.int(n))
}

func boolRC(ok bool, err error, cerr *C.ephpm_kv_error) C.int {
	if err != nil {
		return fail(cerr, err)
	}
	if ok {
		return 1
	}
	return 0
}

//export ephpmKvConfigure
func ephpmKvConfigure(cfg *C.ephpm_cconfig, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	err := startWith(func() (kv.Engine, error) {
		return store.New(store.Config{
			MemoryLimit:  int64(cfg.memory_limit),
			MaxValueSize: int64(cfg.max_value_size),
			CompressMin:  int64(cfg.compress_min),
		}), nil
	})
	return boolRC(false, err, cerr)
}

//export ephpmKvConfigureServer
func ephpmKvConfigureServer(url *C.ephpm_cchar, urlLen C.size_t, password *C.ephpm_cchar, passwordLen C.size_t, timeout C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	err := startWith(func() (kv.Engine, error) {
		return serverEngine(cString(url, urlLen), cString(password, passwordLen), time.Duration(timeout), remote.TLSFiles{})
	})
	return boolRC(false, err, cerr)
}

//export ephpmKvConfigureShm
func ephpmKvConfigureShm(base unsafe.Pointer, size C.size_t, cfg *C.ephpm_cconfig, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	err := startWith(func() (kv.Engine, error) {
		return attachShm(base, uint64(size), shm.Config{
			MaxValueSize: int64(cfg.max_value_size),
			CompressMin:  int64(cfg.compress_min),
			LockTimeout:  time.Duration(cfg.shm_lock_timeout),
		})
	})
	return boolRC(false, err, cerr)
}

//export ephpmKvGet
func ephpmKvGet(key *C.ephpm_cchar, keyLen C.size_t, buf *C.char, bufCap C.size_t, outLen *C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	n, found, err := engine().Get(goString(key, keyLen), goBuf(buf, bufCap))
	*outLen = C.size_t(n)
	return boolRC(found, err, cerr)
}

// ephpmKvGetMulti is n gets in one crossing: the values packed into buf
// in the keys' order while they fit; past the first that does not, only
// their lengths are taken, for the caller's next try.
//
//export ephpmKvGetMulti
func ephpmKvGetMulti(n C.size_t, keys *C.ephpm_ckey, keyLens *C.ephpm_csize, buf *C.char, bufCap C.size_t,
	lens *C.int64_t, need *C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	e := engine()
	ks, kl, ls := unsafe.Slice(keys, int(n)), unsafe.Slice(keyLens, int(n)), unsafe.Slice(lens, int(n))
	dst := goBuf(buf, bufCap)
	used, total := 0, 0
	if mg, ok := e.(kv.MultiGetter); ok { // a server: one round trip
		names := make([]string, len(ks))
		for i := range ks {
			names[i] = goString(ks[i], kl[i])
		}
		err := mg.GetMulti(names, func(i int, v []byte, found bool) {
			if !found {
				ls[i] = -1
				return
			}
			ls[i] = C.int64_t(len(v))
			if used == total && len(v) <= len(dst)-used {
				used += copy(dst[used:], v)
			}
			total += len(v)
		})
		if err != nil {
			return fail(cerr, err)
		}
		*need = C.size_t(total)
		if total > used {
			return 0
		}
		return 1
	}
	for i := range ks {
		into := dst[:0]
		if used == total { // every value so far is in buf
			into = dst[used:]
		}
		vn, found, err := e.Get(goString(ks[i], kl[i]), into)
		if err != nil {
			return fail(cerr, err)
		}
		if !found {
			ls[i] = -1
			continue
		}
		ls[i] = C.int64_t(vn)
		if used == total && vn <= len(into) {
			used += vn
		}
		total += vn
	}
	*need = C.size_t(total)
	if total > used {
		return 0
	}
	return 1
}

//export ephpmKvSet
func ephpmKvSet(key *C.ephpm_cchar, keyLen C.size_t, val *C.ephpm_cchar, valLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	err := engine().Set(goString(key, keyLen), goBytes(val, valLen), time.Duration(ttl))
	return boolRC(true, err, cerr)
}

//export ephpmKvSetEvictable
func ephpmKvSetEvictable(key *C.ephpm_cchar, keyLen C.size_t, val *C.ephpm_cchar, valLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	err := kv.SetEvictable(engine(), goString(key, keyLen), goBytes(val, valLen), time.Duration(ttl))
	return boolRC(true, err, cerr)
}

//export ephpmKvSetnxEvictable
func ephpmKvSetnxEvictable(key *C.ephpm_cchar, keyLen C.size_t, val *C.ephpm_cchar, valLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := kv.SetNXEvictable(engine(), goString(key, keyLen), goBytes(val, valLen), time.Duration(ttl))
	return boolRC(ok, err, cerr)
}

//export ephpmKvSetnx
func ephpmKvSetnx(key *C.ephpm_cchar, keyLen C.size_t, val *C.ephpm_cchar, valLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := engine().SetNX(goString(key, keyLen), goBytes(val, valLen), time.Duration(ttl))
	return boolRC(ok, err, cerr)
}

//export ephpmKvDel
func ephpmKvDel(key *C.ephpm_cchar, keyLen C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := engine().Del(goString(key, keyLen))
	return boolRC(ok, err, cerr)
}

// ephpmKvDelMulti deletes n keys (kv.DelMulti), the count in *deleted.
//
//export ephpmKvDelMulti
func ephpmKvDelMulti(n C.size_t, keys *C.ephpm_ckey, keyLens *C.ephpm_csize, deleted *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ks, kl := unsafe.Slice(keys, int(n)), unsafe.Slice(keyLens, int(n))
	names := make([]string, len(ks))
	for i := range ks {
		names[i] = goString(ks[i], kl[i])
	}
	count, err := kv.DelMulti(engine(), names)
	*deleted = C.int64_t(count)
	return boolRC(true, err, cerr)
}

// ephpmKvDelIfEq is given a CLOCK_MONOTONIC_COARSE reading by its C
// adapter (ops_table.c): the shared engine checks a lock's deadline with it.
//
//export ephpmKvDelIfEq
func ephpmKvDelIfEq(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, coarse C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	var ok bool
	var err error
	switch e := engine().(type) {
	case *shm.Engine:
		ok, err = e.DelIfEqCoarse(goString(key, keyLen), goBytes(token, tokenLen), int64(coarse))
	default:
		ok, err = e.DelIfEq(goString(key, keyLen), goBytes(token, tokenLen))
	}
	return boolRC(ok, err, cerr)
}

//export ephpmKvExists
func ephpmKvExists(key *C.ephpm_cchar, keyLen C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := engine().Exists(goString(key, keyLen))
	return boolRC(ok, err, cerr)
}

//export ephpmKvExpire
func ephpmKvExpire(key *C.ephpm_cchar, keyLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := engine().Expire(goString(key, keyLen), time.Duration(ttl))
	return boolRC(ok, err, cerr)
}

//export ephpmKvExpireIfEq
func ephpmKvExpireIfEq(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, ttl C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := engine().ExpireIfEq(goString(key, keyLen), goBytes(token, tokenLen), time.Duration(ttl))
	return boolRC(ok, err, cerr)
}

//export ephpmKvTTL
func ephpmKvTTL(key *C.ephpm_cchar, keyLen C.size_t, out *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ttl, err := engine().TTL(goString(key, keyLen))
	return ttlRC(ttl, err, out, cerr)
}

//export ephpmKvTTLIfEq
func ephpmKvTTLIfEq(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, out *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ttl, err := engine().TTLIfEq(goString(key, keyLen), goBytes(token, tokenLen))
	return ttlRC(ttl, err, out, cerr)
}

// ttlRC reports a TTL result: 1 and the ns left (or TTLPersistent) for a
// live key, 0 and TTLMissing otherwise.
func ttlRC(ttl time.Duration, err error, out *C.int64_t, cerr *C.ephpm_kv_error) C.int {
	if err != nil {
		return fail(cerr, err)
	}
	*out = C.int64_t(ttl)
	return boolRC(ttl != kv.TTLMissing, nil, cerr)
}

//export ephpmKvSetnxFenced
func ephpmKvSetnxFenced(key *C.ephpm_cchar, keyLen C.size_t, val *C.ephpm_cchar, valLen C.size_t, ttl C.int64_t, fence *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	f, ok, err := engine().SetNXFenced(goString(key, keyLen), goBytes(val, valLen), time.Duration(ttl))
	*fence = C.int64_t(f)
	return boolRC(ok, err, cerr)
}

//export ephpmKvFence
func ephpmKvFence(resource *C.ephpm_cchar, resourceLen C.size_t, fence C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := engine().Fence(goString(resource, resourceLen), int64(fence))
	return boolRC(ok, err, cerr)
}

//export ephpmKvIncr
func ephpmKvIncr(key *C.ephpm_cchar, keyLen C.size_t, by C.int64_t, ttl C.int64_t, out *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	n, err := engine().Incr(goString(key, keyLen), int64(by), time.Duration(ttl))
	if err != nil {
		return fail(cerr, err)
	}
	*out = C.int64_t(n)
	return 0
}

//export ephpmKvFlush
func ephpmKvFlush(cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	return boolRC(true, engine().Flush(), cerr)
}

//export ephpmKvStats
func ephpmKvStats(out *C.ephpm_kv_stats, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	st, err := engine().Stats()
	if err != nil {
		return fail(cerr, err)
	}
	// The struct is kv.StatsFields' counters in order, all int64_t (its
	// size is checked in limits.go, its members in vocabulary_test.go).
	counters := (*[len(kv.StatsFields)]C.int64_t)(unsafe.Pointer(out))
	for i, f := range kv.StatsFields {
		counters[i] = C.int64_t(*f.Of(&st))
	}
	return 0
}

//export ephpmKvLockAndGet
func ephpmKvLockAndGet(lock *C.ephpm_cchar, lockLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, lockTTL C.int64_t, key *C.ephpm_cchar, keyLen C.size_t, buf *C.char, bufCap C.size_t, outLen *C.size_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	acquired, n, found, err := kv.LockAndGet(engine(), goString(lock, lockLen), goBytes(token, tokenLen), time.Duration(lockTTL), goString(key, keyLen), goBuf(buf, bufCap))
	*outLen = C.size_t(n)
	switch {
	case err != nil:
		return fail(cerr, err)
	case !acquired:
		return 0
	case !found:
		return 1
	}
	return 2
}

//export ephpmKvSetIfLocked
func ephpmKvSetIfLocked(key *C.ephpm_cchar, keyLen C.size_t, val *C.ephpm_cchar, valLen C.size_t, ttl C.int64_t, lock *C.ephpm_cchar, lockLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, lockTTL C.int64_t, release C.int, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	ok, err := kv.SetIfLocked(engine(), goString(key, keyLen), goBytes(val, valLen), time.Duration(ttl), goString(lock, lockLen), goBytes(token, tokenLen), time.Duration(lockTTL), release != 0)
	return boolRC(ok, err, cerr)
}

// ephpmKvWaitRelease returns 1 when woken, 0 when timed out, 2 when the engine
// cannot wait on a key (the caller sleeps its own backoff).
//
//export ephpmKvWaitRelease
func ephpmKvWaitRelease(key *C.ephpm_cchar, keyLen C.size_t, timeout C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	w, ok := engine().(kv.ReleaseWaiter)
	if !ok {
		return 2
	}
	if timeout <= 0 {
		return 0
	}
	woken, err := w.WaitRelease(goString(key, keyLen), time.Duration(timeout))
	return boolRC(woken, err, cerr)
}
