package remote

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ephpm/ephpm-kv/kv"
)

// Cluster is a kv.Engine on a Redis Cluster: go-redis' ClusterClient finds
// each key's slot and follows MOVED and ASK; the operations are the Lua
// scripts of scripts.go (one source for both paths), each touching keys of
// one slot only. Nothing that may have run is sent again: every command is
// sent with retries off (a MOVED, ASK or READONLY reply, which ran
// nothing, is still followed).
type Cluster struct {
	addr   string
	rdb    *redis.ClusterClient
	peer   *peer // words and classifies errors as the single-server engine does
	mu     sync.Mutex
	ready  bool  // the masters were checked (maxmemory-policy, bulk limit)
	maxVal int64 // the smallest proto-max-bulk-len among the masters

	// A value too large for Get's buffer, kept for the C side's second
	// call (as Engine does), so the read costs one round trip (and one
	// hit). Any other command drops it.
	pendingMu         sync.Mutex
	pendingKey        string
	pendingValue      string
	pendingValueValid bool
}

var _ kv.Engine = (*Cluster)(nil)

// clusterScheme and clusterTLSScheme begin a cluster address:
// redis-cluster://h1:p1,h2:p2 (rediss-cluster:// with TLS).
const (
	clusterScheme    = "redis-cluster://"
	clusterTLSScheme = "rediss-cluster://"
)

// IsClusterAddress reports whether url names a Redis Cluster.
func IsClusterAddress(url string) bool {
	return strings.HasPrefix(url, clusterScheme) || strings.HasPrefix(url, clusterTLSScheme)
}

// NewCluster returns an engine for the Redis Cluster whose seed nodes url
// lists. It connects on first use.
func NewCluster(url, password string, timeout time.Duration, tlsFiles TLSFiles) (*Cluster, error) {
	rest, useTLS := strings.CutPrefix(url, clusterTLSScheme)
	if !useTLS {
		var ok bool
		if rest, ok = strings.CutPrefix(url, clusterScheme); !ok {
			return nil, fmt.Errorf("ephpm.server %q: a Redis Cluster is redis-cluster://host:port,host:port,...", url)
		}
	}
	var seeds []string
	for _, s := range strings.Split(rest, ",") {
		network, addr, err := ParseAddress("tcp://" + s)
		if err != nil || network != "tcp" {
			return nil, fmt.Errorf("ephpm.server %q: seed %q is not host:port (a Redis Cluster is redis-cluster://host:port,host:port,...)", url, s)
		}
		seeds = append(seeds, addr)
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	opt := &redis.ClusterOptions{
		Addrs:           seeds,
		Password:        password,
		DialTimeout:     timeout,
		ReadTimeout:     timeout,
		WriteTimeout:    timeout,
		MaxRetries:      -1,
		Protocol:        2,
		DisableIdentity: true,
		PoolSize:        4, // one PHP thread at a time per process
		// One dial per call: five (the default), each up to timeout,
		// would hold a PHP request five times as long on a dead node.
		DialerRetries: 1,
	}
	switch {
	case useTLS:
		// No server name: each node is checked against the host it is
		// dialed at (tls.DialWithDialer), seeds and the addresses the
		// cluster announces alike, unless ephpm.server_tls_server_name.
		cfg, err := tlsConfig(tlsFiles, "")
		if err != nil {
			return nil, fmt.Errorf("ephpm.server %q: %w", url, err)
		}
		opt.TLSConfig = cfg
	case tlsFiles.set():
		return nil, fmt.Errorf("ephpm.server %q: TLS settings (ephpm.server_tls_*) are given but the address is not rediss-cluster://", url)
	}
	c := &Cluster{addr: url, rdb: redis.NewClusterClient(opt), peer: &peer{addr: url}}
	c.peer.isRedis.Store(true)
	return c, nil
}

// go-redis logs dial failures to stderr, which in PHP is the page or the
// CLI's output; the caller gets each failure as an error instead.
func init() { redis.SetLogger(quiet{}) }

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// Close drops every connection.
func (c *Cluster) Close() error { return c.rdb.Close() }

// once is a command go-redis must not send again after a network error or
// a CLUSTERDOWN/TRYAGAIN reply: a retried SET NX would report its own first
// attempt as someone else's lock.
type once struct{ *redis.Cmd }

func (once) NoRetry() bool { return true }

// dropPending forgets the value kept for Get's second call: after any
// other command (a write, even this client's own) it may be stale.
func (c *Cluster) dropPending() {
	c.pendingMu.Lock()
	c.pendingKey, c.pendingValue, c.pendingValueValid = "", "", false
	c.pendingMu.Unlock()
}

// raw sends one command to its key's slot; the error is go-redis'.
func (c *Cluster) raw(args ...any) (any, error) {
	c.dropPending()
	cmd := redis.NewCmd(context.Background(), args...)
	err := c.rdb.Process(context.Background(), once{cmd})
	return cmd.Val(), err
}

// run is raw after check, with errors classified (redis.Nil, a nil reply,
// passes as it is).
func (c *Cluster) run(args ...any) (any, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	v, err := c.raw(args...)
	return v, c.classifyAll(err)
}

// eval runs s with keys and args: EVALSHA, and EVAL once after NOSCRIPT (a
// node that never saw it, flushed or restarted).
func (c *Cluster) eval(s *script, keys []string, args ...any) (any, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	a := append([]any{"evalsha", s.sha, len(keys)}, strKeys(keys)...)
	v, err := c.raw(append(a, args...)...)
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		a[0], a[1] = "eval", s.src
		v, err = c.raw(append(a, args...)...)
	}
	return v, c.classifyAll(err)
}

// classifyAll is classify for every error but redis.Nil.
func (c *Cluster) classifyAll(err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return err
	}
	return c.classify(err)
}

func strKeys(keys []string) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out
}

// ErrEvicting refuses a server whose maxmemory-policy may evict keys, so may evict
// a live lock, which is then granted twice. Refused as a configuration.
var ErrEvicting = errors.New("maxmemory-policy is not noeviction")

// check asks each master, once, for its maxmemory-policy (refused unless
// noeviction) and its proto-max-bulk-len. A master that does not allow
// CONFIG (renamed, as managed services do) is let through.
func (c *Cluster) check() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready {
		return nil
	}
	var mu sync.Mutex
	limit := int64(defaultMaxBulk)
	err := c.rdb.ForEachMaster(context.Background(), func(ctx context.Context, n *redis.Client) error {
		m, err := n.ConfigGet(ctx, "maxmemory-policy").Result()
		if err == nil {
			var m2 map[string]string
			if m2, err = n.ConfigGet(ctx, "proto-max-bulk-len").Result(); err == nil {
				m["proto-max-bulk-len"] = m2["proto-max-bulk-len"]
			}
		}
		var rerr redis.Error
		if errors.As(err, &rerr) && !c.unavailableReply(err.Error()) {
			return nil // CONFIG not allowed here
		}
		if err != nil {
			return err
		}
		if p := m["maxmemory-policy"]; p != "" && p != "noeviction" {
			return fmt.Errorf("%w: the Redis Cluster node %s at %s has maxmemory-policy %s, which may evict a live lock (granted twice then); set it to noeviction",
				ErrEvicting, n.Options().Addr, c.addr, p)
		}
		if v, err := strconv.ParseInt(m["proto-max-bulk-len"], 10, 64); err == nil && v > 0 {
			mu.Lock()
			limit = min(limit, v)
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrEvicting) {
			return err
		}
		return c.classify(err)
	}
	c.maxVal, c.ready = limit, true
	return nil
}

// unavailableReply reports whether msg is a reply that says the cluster cannot
// take the command now, and nothing ran.
func (c *Cluster) unavailableReply(msg string) bool {
	for _, p := range []string{"CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK"} {
		if strings.HasPrefix(msg, p+" ") {
			return true
		}
	}
	return notServing(msg)
}

// classify gives an error its kv meaning: a reply as the single-node engine
// reads it, a cluster that cannot serve (CLUSTERDOWN, TRYAGAIN, redirects
// past the limit) or any network failure kv.ErrUnavailable.
func (c *Cluster) classify(err error) error {
	var rerr redis.Error
	switch {
	case errors.As(err, &rerr) && c.unavailableReply(err.Error()):
		return fmt.Errorf("%w: the Redis Cluster at %s cannot take the command now (nothing ran): %s", kv.ErrUnavailable, c.addr, err)
	case errors.As(err, &rerr):
		return c.peer.classifyReply(err.Error())
	case errors.Is(err, ErrEvicting):
		return err
	}
	return fmt.Errorf("%w: Redis Cluster at %s: %v; the operation may or may not have happened", kv.ErrUnavailable, c.addr, err)
}

// checkValue checks the masters (check, once) and refuses a value over
// their smallest proto-max-bulk-len.
func (c *Cluster) checkValue(v []byte) error {
	if err := c.check(); err != nil {
		return err
	}
	if c.maxVal > 0 && int64(len(v)) > c.maxVal {
		return fmt.Errorf("%w: %d bytes, the Redis Cluster at %s has proto-max-bulk-len %d", kv.ErrValueTooLarge, len(v), c.addr, c.maxVal)
	}
	return nil
}

// intOp runs a command and reads its reply as an integer (or a bulk
// holding one, as a script returns fences and counters); nil is 0.
func (c *Cluster) intOp(args ...any) (int64, error) {
	v, err := c.run(args...)
	return c.toInt(v, err)
}

func (c *Cluster) toInt(v any, err error) (int64, error) {
	switch {
	case errors.Is(err, redis.Nil):
		return 0, nil
	case err != nil:
		return 0, err
	}
	switch x := v.(type) {
	case int64:
		return x, nil
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, c.classify(errProtocolReply{fmt.Sprintf("unexpected reply %v", v)})
}

func (c *Cluster) evalInt(s *script, keys []string, args ...any) (int64, error) {
	v, err := c.eval(s, keys, args...)
	return c.toInt(v, err)
}

// Get implements kv.Engine.
func (c *Cluster) Get(key string, dst []byte) (int, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, false, err
	}
	c.pendingMu.Lock()
	if c.pendingValueValid && c.pendingKey == key && len(c.pendingValue) <= len(dst) {
		v := c.pendingValue
		c.pendingKey, c.pendingValue, c.pendingValueValid = "", "", false
		c.pendingMu.Unlock()
		return copy(dst, v), true, nil
	}
	c.pendingMu.Unlock()
	v, err := c.run("get", key)
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	s, _ := v.(string)
	if len(s) > len(dst) {
		c.pendingMu.Lock()
		c.pendingKey, c.pendingValue, c.pendingValueValid = strings.Clone(key), s, true
		c.pendingMu.Unlock()
		return len(s), true, nil
	}
	return copy(dst, s), true, nil
}

func (c *Cluster) set(key string, value []byte, ttl time.Duration, nx bool) (bool, error) {
	px, err := checkWrite(c, key, value, ttl)
	if err != nil {
		return false, err
	}
	args := []any{"set", key, value}
	if nx {
		args = append(args, "nx")
	}
	if px > 0 {
		args = append(args, "px", px)
	}
	_, err = c.run(args...)
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// Set implements kv.Engine.
func (c *Cluster) Set(key string, value []byte, ttl time.Duration) error {
	_, err := c.set(key, value, ttl, false)
	return err
}

// SetNX implements kv.Engine.
func (c *Cluster) SetNX(key string, value []byte, ttl time.Duration) (bool, error) {
	return c.set(key, value, ttl, true)
}

// Del implements kv.Engine.
func (c *Cluster) Del(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	n, err := c.intOp("del", key)
	return n == 1, err
}

// checkToken is checkValue: unlike Engine's, it checks the masters first
// for every token, however short, so an evicting cluster is refused on
// any first use.
func (c *Cluster) checkToken(token []byte) error { return c.checkValue(token) }

// DelIfEq implements kv.Engine.
func (c *Cluster) DelIfEq(key string, token []byte) (bool, error) {
	if never, err := checkTokenOp(c, key, token); never || err != nil {
		return false, err
	}
	n, err := c.evalInt(scriptDelIfEq, []string{key}, token)
	return n == 1, err
}

// Exists implements kv.Engine.
func (c *Cluster) Exists(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	n, err := c.intOp("exists", key)
	return n == 1, err
}

// Expire implements kv.Engine.
func (c *Cluster) Expire(key string, ttl time.Duration) (bool, error) {
	px, err := checkKeyTTL(key, ttl)
	if err != nil {
		return false, err
	}
	n, err := c.evalInt(scriptExpire, []string{key}, px)
	return n == 1, err
}

// ExpireIfEq implements kv.Engine.
func (c *Cluster) ExpireIfEq(key string, token []byte, ttl time.Duration) (bool, error) {
	px, never, err := checkTokenTTL(c, key, token, ttl)
	if never || err != nil {
		return false, err
	}
	n, err := c.evalInt(scriptExpireIfEq, withLockFence(key), token, px)
	return n == 1, err
}

// withLockFence is the keys of a script on lock: lock, then its fence
// record when it has one in its slot (lockFenceKey).
func withLockFence(lock string, keys ...string) []string {
	keys = append(keys, lock)
	if record, ok := lockFenceKey(lock); ok {
		keys = append(keys, record)
	}
	return keys
}

// TTL implements kv.Engine.
func (c *Cluster) TTL(key string) (time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	n, err := c.intOp("pttl", key)
	if err != nil {
		return 0, err
	}
	return ttlReply(n, time.Millisecond), nil
}

// TTLIfEq implements kv.Engine.
func (c *Cluster) TTLIfEq(key string, token []byte) (time.Duration, error) {
	if never, err := checkTokenOp(c, key, token); never || err != nil {
		return kv.TTLMissing, err
	}
	n, err := c.evalInt(scriptTTLIfEq, []string{key}, token)
	if err != nil {
		return 0, err
	}
	return ttlReply(n, time.Millisecond), nil
}

// Incr implements kv.Engine.
func (c *Cluster) Incr(key string, by int64, ttl time.Duration) (int64, error) {
	px, err := checkKeyTTL(key, ttl)
	if err != nil {
		return 0, err
	}
	return c.evalInt(scriptIncr, []string{key}, by, px)
}

// ErrNoSlot refuses a lock name that cannot share a slot with its fence counter.
var ErrNoSlot = errors.New("lock name has a '}' but no hash tag, so its fence counter cannot share its slot")

// SetNXFenced implements kv.Engine. The fence counter is one per hash tag
// (clusterFenceCounter), in the lock's slot: fences rise per hash tag.
func (c *Cluster) SetNXFenced(key string, value []byte, ttl time.Duration) (int64, bool, error) {
	px, err := checkWrite(c, key, value, ttl)
	if err != nil {
		return 0, false, err
	}
	counter, ok := clusterFenceCounter(key)
	if !ok {
		return 0, false, fmt.Errorf("%w: %q (use a name without '}', or one with a {tag})", ErrNoSlot, key)
	}
	record, _ := lockFenceKey(key) // there whenever counter is
	fence, err := c.evalInt(scriptSetNXFenced, []string{key, counter, record}, value, px)
	if err != nil {
		return 0, false, err
	}
	return fence, fence != 0, nil
}

// Fence implements kv.Engine. The mark keeps the resource's hash tag.
func (c *Cluster) Fence(resource string, fence int64) (bool, error) {
	if err := kv.CheckKey(resource); err != nil {
		return false, err
	}
	n, err := c.evalInt(scriptFence, []string{fenceMarkPrefix + resource}, fence)
	return n == 1, err
}

// sameSlot reports whether a and b hash to one slot, so one script may touch
// both.
func sameSlot(a, b string) bool { return slotOf(a) == slotOf(b) }

func slotOf(key string) uint16 {
	if tag, ok := hashTag(key); ok {
		key = tag
	}
	return crc16(key) % 16384
}

// crc16 is Redis Cluster's CRC16 (XMODEM).
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for j := 0; j < 8; j++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// SetIfLocked implements kv.LockedSetter. Data and lock in one slot: one script
// (check, write, renew or release). In different slots (the session
// module's session:<id> and session_lock:<id>), what kv.Engine guarantees,
// in steps: check and renew the lock atomically (its script), then write,
// then release with a compare-and-delete, as the ephpm-kv server does.
func (c *Cluster) SetIfLocked(key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration, release bool) (bool, error) {
	px, lockPX, never, err := checkLockedWrite(c, key, value, ttl, lock, token, lockTTL)
	if never || err != nil {
		return false, err
	}
	if sameSlot(key, lock) {
		rel := "0"
		if release {
			rel = "1"
		}
		n, err := c.evalInt(scriptSetIfLocked, withLockFence(lock, key), value, px, token, lockPX, rel)
		return n == 1, err
	}
	n, err := c.evalInt(scriptExpireIfEq, withLockFence(lock), token, lockPX)
	if n != 1 || err != nil {
		return false, err
	}
	if err := c.Set(key, value, ttl); err != nil {
		return false, err
	}
	if release {
		if _, err := c.DelIfEq(lock, token); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Flush implements kv.Engine: FLUSHDB on every master (a cluster has only
// database 0), one after another: not one atomic step across the cluster.
func (c *Cluster) Flush() error {
	if err := c.check(); err != nil {
		return err
	}
	c.dropPending()
	err := c.rdb.ForEachMaster(context.Background(), func(ctx context.Context, n *redis.Client) error {
		return n.FlushDB(ctx).Err()
	})
	if err != nil {
		return c.classify(err)
	}
	return nil
}

// Stats implements kv.Engine: each master's stats (as the single-node
// engine reads them), summed; max_value_size is the smallest bulk limit.
func (c *Cluster) Stats() (kv.Stats, error) {
	if err := c.check(); err != nil {
		return kv.Stats{}, err
	}
	var (
		mu  sync.Mutex
		sum kv.Stats
	)
	err := c.rdb.ForEachMaster(context.Background(), func(ctx context.Context, n *redis.Client) error {
		keys, err := n.DBSize(ctx).Result()
		if err != nil {
			return err
		}
		info, err := n.Info(ctx, "memory", "stats", "errorstats", "keyspace").Result()
		if err != nil {
			return err
		}
		st := kv.Stats{Keys: keys}
		if err := readRedisStats(1, &reply{kind: '$', n: int64(len(info)), data: []byte(info)}, &st, 0); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, f := range kv.StatsFields {
			*f.Of(&sum) += *f.Of(&st)
		}
		return nil
	})
	if err != nil {
		return kv.Stats{}, c.classify(err)
	}
	sum.MaxValueSize = c.maxVal
	return sum, nil
}
