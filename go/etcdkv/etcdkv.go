// Package etcdkv is a kv.Engine on an etcd cluster (ephpm.server =
// etcd://host1:port1,host2:port2,host3:port3): locks as strong as etcd's
// consensus, for PHP on several hosts.
//
// Every operation is one etcd transaction, or a lease grant followed by
// one; what decides (the compare) and what acts are always in the same
// transaction. An expiring key carries a lease of its own (never shared),
// so revoking a lease a key no longer uses touches nothing else.
//
// Keys live under a prefix ("ephpm/" by default): data under prefix+"k/",
// fence records under prefix+"f/", lease holders under prefix+"l/"
// (lease.go), the fence floor at prefix+"floor". Flush deletes the prefix
// only, so an etcd cluster shared with other software is not wiped.
//
// Any failure to reach a quorum within the timeout is kv.ErrUnavailable,
// never a guessed answer: a timed-out SetNX may have landed, and is then
// undone (undo.go), so it never makes a refusal.
package etcdkv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ephpm/ephpm-kv/kv"
)

// Defaults of Config.
const (
	DefaultPrefix = "ephpm/"
	// DefaultMaxValueSize leaves room for a 64 KiB key and the request's
	// framing under etcd's request limit (--max-request-bytes, 1.5 MiB by
	// default).
	DefaultMaxValueSize = 1 << 20
	// DefaultBytesLimit is etcd's default --quota-backend-bytes (2 GiB),
	// which a client cannot read: Stats reports what Config says.
	DefaultBytesLimit = 2 << 30
)

// Config says where the cluster is and how the engine uses it.
type Config struct {
	Endpoints      []string
	User, Password string        // etcd authentication; empty User: none
	Timeout        time.Duration // for a whole operation (ephpm.server_timeout); 1 s if 0
	Prefix         string        // every key lives under it; DefaultPrefix if empty
	MaxValueSize   int64         // DefaultMaxValueSize if 0
	BytesLimit     int64         // reported by Stats; DefaultBytesLimit if 0

	dial []grpc.DialOption // tests: faults injected into the client's calls
}

// Engine implements kv.Engine on an etcd cluster. Its client (and the
// client's goroutines) starts on first use, never in New: a PHP master that
// forks workers must not have started them.
type Engine struct {
	cfg                     Config
	dataPrefix, fencePrefix string
	// Its mod revision is the last Flush's: Fence refuses every fence up
	// to it (fence.go).
	floorKey string

	mu sync.Mutex
	cl *clientv3.Client

	// Counted by this process only: etcd keeps no such counters.
	hits, misses, rejected atomic.Int64
	// Lease and rate-limit writes another write beat, tried again.
	conflicts atomic.Int64
	book      leaseBook // shared leases of the lease and rate-limit keys
	undo      undoBook  // leases of lost SetNX attempts (undo.go)
}

var _ kv.Engine = (*Engine)(nil)

// New returns an engine for cfg without contacting the cluster.
func New(cfg Config) (*Engine, error) {
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("etcdkv: no endpoint")
	}
	if cfg.Password != "" && cfg.User == "" {
		return nil, errors.New("etcd authentication needs a user name: etcd://user@host:port,... with the password in ephpm.server_password")
	}
	// The client authenticates only with both: a user alone would run
	// unauthenticated, silently (etcd 3.4 has no password-less users).
	if cfg.User != "" && cfg.Password == "" {
		return nil, fmt.Errorf("etcd authentication as %q needs its password in ephpm.server_password", cfg.User)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Second
	}
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	if cfg.MaxValueSize <= 0 {
		cfg.MaxValueSize = DefaultMaxValueSize
	}
	if cfg.BytesLimit <= 0 {
		cfg.BytesLimit = DefaultBytesLimit
	}
	return &Engine{cfg: cfg, dataPrefix: cfg.Prefix + "k/", fencePrefix: cfg.Prefix + "f/", floorKey: cfg.Prefix + "floor"}, nil
}

// NewFromURL is New for an ephpm.server value and its password.
func NewFromURL(url, password string, timeout time.Duration) (*Engine, error) {
	endpoints, user, err := ParseAddress(url)
	if err != nil {
		return nil, err
	}
	return New(Config{Endpoints: endpoints, User: user, Password: password, Timeout: timeout})
}

// Close stops the client, if it started.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cl == nil {
		return nil
	}
	err := e.cl.Close()
	e.cl = nil
	return err
}

// client starts the etcd client on first use. It dials lazily too: an
// unreachable cluster shows as the first operation's timeout.
func (e *Engine) client() (*clientv3.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cl != nil {
		return e.cl, nil
	}
	cl, err := clientv3.New(clientv3.Config{
		Endpoints:   e.cfg.Endpoints,
		Username:    e.cfg.User,
		Password:    e.cfg.Password,
		DialTimeout: e.cfg.Timeout,
		// A silent member is noticed between operations, not in one.
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: e.cfg.Timeout,
		MaxCallSendMsgSize:   e.maxRequest(),
		Logger:               zap.NewNop(),
		DialOptions:          e.cfg.dial,
	})
	if err != nil {
		return nil, e.fail("connect", err)
	}
	e.cl = cl
	return cl, nil
}

// maxRequest bounds what the client sends: the largest request an
// operation makes from arguments the engine accepts (a session write: a
// value, a token compared, and its two keys five times), so the cluster's
// --max-request-bytes decides what is too large, not a client-side limit
// that a refresh of a large token would hit.
func (e *Engine) maxRequest() int {
	return int(2*e.cfg.MaxValueSize) + 5*(kv.MaxKeySize+len(e.dataPrefix)) + 4096
}

// op is one operation's client and deadline: the whole operation, every
// round trip of it, within the timeout.
func (e *Engine) op() (*clientv3.Client, context.Context, context.CancelFunc, error) {
	cl, err := e.client()
	if err != nil {
		return nil, nil, nil, err
	}
	// WithRequireLeader: a member cut off from the quorum refuses at once
	// instead of holding the request until the deadline.
	ctx, cancel := context.WithTimeout(clientv3.WithRequireLeader(context.Background()), e.cfg.Timeout)
	return cl, ctx, cancel, nil
}

// fail maps an etcd error to the kv errors callers test for.
func (e *Engine) fail(what string, err error) error {
	switch rpctypes.Error(err) {
	case rpctypes.ErrRequestTooLarge:
		return fmt.Errorf("%w: etcd refused the request as too large (its --max-request-bytes): %v", kv.ErrValueTooLarge, err)
	case rpctypes.ErrNoSpace:
		e.rejected.Add(1)
		return fmt.Errorf("%w: etcd's database is over its quota (--quota-backend-bytes); an operator must compact, defragment and disarm the NOSPACE alarm: %v", kv.ErrFull, err)
	}
	// gRPC's own message limits (the client's, or a member's, which is
	// --max-request-bytes plus 512 KiB): refused whole, nothing ran.
	if s, ok := status.FromError(err); ok && s.Code() == codes.ResourceExhausted && strings.Contains(s.Message(), "larger than max") {
		return fmt.Errorf("%w: the request is larger than gRPC allows (etcd's --max-request-bytes): %v", kv.ErrValueTooLarge, err)
	}
	return fmt.Errorf("%w: etcd %s on %s: %v (the operation may have happened)", kv.ErrUnavailable, what, strings.Join(e.cfg.Endpoints, ","), err)
}

func (e *Engine) dataKey(key string) string { return e.dataPrefix + key }

func (e *Engine) checkValue(v []byte) error {
	if int64(len(v)) > e.cfg.MaxValueSize {
		return fmt.Errorf("%w: %d bytes, the etcd backend's limit is %d (etcd's requests are small: keep large values elsewhere)",
			kv.ErrValueTooLarge, len(v), e.cfg.MaxValueSize)
	}
	return nil
}

// tooLong reports whether token is one no stored value can equal.
func (e *Engine) tooLong(token []byte) bool { return int64(len(token)) > e.cfg.MaxValueSize }

// leaseSeconds is ttl as an etcd lease: whole seconds, rounded up, so a
// lock never lives shorter than asked. The server raises it to its own
// minimum (1.5 election timeouts, in whole seconds); TTL reports the lease.
func leaseSeconds(ttl time.Duration) int64 {
	return int64((ttl + time.Second - 1) / time.Second)
}

// grant returns a new lease for ttl, or no lease for 0.
func (e *Engine) grant(ctx context.Context, cl *clientv3.Client, ttl time.Duration) (clientv3.LeaseID, error) {
	if ttl == 0 {
		return clientv3.NoLease, nil
	}
	r, err := cl.Grant(ctx, leaseSeconds(ttl))
	if err != nil {
		return 0, e.fail("lease grant", err)
	}
	return r.ID, nil
}

// revokeLater revokes leases no key uses any more (a displaced key's, or
// one granted for a write that did not happen), in the background: it
// frees the server's memory early and decides nothing, so the caller does
// not wait for it. A revoke that never runs leaves the lease to expire.
// Never called after a write that failed with an error: it may have
// landed, and revoking its lease would delete the key (a refreshed lock,
// before its old ttl ran out); a lost SetNX is undone on purpose, with
// abandon (undo.go). Shared leases (leasebook.go) are passed by.
func (e *Engine) revokeLater(cl *clientv3.Client, ids ...clientv3.LeaseID) {
	for _, id := range ids {
		if id == clientv3.NoLease || isShared(id) { // other keys may be on a shared one
			continue
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), e.cfg.Timeout)
			defer cancel()
			cl.Revoke(ctx, id) //nolint:errcheck // best effort, see above
		}()
	}
}

// displaced is the lease of a key's previous version when the write gave
// the key another one.
type mvccpbKV = mvccpb.KeyValue

func displaced(prev []*mvccpbKV, now clientv3.LeaseID) clientv3.LeaseID {
	if len(prev) == 0 || clientv3.LeaseID(prev[0].Lease) == now {
		return clientv3.NoLease
	}
	return clientv3.LeaseID(prev[0].Lease)
}

func checkKeys(keys ...string) error {
	for _, k := range keys {
		if err := kv.CheckKey(k); err != nil {
			return err
		}
	}
	return nil
}

func checkTTLs(ttls ...time.Duration) error {
	for _, d := range ttls {
		if err := kv.CheckTTL(d); err != nil {
			return err
		}
	}
	return nil
}

// Get implements kv.Engine. A read too large for dst counts as neither hit
// nor miss: the second call, with a buffer that fits, counts.
func (e *Engine) Get(key string, dst []byte) (int, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return 0, false, err
	}
	defer cancel()
	r, err := cl.Get(ctx, e.dataKey(key))
	if err != nil {
		return 0, false, e.fail("get", err)
	}
	if len(r.Kvs) == 0 {
		e.misses.Add(1)
		return 0, false, nil
	}
	v := r.Kvs[0].Value
	if len(v) <= len(dst) {
		copy(dst, v)
		e.hits.Add(1)
	}
	return len(v), true, nil
}

// Set implements kv.Engine: one put, with a new lease for a ttl.
func (e *Engine) Set(key string, value []byte, ttl time.Duration) error {
	if err := errors.Join(kv.CheckKey(key), e.checkValue(value), kv.CheckTTL(ttl)); err != nil {
		return err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return err
	}
	defer cancel()
	lease, err := e.grant(ctx, cl, ttl)
	if err != nil {
		return err
	}
	r, err := cl.Put(ctx, e.dataKey(key), string(value), clientv3.WithLease(lease), clientv3.WithPrevKV())
	if err != nil {
		return e.fail("put", err)
	}
	if r.PrevKv != nil {
		e.revokeLater(cl, displaced([]*mvccpbKV{r.PrevKv}, lease))
	}
	return nil
}

// setNX is the acquisition: one transaction that puts key only when it
// does not exist (create revision 0), under a new lease of ttl. Its
// revision is the key's create revision: the fence. Refused because a
// lost attempt of this engine holds the key, it undoes that attempt and
// tries again (undo.go): a refusal means another caller holds the key.
func (e *Engine) setNX(key string, value []byte, ttl time.Duration) (int64, bool, error) {
	if err := errors.Join(kv.CheckKey(key), e.checkValue(value), kv.CheckTTL(ttl)); err != nil {
		return 0, false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return 0, false, err
	}
	defer cancel()
	lease, err := e.grant(ctx, cl, ttl)
	if err != nil {
		return 0, false, err
	}
	k := e.dataKey(key)
	for {
		r, err := cl.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
			Then(clientv3.OpPut(k, string(value), clientv3.WithLease(lease))).
			Else(clientv3.OpGet(k, clientv3.WithKeysOnly())).
			Commit()
		if err != nil {
			e.abandon(cl, lease) // it may have landed, or land later
			return 0, false, e.fail("setnx", err)
		}
		if r.Succeeded {
			return r.Header.Revision, true, nil
		}
		held := r.Responses[0].GetResponseRange().Kvs
		if len(held) == 0 || !e.abandoned(clientv3.LeaseID(held[0].Lease)) {
			e.revokeLater(cl, lease)
			return 0, false, nil
		}
		// Held by a lost attempt of ours, nobody's lock: undone (if the
		// background loop has not done it since), then tried again.
		if err := e.revokeAbandoned(ctx, cl, clientv3.LeaseID(held[0].Lease)); err != nil {
			e.revokeLater(cl, lease) // refused, unused
			return 0, false, err
		}
	}
}

// SetNX implements kv.Engine.
func (e *Engine) SetNX(key string, value []byte, ttl time.Duration) (bool, error) {
	_, ok, err := e.setNX(key, value, ttl)
	return ok, err
}

// SetNXFenced implements kv.Engine. The fence is the key's create
// revision: etcd's revision counter is one for the whole cluster, only
// grows (across leader changes, and across Flush), and the put that
// creates the key takes the next one.
func (e *Engine) SetNXFenced(key string, value []byte, ttl time.Duration) (int64, bool, error) {
	return e.setNX(key, value, ttl)
}

// Del implements kv.Engine.
func (e *Engine) Del(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	r, err := cl.Delete(ctx, e.dataKey(key), clientv3.WithPrevKV())
	if err != nil {
		return false, e.fail("delete", err)
	}
	e.revokeLater(cl, displaced(r.PrevKvs, clientv3.NoLease))
	return r.Deleted > 0, nil
}

// DelIfEq implements kv.Engine: the release, one transaction comparing
// the value and deleting. A missing key fails the compare (etcd never
// matches a value compare on a key that does not exist).
func (e *Engine) DelIfEq(key string, token []byte) (bool, error) {
	if err := kv.CheckKey(key); err != nil || e.tooLong(token) {
		return false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	k := e.dataKey(key)
	r, err := cl.Txn(ctx).
		If(clientv3.Compare(clientv3.Value(k), "=", string(token))).
		Then(clientv3.OpDelete(k, clientv3.WithPrevKV())).
		Commit()
	if err != nil {
		return false, e.fail("del_if_eq", err)
	}
	if !r.Succeeded {
		return false, nil
	}
	e.revokeLater(cl, displaced(r.Responses[0].GetResponseDeleteRange().PrevKvs, clientv3.NoLease))
	return true, nil
}

// Exists implements kv.Engine.
func (e *Engine) Exists(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	r, err := cl.Get(ctx, e.dataKey(key), clientv3.WithCountOnly())
	if err != nil {
		return false, e.fail("exists", err)
	}
	return r.Count > 0, nil
}

// Expire implements kv.Engine. etcd changes a key's lease only with a put:
// one that keeps the value (IgnoreValue), under a compare on the revision
// read (retried when another write came in between).
func (e *Engine) Expire(key string, ttl time.Duration) (bool, error) {
	if err := errors.Join(kv.CheckKey(key), kv.CheckTTL(ttl)); err != nil {
		return false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	k := e.dataKey(key)
	for {
		g, err := cl.Get(ctx, k)
		if err != nil {
			return false, e.fail("expire", err)
		}
		if len(g.Kvs) == 0 {
			return false, nil
		}
		cur := g.Kvs[0]
		lease, err := e.grant(ctx, cl, ttl)
		if err != nil {
			return false, err
		}
		r, err := cl.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", cur.ModRevision)).
			Then(clientv3.OpPut(k, "", clientv3.WithIgnoreValue(), clientv3.WithLease(lease))).
			Commit()
		if err != nil {
			return false, e.fail("expire", err)
		}
		if r.Succeeded {
			e.revokeLater(cl, displaced([]*mvccpbKV{cur}, lease))
			return true, nil
		}
		e.revokeLater(cl, lease)
	}
}

// ExpireIfEq implements kv.Engine: the refresh. A new lease of ttl, then
// one transaction that, while the value is the token, puts the key under
// it, value unchanged (IgnoreValue: the token is sent once, for the
// compare, so any token SetNX took can be refreshed). Chosen over a keep-alive of the key's lease: it is one compare
// on the value like every owner-only step (a keep-alive needs the lease id
// read first, and can only restore the lease's first TTL, not a new one),
// and a put on an existing key keeps its create revision, so the lock's
// fence does not change.
func (e *Engine) ExpireIfEq(key string, token []byte, ttl time.Duration) (bool, error) {
	if err := errors.Join(kv.CheckKey(key), kv.CheckTTL(ttl)); err != nil || e.tooLong(token) {
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
		If(clientv3.Compare(clientv3.Value(k), "=", string(token))).
		Then(clientv3.OpGet(k, clientv3.WithKeysOnly()), clientv3.OpPut(k, "", clientv3.WithIgnoreValue(), clientv3.WithLease(lease))).
		Commit()
	if err != nil {
		return false, e.fail("expire_if_eq", err)
	}
	if !r.Succeeded {
		e.revokeLater(cl, lease)
		return false, nil
	}
	e.revokeLater(cl, displaced(r.Responses[0].GetResponseRange().Kvs, lease))
	return true, nil
}

// ttlOf reads key and its lease's time left; match, when not nil, must
// accept the value. etcd reports a lease's time left in whole seconds,
// truncated: what TTL reports is never more than is left.
func (e *Engine) ttlOf(key string, match func([]byte) bool) (time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return 0, err
	}
	defer cancel()
	k := e.dataKey(key)
	for {
		g, err := cl.Get(ctx, k)
		if err != nil {
			return 0, e.fail("ttl", err)
		}
		if len(g.Kvs) == 0 || (match != nil && !match(g.Kvs[0].Value)) {
			return kv.TTLMissing, nil
		}
		lease := clientv3.LeaseID(g.Kvs[0].Lease)
		if lease == clientv3.NoLease {
			return kv.TTLPersistent, nil
		}
		l, err := cl.TimeToLive(ctx, lease)
		if err != nil {
			return 0, e.fail("ttl", err)
		}
		switch {
		case l.TTL > 0:
			return time.Duration(l.TTL) * time.Second, nil
		case l.TTL == 0 || l.GrantedTTL > 0:
			// Its last second (etcd truncates), or expired but not yet
			// revoked (the leader revokes in batches): still held, so
			// never 0, which passed back as a TTL means "no expiry".
			return time.Millisecond, nil
		}
		// The lease is gone: the key went with it, or was given another
		// lease after the read. Read again.
	}
}

// TTL implements kv.Engine.
func (e *Engine) TTL(key string) (time.Duration, error) { return e.ttlOf(key, nil) }

// TTLIfEq implements kv.Engine.
func (e *Engine) TTLIfEq(key string, token []byte) (time.Duration, error) {
	if e.tooLong(token) {
		return kv.TTLMissing, kv.CheckKey(key)
	}
	return e.ttlOf(key, func(v []byte) bool { return string(v) == string(token) })
}

// Incr implements kv.Engine: read, then a transaction that writes only if
// the key is still as read (its mod revision; or still absent), retried on
// what the failed one found until one is. An existing counter keeps its lease (WithIgnoreLease).
func (e *Engine) Incr(key string, by int64, ttl time.Duration) (int64, error) {
	if err := errors.Join(kv.CheckKey(key), kv.CheckTTL(ttl)); err != nil {
		return 0, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return 0, err
	}
	defer cancel()
	k := e.dataKey(key)
	lease := clientv3.NoLease // granted once, when the key is first found absent
	defer func() { e.revokeLater(cl, lease) }()
	g, err := cl.Get(ctx, k)
	if err != nil {
		return 0, e.fail("incr", err)
	}
	kvs := g.Kvs
	for {
		if len(kvs) == 0 {
			if lease == clientv3.NoLease {
				if lease, err = e.grant(ctx, cl, ttl); err != nil {
					return 0, err
				}
			}
			r, err := cl.Txn(ctx).
				If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
				Then(clientv3.OpPut(k, strconv.FormatInt(by, 10), clientv3.WithLease(lease))).
				Else(clientv3.OpGet(k)).
				Commit()
			if err != nil {
				lease = clientv3.NoLease // it may have landed: left to expire
				return 0, e.fail("incr", err)
			}
			if r.Succeeded {
				lease = clientv3.NoLease // the key's now: not revoked
				return by, nil
			}
			kvs = r.Responses[0].GetResponseRange().Kvs
			continue
		}
		cur := kvs[0]
		n, err := parseCounter(cur.Value)
		if err != nil {
			return 0, err
		}
		if (by > 0 && n > maxInt64-by) || (by < 0 && n < minInt64-by) {
			return 0, fmt.Errorf("%w: %d + %d", kv.ErrOverflow, n, by)
		}
		n += by
		// Lost to another writer: the Else hands back what it wrote, so a
		// retry under contention costs one round of consensus, not two.
		r, err := cl.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", cur.ModRevision)).
			Then(clientv3.OpPut(k, strconv.FormatInt(n, 10), clientv3.WithIgnoreLease())).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			return 0, e.fail("incr", err)
		}
		if r.Succeeded {
			return n, nil
		}
		kvs = r.Responses[0].GetResponseRange().Kvs
	}
}

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)

// parseCounter accepts only the canonical decimal form, as every engine.
func parseCounter(v []byte) (int64, error) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != string(v) {
		return 0, kv.ErrNotInteger
	}
	return n, nil
}

// SetIfLocked implements kv.LockedSetter, in one transaction: while the lock's
// value is token, put the data and renew the lock (or delete it, for
// release). Stronger than the contract asks: nothing can slip in between.
func (e *Engine) SetIfLocked(key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration, release bool) (bool, error) {
	if err := errors.Join(checkKeys(key, lock), e.checkValue(value), checkTTLs(ttl, lockTTL)); err != nil {
		return false, err
	}
	if key == lock {
		return false, fmt.Errorf("etcdkv: a session's data and its lock need two keys (both %q)", key)
	}
	if e.tooLong(token) {
		return false, nil
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	dataLease, err := e.grant(ctx, cl, ttl)
	if err != nil {
		return false, err
	}
	lockLease := clientv3.NoLease
	if !release {
		if lockLease, err = e.grant(ctx, cl, lockTTL); err != nil {
			e.revokeLater(cl, dataLease)
			return false, err
		}
	}
	dk, lk := e.dataKey(key), e.dataKey(lock)
	then := []clientv3.Op{
		clientv3.OpGet(dk, clientv3.WithKeysOnly()),
		clientv3.OpGet(lk, clientv3.WithKeysOnly()),
		clientv3.OpPut(dk, string(value), clientv3.WithLease(dataLease)),
	}
	if release {
		then = append(then, clientv3.OpDelete(lk))
	} else {
		then = append(then, clientv3.OpPut(lk, "", clientv3.WithIgnoreValue(), clientv3.WithLease(lockLease)))
	}
	r, err := cl.Txn(ctx).If(clientv3.Compare(clientv3.Value(lk), "=", string(token))).Then(then...).Commit()
	if err != nil {
		return false, e.fail("session write", err)
	}
	if !r.Succeeded {
		e.revokeLater(cl, dataLease, lockLease)
		return false, nil
	}
	e.revokeLater(cl,
		displaced(r.Responses[0].GetResponseRange().Kvs, dataLease),
		displaced(r.Responses[1].GetResponseRange().Kvs, lockLease))
	return true, nil
}

// Stats implements kv.Engine, as far as etcd tells: Keys and BytesUsed
// (keys and values as stored, without etcd's own overhead) are exact at one
// revision, read by scanning the prefix (a cost that grows with the
// store); Hits, Misses and Rejected are this process's; etcd expires
// leases itself, unseen by clients (Expired 0), compresses nothing, and
// does not tell a client its quota (BytesLimit is Config's).
func (e *Engine) Stats() (kv.Stats, error) {
	st := kv.Stats{
		BytesLimit:   e.cfg.BytesLimit,
		Hits:         e.hits.Load(),
		Misses:       e.misses.Load(),
		Rejected:     e.rejected.Load(),
		MaxValueSize: e.cfg.MaxValueSize,
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return kv.Stats{}, err
	}
	defer cancel()
	end := clientv3.GetPrefixRangeEnd(e.dataPrefix)
	from, rev := e.dataPrefix, int64(0)
	for {
		r, err := cl.Get(ctx, from, clientv3.WithRange(end), clientv3.WithRev(rev), clientv3.WithLimit(1000))
		if err != nil {
			return kv.Stats{}, e.fail("stats", err)
		}
		rev = r.Header.Revision
		for _, item := range r.Kvs {
			st.Keys++
			st.BytesUsed += int64(len(item.Key) - len(e.dataPrefix) + len(item.Value))
		}
		if !r.More || len(r.Kvs) == 0 {
			return st, nil
		}
		from = string(r.Kvs[len(r.Kvs)-1].Key) + "\x00"
	}
}
