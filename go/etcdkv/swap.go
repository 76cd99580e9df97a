package etcdkv

import (
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ephpm/ephpm-kv/kv"
)

// SetIfEq implements kv.Engine: one transaction that compares the value
// and puts the new one under a new lease of ttl (etcd fails a value
// comparison on a missing key, so an absent key never matches).
func (e *Engine) SetIfEq(key string, value, old []byte, ttl time.Duration) (bool, error) {
	if err := errors.Join(kv.CheckKey(key), e.checkValue(value), kv.CheckTTL(ttl)); err != nil || e.tooLong(old) {
		return false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	lease, err := e.grant(ctx, cl, ttl)
	if err != nil {
		return false, err
	}
	k := e.dataKey(key)
	r, err := cl.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(k), "=", string(old))).
		Then(clientv3.OpGet(k, clientv3.WithKeysOnly()), clientv3.OpPut(k, string(value), clientv3.WithLease(lease))).
		Commit()
	if err != nil {
		return false, e.fail("set_if_eq", err)
	}
	if !r.Succeeded {
		e.revokeLater(cl, lease)
		return false, nil
	}
	e.revokeLater(cl, displaced(r.Responses[0].GetResponseRange().Kvs, lease))
	return true, nil
}
