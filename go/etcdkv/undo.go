package etcdkv

import (
	"context"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// A SetNX whose transaction failed with an error may still have landed:
// its answer was lost, or its request sat in a member's socket and commits
// later. The caller was told kv.ErrUnavailable and holds no lock, but the
// key would be held, by nobody, until its ttl: every SetNX of the name,
// the caller's own retry included, refused as if someone held it.
//
// Each SetNX grants a lease for its one write, so revoking that lease
// undoes exactly that write: a key it created goes with it, and a write
// still on its way fails whole (etcd refuses a put on a lease it does not
// have). A key adopted since (ExpireIfEq, Expire, Set, a session write:
// each moves the key to a lease of its own) is no longer on it and stays.
// The engine keeps such leases until etcd confirms each is gone: revoked in
// the background, retried while the cluster does not answer; and a SetNX
// refused by a key on one of them revokes it at once and tries again. So a
// refusal means a key on some other lease: another caller's. A SetNX
// without a ttl has no lease to revoke: what it left stays (locks need a
// ttl anyway). A process that exits first leaves its keys to their ttl.

// undoBook holds the leases of lost SetNX attempts: not yet revoked
// (zero time), or revoked at the time given. A revoked one is remembered
// for a while: a SetNX whose transaction saw the key on it just before
// the revocation must still know the key was a lost attempt's.
type undoBook struct {
	mu      sync.Mutex
	leases  map[clientv3.LeaseID]time.Time
	running bool // a background loop revokes them
}

// undoMemory is how long a revoked lease is remembered: far longer than
// any operation (ephpm.server_timeout) between its transaction's answer
// and its look here.
const undoMemory = time.Minute

// abandon records a lost attempt's lease and makes sure the background
// loop revokes it.
func (e *Engine) abandon(cl *clientv3.Client, id clientv3.LeaseID) {
	if id == clientv3.NoLease {
		return
	}
	b := &e.undo
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.leases == nil {
		b.leases = map[clientv3.LeaseID]time.Time{}
	}
	for old, at := range b.leases {
		if !at.IsZero() && time.Since(at) > undoMemory {
			delete(b.leases, old)
		}
	}
	b.leases[id] = time.Time{}
	if !b.running {
		b.running = true
		go e.undoLoop(cl)
	}
}

// abandoned reports whether id is a lost attempt's lease (revoked or not).
func (e *Engine) abandoned(id clientv3.LeaseID) bool {
	e.undo.mu.Lock()
	defer e.undo.mu.Unlock()
	_, ok := e.undo.leases[id]
	return ok
}

// revokeAbandoned revokes a lost attempt's lease: nil once etcd has it
// no more (revoked now, or before, or expired).
func (e *Engine) revokeAbandoned(ctx context.Context, cl *clientv3.Client, id clientv3.LeaseID) error {
	_, err := cl.Revoke(ctx, id)
	if err != nil && rpctypes.Error(err) != rpctypes.ErrLeaseNotFound {
		return e.fail("revoke of a lost setnx's lease", err)
	}
	e.undo.mu.Lock()
	if at, ok := e.undo.leases[id]; ok && at.IsZero() {
		e.undo.leases[id] = time.Now()
	}
	e.undo.mu.Unlock()
	return nil
}

// undoLoop revokes the abandoned leases until none is left, waiting longer
// between rounds while the cluster does not answer (up to a second). It
// stops when the engine's client is closed: the leases then expire.
func (e *Engine) undoLoop(cl *clientv3.Client) {
	b := &e.undo
	wait := 20 * time.Millisecond
	for {
		e.mu.Lock()
		closed := e.cl != cl
		e.mu.Unlock()
		b.mu.Lock()
		var ids []clientv3.LeaseID
		for id, at := range b.leases {
			if closed {
				delete(b.leases, id)
			} else if at.IsZero() {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			b.running = false
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		left := false
		for _, id := range ids {
			ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
			left = e.revokeAbandoned(ctx, cl, id) != nil || left
			cancel()
		}
		if left {
			time.Sleep(wait)
			wait = min(2*wait, time.Second)
		}
	}
}
