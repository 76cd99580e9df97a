package etcdkv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ephpm/ephpm-kv/kv"
)

// The rate limiter's log is one key: magic 'R', version 1, then the
// admitted calls' times (int64 Unix ns, big-endian), oldest first, only
// those still in the window. It is read, decided on, and written back with
// a compare on its mod revision (tried again when another call wrote in
// between), on a shared etcd lease (leasebook.go) of the window: the key
// expires one window (and up to a second, or a 64th of a long window) after
// its latest admitted call, on the server's clock.
//
// The times are the calling host's wall clock: etcd has none a client can
// read finer than a lease's whole seconds, and an exact sliding window
// needs the calls' own times. So hosts sharing a limiter must keep their
// clocks in step (NTP): between two hosts whose clocks differ by d, the
// limit holds over any window shortened by d (a host ahead sees the
// others' calls leave the window up to d early); a call recorded with a
// time still to come (a host behind, or a clock stepped back) counts as in
// the window until it has left it, so that only delays admissions.
const rateMagic = "R\x01"

func parseRateLog(v []byte) ([]int64, bool) {
	if len(v) < len(rateMagic) || string(v[:len(rateMagic)]) != rateMagic || (len(v)-len(rateMagic))%8 != 0 {
		return nil, false
	}
	v = v[len(rateMagic):]
	log := make([]int64, len(v)/8)
	for i := range log {
		log[i] = int64(binary.BigEndian.Uint64(v[8*i:]))
	}
	return log, true
}

func rateLogBytes(log []int64) string {
	b := make([]byte, len(rateMagic), len(rateMagic)+8*len(log))
	copy(b, rateMagic)
	for _, t := range log {
		b = binary.BigEndian.AppendUint64(b, uint64(t))
	}
	return string(b)
}

// RateLimit implements kv.RateLimiter. A refused call is one read; an
// admitted one a read and a transaction (and a lease grant, at most once a
// second for each window length).
func (e *Engine) RateLimit(key string, limit int64, window time.Duration) (bool, int64, time.Duration, error) {
	if err := errors.Join(kv.CheckKey(key), kv.CheckRateLimit(limit, window)); err != nil {
		return false, 0, 0, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, 0, 0, err
	}
	defer cancel()
	k := e.dataKey(key)
	for try := 0; ; try++ {
		g, err := cl.Get(ctx, k)
		if err != nil {
			return false, 0, 0, e.fail("rate limit", err)
		}
		// Read after the log: no admitted call is later than now, unless a
		// clock is off. And before the lease is chosen: the key lives at
		// least a window after the call this records.
		now := time.Now().UnixNano()
		var (
			log []int64
			cmp = clientv3.Compare(clientv3.CreateRevision(k), "=", 0)
		)
		if len(g.Kvs) > 0 {
			var ok bool
			if log, ok = parseRateLog(g.Kvs[0].Value); !ok {
				return false, 0, 0, fmt.Errorf("%w: %q", kv.ErrWrongType, key)
			}
			cmp = clientv3.Compare(clientv3.ModRevision(k), "=", g.Kvs[0].ModRevision)
		}
		// The calls still in the window (now-window, ...]; the log is in
		// order, so those that left are a prefix.
		cut := now - int64(window)
		i, _ := slices.BinarySearch(log, cut+1)
		log = log[i:]
		if n := int64(len(log)); n >= limit {
			// Admitted again once the call limit places before the
			// latest has left the window.
			return false, 0, time.Duration(log[n-limit] - cut), nil
		}
		// A shared lease lasting at least a window from now (and at most a
		// second more).
		lease, err := e.sharedFor(ctx, cl, window)
		if err != nil {
			return false, 0, 0, err
		}
		at, _ := slices.BinarySearch(log, now+1) // after equal times: the log stays in order
		log = slices.Insert(log, at, now)
		r, err := cl.Txn(ctx).If(cmp).Then(clientv3.OpPut(k, rateLogBytes(log), clientv3.WithLease(lease.id))).Commit()
		if e.lostLease(err) {
			continue
		}
		if err != nil {
			return false, 0, 0, e.fail("rate limit", err)
		}
		if !r.Succeeded {
			if err := e.conflict(ctx, "rate limit", try); err != nil {
				return false, 0, 0, err
			}
			continue
		}
		return true, limit - int64(len(log)), 0, nil
	}
}
