package etcdkv

import (
	"context"
	"encoding/binary"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ephpm/ephpm-kv/kv"
)

// Fences are the create revisions of keys (SetNXFenced), so every fence
// issued before a Flush is below the Flush's own revision: Flush puts the
// floor key in the transaction that deletes, and its mod revision is the
// floor. Fence refuses a fence at or below it, in the transaction that
// checks the record, so a fence refused before a Flush is refused after it.

// sweepBatch fence records are deleted per transaction: under etcd's
// --max-txn-ops (128 by default), for compares and deletes alike.
const sweepBatch = 64

// fenceBytes orders like the int64: sign bit flipped, big-endian, so
// etcd's byte-wise value compare is the numeric one.
func fenceBytes(f int64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(f)^(1<<63))
	return string(b[:])
}

// Fence implements kv.Engine: compare-and-raise in one transaction. When
// the recorded fence is larger, nothing is written (stale); otherwise
// (absent: etcd fails a value compare on a missing key) the nested
// transaction records fence unless the floor is at or above it. The
// compare is mod revision > fence-1, held at 0 or more so that it cannot
// wrap, and a missing floor (mod revision 0) refuses nothing.
func (e *Engine) Fence(resource string, fence int64) (bool, error) {
	if err := kv.CheckKey(resource); err != nil {
		return false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	k, v := e.fencePrefix+resource, fenceBytes(fence)
	belowFloor := clientv3.Compare(clientv3.ModRevision(e.floorKey), ">", max(fence-1, 0))
	r, err := cl.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(k), ">", v)).
		Else(clientv3.OpTxn([]clientv3.Cmp{belowFloor}, nil, []clientv3.Op{clientv3.OpPut(k, v)})).
		Commit()
	if err != nil {
		return false, e.fail("fence", err)
	}
	return !r.Succeeded && !r.Responses[0].GetResponseTxn().Succeeded, nil
}

// Flush implements kv.Engine: everything under the prefix but the fence
// records and the floor, nothing else, in one transaction that raises the
// floor above every fence issued. The records at or below the floor,
// which refuse nothing the floor does not, are deleted after it; those
// above it (fences that came from elsewhere) stay.
func (e *Engine) Flush() error {
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return err
	}
	defer cancel()
	prefixEnd := clientv3.GetPrefixRangeEnd(e.cfg.Prefix)
	fenceEnd := clientv3.GetPrefixRangeEnd(e.fencePrefix) // below floorKey: "f0" < "floor"
	r, err := cl.Txn(ctx).Then(
		clientv3.OpDelete(e.cfg.Prefix, clientv3.WithRange(e.fencePrefix)),
		clientv3.OpDelete(fenceEnd, clientv3.WithRange(e.floorKey)),
		clientv3.OpDelete(e.floorKey+"\x00", clientv3.WithRange(prefixEnd)),
		clientv3.OpPut(e.floorKey, ""),
	).Commit()
	if err != nil {
		return e.fail("flush", err)
	}
	return e.sweepFences(ctx, cl, r.Header.Revision)
}

// sweepFences deletes the fence records at or below floor, each only
// while its mod revision is the one read: a Fence since can only have
// raised it above the floor, and then it stays.
func (e *Engine) sweepFences(ctx context.Context, cl *clientv3.Client, floor int64) error {
	end, limit := clientv3.GetPrefixRangeEnd(e.fencePrefix), fenceBytes(floor)
	from, rev := e.fencePrefix, int64(0)
	for {
		r, err := cl.Get(ctx, from, clientv3.WithRange(end), clientv3.WithRev(rev), clientv3.WithLimit(sweepBatch))
		if err != nil {
			return e.fail("flush", err)
		}
		rev = r.Header.Revision
		var cmps []clientv3.Cmp
		var dels []clientv3.Op
		for _, rec := range r.Kvs {
			if string(rec.Value) <= limit {
				cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(string(rec.Key)), "=", rec.ModRevision))
				dels = append(dels, clientv3.OpDelete(string(rec.Key)))
			}
		}
		if err := e.deleteUnchanged(ctx, cl, cmps, dels); err != nil {
			return err
		}
		if !r.More || len(r.Kvs) == 0 {
			return nil
		}
		from = string(r.Kvs[len(r.Kvs)-1].Key) + "\x00"
	}
}

// deleteUnchanged runs dels[i] while cmps[i] holds: all in one
// transaction, or, when one no longer holds (or the cluster allows fewer
// operations per transaction), each in its own.
func (e *Engine) deleteUnchanged(ctx context.Context, cl *clientv3.Client, cmps []clientv3.Cmp, dels []clientv3.Op) error {
	if len(dels) == 0 {
		return nil
	}
	r, err := cl.Txn(ctx).If(cmps...).Then(dels...).Commit()
	if err == nil && r.Succeeded {
		return nil
	}
	if err != nil && rpctypes.Error(err) != rpctypes.ErrTooManyOps {
		return e.fail("flush", err)
	}
	for i := range dels {
		if _, err := cl.Txn(ctx).If(cmps[i]).Then(dels[i]).Commit(); err != nil {
			return e.fail("flush", err)
		}
	}
	return nil
}
