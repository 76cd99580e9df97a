// Package remote is a kv.Engine that talks to an ephpm-kv server over RESP,
// so every PHP process of a host shares one store. Any failure to reach the
// server, or a reply that does not come in time, is kv.ErrUnavailable: never
// a guessed answer (a timed-out SETNX may have landed).
package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ephpm/ephpm-kv/kv"
)

// Engine implements kv.Engine against a server.
type Engine struct {
	opts *redis.Options
	rdb  atomic.Pointer[redis.Client]
	addr string

	// The C side reads a value larger than its first buffer in a second
	// call; the value fetched by the first waits here so that costs no
	// second round trip.
	pendingMu    sync.Mutex
	pendingKey   string
	pendingValue []byte
}

var _ kv.Engine = (*Engine)(nil)

// ParseAddress turns unix:///path, tcp://host:port, /path or host:port into
// a network and address.
func ParseAddress(url string) (network, addr string, err error) {
	switch {
	case strings.HasPrefix(url, "unix://"):
		network, addr = "unix", strings.TrimPrefix(url, "unix://")
	case strings.HasPrefix(url, "tcp://"):
		network, addr = "tcp", strings.TrimPrefix(url, "tcp://")
	case strings.HasPrefix(url, "/"):
		network, addr = "unix", url
	case strings.Contains(url, ":") && !strings.Contains(url, "://"):
		network, addr = "tcp", url
	default:
		return "", "", fmt.Errorf("ephpm.server %q: expected unix:///path/to.sock or tcp://host:port", url)
	}
	if addr == "" {
		return "", "", fmt.Errorf("ephpm.server %q has no address", url)
	}
	return network, addr, nil
}

// New returns an engine for the server at url. It connects on first use
// and reconnects after failures; one connection per process.
func New(url, password string, timeout time.Duration) (*Engine, error) {
	network, addr, err := ParseAddress(url)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	e := &Engine{addr: url, opts: &redis.Options{
		Network:         network,
		Addr:            addr,
		Password:        password,
		Dialer:          blockingDialer(timeout),
		Protocol:        2,
		DisableIdentity: true,
		DialTimeout:     timeout,
		ReadTimeout:     timeout,
		WriteTimeout:    timeout,
		PoolSize:        1,
		PoolTimeout:     timeout,
		DialerRetries:   1,
		MaxRetries:      -1, // a retried SETNX could report its own first attempt as "held"
	}}
	e.rdb.Store(redis.NewClient(e.opts))
	return e, nil
}

func init() {
	// Library code inside a PHP process: errors go to the caller, not stderr.
	redis.SetLogger(silent{})
}

type silent struct{}

func (silent) Printf(context.Context, string, ...any) {}

// Close drops the connection.
func (e *Engine) Close() error { return e.rdb.Load().Close() }

// reset replaces the client after a connection failure, so the next call
// dials again at once instead of waiting out the pool's dial backoff.
func (e *Engine) reset(failed *redis.Client) {
	if e.rdb.CompareAndSwap(failed, redis.NewClient(e.opts)) {
		failed.Close()
	}
}

// wrap maps a client error: server replies keep their meaning, anything
// else is kv.ErrUnavailable.
func (e *Engine) wrap(err error) error {
	var reply redis.Error
	if !errors.As(err, &reply) {
		e.reset(e.rdb.Load())
	}
	return e.classify(err)
}

func (e *Engine) classify(err error) error {
	var reply redis.Error
	if errors.As(err, &reply) {
		msg := reply.Error()
		switch {
		case strings.HasPrefix(msg, "OOM"):
			return fmt.Errorf("%w (server: %s)", kv.ErrFull, msg)
		case strings.HasPrefix(msg, "TOOLARGE"):
			return fmt.Errorf("%w (server: %s)", kv.ErrValueTooLarge, strings.TrimPrefix(msg, "TOOLARGE value is too large: "))
		case strings.HasPrefix(msg, "ERR value is not an integer"):
			return kv.ErrNotInteger
		case strings.HasPrefix(msg, "ERR increment or decrement would overflow"):
			return kv.ErrOverflow
		case strings.Contains(msg, "key is too large"):
			return fmt.Errorf("%w (server: %s)", kv.ErrKeyTooLarge, msg)
		case strings.HasPrefix(msg, "NOAUTH"), strings.HasPrefix(msg, "WRONGPASS"):
			return fmt.Errorf("%w: the ephpm-kv server at %s refused the password (set ephpm.server_password): %s", kv.ErrUnavailable, e.addr, msg)
		}
		return fmt.Errorf("ephpm-kv server at %s: %s", e.addr, msg)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Errorf("%w: no answer from the ephpm-kv server at %s in time; the operation may or may not have happened: %v", kv.ErrUnavailable, e.addr, err)
	}
	return fmt.Errorf("%w: cannot reach the ephpm-kv server at %s: %v", kv.ErrUnavailable, e.addr, err)
}

var ctx = context.Background()

// ms checks a ttl (0 through kv.MaxTTL, else kv.ErrBadTTL, before anything
// is sent) and rounds it up to whole milliseconds, the server's unit, so a
// positive sub-millisecond ttl never becomes 0 ("no expiry").
func ms(ttl time.Duration) (int64, error) {
	if err := kv.CheckTTL(ttl); err != nil {
		return 0, err
	}
	return int64((ttl + time.Millisecond - 1) / time.Millisecond), nil
}

func (e *Engine) do(args ...any) *redis.Cmd { return e.rdb.Load().Do(ctx, args...) }

func (e *Engine) boolCmd(args ...any) (bool, error) {
	n, err := e.do(args...).Int64()
	if err != nil {
		return false, e.wrap(err)
	}
	return n == 1, nil
}

// Get implements kv.Engine.
func (e *Engine) Get(key string, dst []byte) (int, bool, error) {
	e.pendingMu.Lock()
	if e.pendingValue != nil && e.pendingKey == key && len(e.pendingValue) <= len(dst) {
		v := e.pendingValue
		e.pendingKey, e.pendingValue = "", nil
		e.pendingMu.Unlock()
		return copy(dst, v), true, nil
	}
	e.pendingMu.Unlock()
	v, err := e.rdb.Load().Get(ctx, key).Bytes()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, e.wrap(err)
	}
	if len(v) > len(dst) {
		e.pendingMu.Lock()
		e.pendingKey, e.pendingValue = strings.Clone(key), v
		e.pendingMu.Unlock()
		return len(v), true, nil
	}
	return copy(dst, v), true, nil
}

// Set implements kv.Engine.
func (e *Engine) Set(key string, value []byte, ttl time.Duration) error {
	px, err := ms(ttl)
	if err != nil {
		return err
	}
	args := []any{"SET", key, value}
	if px > 0 {
		args = append(args, "PX", px)
	}
	if err := e.do(args...).Err(); err != nil {
		return e.wrap(err)
	}
	return nil
}

// SetNX implements kv.Engine.
func (e *Engine) SetNX(key string, value []byte, ttl time.Duration) (bool, error) {
	px, err := ms(ttl)
	if err != nil {
		return false, err
	}
	args := []any{"SET", key, value, "NX"}
	if px > 0 {
		args = append(args, "PX", px)
	}
	err = e.do(args...).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, e.wrap(err)
	}
	return true, nil
}

// Del implements kv.Engine.
func (e *Engine) Del(key string) (bool, error) { return e.boolCmd("DEL", key) }

// DelIfEq implements kv.Engine.
func (e *Engine) DelIfEq(key string, token []byte) (bool, error) {
	return e.boolCmd("DELIFEQ", key, token)
}

// Exists implements kv.Engine.
func (e *Engine) Exists(key string) (bool, error) { return e.boolCmd("EXISTS", key) }

// Expire implements kv.Engine.
func (e *Engine) Expire(key string, ttl time.Duration) (bool, error) {
	px, err := ms(ttl)
	if err != nil {
		return false, err
	}
	return e.boolCmd("EPHPM.PEXPIRE", key, px)
}

// ExpireIfEq implements kv.Engine.
func (e *Engine) ExpireIfEq(key string, token []byte, ttl time.Duration) (bool, error) {
	px, err := ms(ttl)
	if err != nil {
		return false, err
	}
	return e.boolCmd("EPHPM.PEXPIREIFEQ", key, token, px)
}

// ttlReply turns -2/-1/n-units into a TTL.
func ttlReply(n int64, unit time.Duration) time.Duration {
	if n < 0 {
		return time.Duration(n) // kv.TTLMissing / kv.TTLPersistent
	}
	return time.Duration(n) * unit
}

// TTL implements kv.Engine.
func (e *Engine) TTL(key string) (time.Duration, error) {
	n, err := e.do("PTTL", key).Int64()
	if err != nil {
		return 0, e.wrap(err)
	}
	return ttlReply(n, time.Millisecond), nil
}

// TTLIfEq implements kv.Engine.
func (e *Engine) TTLIfEq(key string, token []byte) (time.Duration, error) {
	n, err := e.do("EPHPM.PTTLIFEQ", key, token).Int64()
	if err != nil {
		return 0, e.wrap(err)
	}
	return ttlReply(n, time.Microsecond), nil
}

// Incr implements kv.Engine.
func (e *Engine) Incr(key string, by int64, ttl time.Duration) (int64, error) {
	px, err := ms(ttl)
	if err != nil {
		return 0, err
	}
	n, err := e.do("EPHPM.INCRBY", key, by, px).Int64()
	if err != nil {
		return 0, e.wrap(err)
	}
	return n, nil
}

// SetNXFenced implements kv.Engine.
func (e *Engine) SetNXFenced(key string, value []byte, ttl time.Duration) (int64, bool, error) {
	px, err := ms(ttl)
	if err != nil {
		return 0, false, err
	}
	fence, err := e.do("EPHPM.SETNXFENCED", key, value, px).Int64()
	if err != nil {
		return 0, false, e.wrap(err)
	}
	return fence, fence != 0, nil
}

// Fence implements kv.Engine.
func (e *Engine) Fence(resource string, fence int64) (bool, error) {
	return e.boolCmd("EPHPM.FENCE", resource, fence)
}

// Flush implements kv.Engine.
func (e *Engine) Flush() error {
	if err := e.do("FLUSHALL").Err(); err != nil {
		return e.wrap(err)
	}
	return nil
}

// Stats implements kv.Engine.
func (e *Engine) Stats() (kv.Stats, error) {
	vals, err := e.do("EPHPM.STATS").Slice()
	if err != nil {
		return kv.Stats{}, e.wrap(err)
	}
	var st kv.Stats
	fields := map[string]*int64{
		"keys": &st.Keys, "bytes_used": &st.BytesUsed, "bytes_limit": &st.BytesLimit, "hits": &st.Hits,
		"misses": &st.Misses, "expired": &st.Expired, "rejected": &st.Rejected, "compressed": &st.Compressed,
		"max_value_size": &st.ValueMax, "compress_min": &st.CompressMin,
	}
	for i := 0; i+1 < len(vals); i += 2 {
		name, _ := vals[i].(string)
		if p, ok := fields[name]; ok {
			*p, _ = vals[i+1].(int64)
		}
	}
	return st, nil
}
