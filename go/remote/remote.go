// Package remote is a kv.Engine that talks to an ephpm-kv server over RESP,
// so every PHP process of a host shares one store. Any failure to reach the
// server, or a reply that does not come in time, is kv.ErrUnavailable: never
// a guessed answer (a timed-out SETNX may have landed).
package remote

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"regexp"
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

	// The server's max_value_size, learned once per connection (a restarted
	// server may have another): limitUnknown until asked, limitNone when
	// the server does not say.
	maxValue atomic.Int64

	// The C side reads a value larger than its first buffer in a second
	// call; the value fetched by the first waits here so that costs no
	// second round trip.
	pendingMu    sync.Mutex
	pendingKey   string
	pendingValue []byte
}

var _ kv.Engine = (*Engine)(nil)

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
	e.opts.OnConnect = func(context.Context, *redis.Conn) error {
		e.maxValue.Store(limitUnknown)
		return nil
	}
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
		e.maxValue.Store(limitUnknown)
		failed.Close()
	}
}

// wrap maps a client error and drops the connection unless it is still
// in step with the server (a plain error reply, after which both sides wait
// for the next command).
func (e *Engine) wrap(err error) error {
	if !keepsConnection(err) {
		e.reset(e.rdb.Load())
	}
	return e.classify(err)
}

// keepsConnection: a reply error other than a protocol error. After a
// protocol error the server closes the connection; after a network error or
// a short write nobody knows where the reply stream stands.
func keepsConnection(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply) && !isProtocolError(reply.Error())
}

func isProtocolError(msg string) bool { return strings.HasPrefix(msg, "ERR Protocol error") }

func (e *Engine) classify(err error) error {
	var reply redis.Error
	if errors.As(err, &reply) {
		return e.classifyReply(reply.Error())
	}
	var parting *closedWithReply
	if errors.As(err, &parting) && isProtocolError(parting.Reply) {
		return e.classifyReply(parting.Reply)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Errorf("%w: no answer from the ephpm-kv server at %s in time; the operation may or may not have happened: %v", kv.ErrUnavailable, e.addr, err)
	}
	return fmt.Errorf("%w: cannot reach the ephpm-kv server at %s: %v", kv.ErrUnavailable, e.addr, err)
}

// classifyReply gives a server's error reply its kv meaning.
func (e *Engine) classifyReply(msg string) error {
	switch {
	case strings.HasPrefix(msg, "OOM"):
		// "OOM command not allowed when used memory > 'maxmemory' (store full: <detail>)"
		if _, detail, ok := strings.Cut(msg, "("); ok {
			msg = strings.TrimPrefix(strings.TrimSuffix(detail, ")"), kv.ErrFull.Error()+": ")
		}
		return fmt.Errorf("%w at the ephpm-kv server %s: %s", kv.ErrFull, e.addr, msg)
	case strings.HasPrefix(msg, "TOOLARGE"):
		return fmt.Errorf("%w for the ephpm-kv server at %s (%s)", kv.ErrValueTooLarge, e.addr, strings.TrimPrefix(msg, "TOOLARGE value is too large: "))
	case isProtocolError(msg) && bulkTooLarge.MatchString(msg):
		// A value (or token) over the server's bulk limit; the check
		// before sending catches values once the limit is known.
		return fmt.Errorf("%w for the ephpm-kv server at %s, which refused it: %s", kv.ErrValueTooLarge, e.addr, strings.TrimPrefix(msg, "ERR "))
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

// bulkTooLarge matches the server's protocol errors about one argument's
// size ("bulk of N bytes", "invalid bulk length N"), not the argument
// count ("multibulk length").
var bulkTooLarge = regexp.MustCompile(`(^|[^a-z])bulk (of|length) [0-9]`)

const (
	limitUnknown = 0
	limitNone    = -1
)

// checkValue refuses a value the server would refuse, before sending it.
// Sent anyway, a value over the server's limit makes it reply with a
// protocol error and close the connection while the value is still being
// written: a broken pipe, not "too large".
func (e *Engine) checkValue(value []byte) error {
	limit := e.maxValue.Load()
	if limit == limitUnknown {
		var err error
		if limit, err = e.learnMaxValue(); err != nil {
			return err
		}
	}
	if limit > 0 && int64(len(value)) > limit {
		return fmt.Errorf("%w: %d bytes, the ephpm-kv server at %s has --max-value-size %d",
			kv.ErrValueTooLarge, len(value), e.addr, limit)
	}
	return nil
}

// learnMaxValue asks the server for its max_value_size (one round trip per
// connection; this also dials when there is no connection yet).
func (e *Engine) learnMaxValue() (int64, error) {
	vals, err := e.do("EPHPM.STATS").Slice()
	if err != nil {
		if keepsConnection(err) { // not an ephpm-kv server: it checks itself
			e.maxValue.Store(limitNone)
			return limitNone, nil
		}
		return 0, e.wrap(err)
	}
	limit := int64(limitNone)
	for i := 0; i+1 < len(vals); i += 2 {
		if name, _ := vals[i].(string); name == "max_value_size" {
			if n, _ := vals[i+1].(int64); n > 0 {
				limit = n
			}
		}
	}
	e.maxValue.Store(limit)
	return limit, nil
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
	if err := e.checkValue(value); err != nil {
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
	if err := e.checkValue(value); err != nil {
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

// ttlReply turns -2/-1/n-units into a TTL. An n too large for a Duration
// (a server that kept a TTL past kv.MaxTTL, such as one from before the
// maximum) saturates: wrapped, a live key's TTL would read as negative.
func ttlReply(n int64, unit time.Duration) time.Duration {
	switch {
	case n < 0:
		return time.Duration(n) // kv.TTLMissing / kv.TTLPersistent
	case n > math.MaxInt64/int64(unit):
		return math.MaxInt64
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
	if err := e.checkValue(value); err != nil {
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
