package etcdkv

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// The lease and rate-limit keys (holders, intents, guards, rate logs) run
// on shared etcd leases: one grant serves every such key, of any name,
// that this engine writes while the lease still covers the key's ttl. A
// grant is a consensus round, as long as the write itself; sharing halves
// an acquire's round trips. A key on a shared lease may outlive its ttl by
// up to a second, or a 64th of its ttl when that is more (the lease is
// granted that much longer than asked, so it can be shared that long):
// later, never sooner. The 64th bounds the leases alive at once, none
// being revoked, to about 64 per length: with a second's slack, a day-long
// window called every second would keep 86400 alive.
//
// A shared lease must never be revoked: that would delete every key on
// it. Their IDs carry sharedTag in their top 16 bits (etcd takes a
// client's ID, and its own are a member's ID bits, then a count), and
// revokeLater passes them by: a plain write that displaces one (a Del or
// Set of a lease key) leaves it to expire.
const sharedTag = 0x4550 // "EP"; positive: a lease ID is an int64

func isShared(id clientv3.LeaseID) bool { return uint64(id)>>48 == sharedTag }

// span bounds when a lease expires, on this process's monotonic clock:
// not before lo (what a key put on it may count on), not after hi, unless
// a leader change renews it (later, never sooner).
type span struct{ lo, hi time.Time }

type sharedLease struct {
	id clientv3.LeaseID
	span
}

// leaseBook is the engine's shared leases, the latest of each length, and
// what it learnt of other leases' expiry (a guard's lease granted by
// another process, read with TimeToLive once).
type leaseBook struct {
	mu     sync.Mutex
	bySecs map[int64]sharedLease
	spans  map[clientv3.LeaseID]span
}

// sharedFor returns a shared lease that lasts at least ttl from now,
// granting one if the book has none.
func (e *Engine) sharedFor(ctx context.Context, cl *clientv3.Client, ttl time.Duration) (sharedLease, error) {
	secs := leaseSeconds(ttl)
	secs += max(1, secs/64)
	b := &e.book
	b.mu.Lock()
	l, ok := b.bySecs[secs]
	b.mu.Unlock()
	if ok && !l.lo.Before(time.Now().Add(ttl)) {
		return l, nil
	}
	for {
		id := clientv3.LeaseID(sharedTag<<48 | rand.Int64N(1<<48))
		sent := time.Now()
		r, err := clientv3.RetryLeaseClient(cl).LeaseGrant(ctx, &pb.LeaseGrantRequest{TTL: secs, ID: int64(id)})
		if rpctypes.Error(err) == rpctypes.ErrLeaseExist {
			continue // a 1-in-2^48 draw, or an etcd ID with our tag
		}
		if err != nil {
			return sharedLease{}, e.fail("lease grant", err)
		}
		if r.Error != "" {
			return sharedLease{}, e.fail("lease grant", errorString(r.Error))
		}
		// r.TTL is what the cluster granted: at least its shortest lease.
		granted := time.Duration(r.TTL) * time.Second
		l = sharedLease{id: id, span: span{lo: sent.Add(granted), hi: time.Now().Add(granted)}}
		b.mu.Lock()
		if b.bySecs == nil {
			b.bySecs, b.spans = map[int64]sharedLease{}, map[clientv3.LeaseID]span{}
		}
		b.bySecs[secs] = l
		b.learn(l.id, l.span)
		b.mu.Unlock()
		return l, nil
	}
}

type errorString string

func (s errorString) Error() string { return string(s) }

// learn records a lease's span; b.mu held. Spans that ended are dropped
// as the book grows.
func (b *leaseBook) learn(id clientv3.LeaseID, s span) {
	if len(b.spans) >= 256 {
		now := time.Now()
		for k, v := range b.spans {
			if v.hi.Before(now) {
				delete(b.spans, k)
			}
		}
		for k := range b.spans { // still full: forget one
			if len(b.spans) < 256 {
				break
			}
			delete(b.spans, k)
		}
	}
	b.spans[id] = s
}

// spanOf bounds id's expiry: from the book, or from TimeToLive (whole
// seconds left, truncated, read somewhere between sent and received),
// then remembered. A lease that is gone has ended by the reply.
func (e *Engine) spanOf(ctx context.Context, cl *clientv3.Client, id clientv3.LeaseID) (span, error) {
	b := &e.book
	b.mu.Lock()
	s, ok := b.spans[id]
	b.mu.Unlock()
	if ok {
		return s, nil
	}
	sent := time.Now()
	r, err := cl.TimeToLive(ctx, id)
	if err != nil {
		return span{}, e.fail("lease ttl", err)
	}
	recv := time.Now()
	if r.TTL < 0 {
		return span{lo: sent, hi: recv}, nil
	}
	left := time.Duration(r.TTL) * time.Second
	s = span{lo: sent.Add(left), hi: recv.Add(left + time.Second)}
	b.mu.Lock()
	if b.spans == nil {
		b.bySecs, b.spans = map[int64]sharedLease{}, map[clientv3.LeaseID]span{}
	}
	b.learn(id, s)
	b.mu.Unlock()
	return s, nil
}

// lostLease reports whether a write named a lease etcd no longer has (revoked
// by someone else: this engine never revokes a shared one). Nothing was
// written; the book forgets its leases, and the caller tries again with new
// ones.
func (e *Engine) lostLease(err error) bool {
	if rpctypes.Error(err) != rpctypes.ErrLeaseNotFound {
		return false
	}
	e.book.mu.Lock()
	clear(e.book.bySecs)
	clear(e.book.spans)
	e.book.mu.Unlock()
	return true
}
