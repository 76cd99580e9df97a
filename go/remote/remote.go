// Package remote is a kv.Engine that talks to an ephpm-kv server over RESP,
// so every PHP process of a host shares one store. Any failure to reach the
// server, or a reply that does not come in time, is kv.ErrUnavailable: never
// a guessed answer (a timed-out SETNX may have landed).
package remote

import (
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Engine implements kv.Engine against a server, over one connection that
// callers take turns on (one PHP thread's round trip at a time).
type Engine struct {
	addr                        string // ephpm.server, for messages
	network, dialAddr, password string
	timeout                     time.Duration
	raw                         bool
	tlsFiles                    TLSFiles
	tls                         *tls.Config // rediss://: set by New
	isRedis                     atomic.Bool // a Valkey or Redis answered here (for messages)

	mu sync.Mutex
	cl *client // nil: dial on the next call

	// The server's max_value_size, learned once per connection (a restarted
	// server may have another): limitUnknown until asked, limitNone when
	// the server does not say.
	maxValue atomic.Int64

	// The C side reads a value larger than its first buffer in a second
	// call; the value fetched by the first waits here so that costs no
	// second round trip. Any other round trip drops it (hasPending spares
	// them the lock): after a write, even this client's own, the kept
	// value may be stale.
	pendingMu    sync.Mutex
	hasPending   atomic.Bool
	pendingKey   string
	pendingValue []byte
}

var _ kv.Engine = (*Engine)(nil)

// Option changes how New's engine works.
type Option func(*Engine)

// RawSyscalls does the socket I/O with raw system calls, keeping the
// calling thread's P while it waits (see blockingconn.go): for a process
// whose threads only wait for the server, such as PHP's, never for one that
// also runs the server.
func RawSyscalls() Option { return func(e *Engine) { e.raw = true } }

// New returns an engine for the server at url. It connects on first use
// and reconnects after failures; one connection per process.
func New(url, password string, timeout time.Duration, opts ...Option) (*Engine, error) {
	network, addr, err := ParseAddress(url)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	e := &Engine{addr: url, network: network, dialAddr: addr, password: password, timeout: timeout}
	for _, opt := range opts {
		opt(e)
	}
	switch {
	case network == "tls":
		host, _, _ := net.SplitHostPort(addr)
		if e.tls, err = tlsConfig(e.tlsFiles, host); err != nil {
			return nil, fmt.Errorf("ephpm.server %q: %w", url, err)
		}
		e.network = "tcp"
	case e.tlsFiles.set():
		return nil, fmt.Errorf("ephpm.server %q: TLS settings (ephpm.server_tls_*) are given but the address is not rediss://host:port", url)
	}
	return e, nil
}

// Close drops the connection.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cl == nil {
		return nil
	}
	err := e.cl.nc.Close()
	e.cl = nil
	return err
}

// connect dials (and authenticates) when there is no connection. Called
// with mu held. Nothing is retried: a retried SETNX could report its own
// first attempt as "held".
func (e *Engine) connect() (*client, error) {
	if e.cl != nil {
		if !e.cl.stale() {
			return e.cl, nil
		}
		// Closed by a server that restarted since the last call: nothing
		// of this call was sent, so dialing again is not a retry.
		e.drop()
	}
	nc, err := dialBlocking(e.network, e.dialAddr, e.timeout, e.raw)
	if err == nil && e.tls != nil {
		nc, err = handshake(nc, e.tls)
	}
	if err != nil {
		return nil, err
	}
	cl := newClient(nc)
	if e.password != "" {
		cl.command(2)
		cl.arg("AUTH")
		cl.arg(e.password)
		err = cl.flush()
		var r reply
		if err == nil {
			r, err = cl.read()
		}
		if err == nil && r.kind == '-' {
			err = replyError(r.data)
		}
		if err != nil {
			nc.Close()
			return nil, err
		}
	}
	e.maxValue.Store(limitUnknown)
	e.cl = cl
	return cl, nil
}

// drop closes the connection after a failure that leaves the reply stream
// out of step (or unknown), so the next call dials again. Called with mu held.
func (e *Engine) drop() {
	if e.cl != nil {
		e.cl.nc.Close()
		e.cl = nil
	}
}

// roundTrip sends what build appends (one command or several, pipelined)
// and hands each reply to handle in order, i counting the replies handle
// sees (a SCRIPT LOAD pipelined before its EVALSHA is not one of them);
// every reply is read even after an error, so the connection stays in
// step. An error reply goes to the caller as a replyError (the first one),
// as does handle's first error. An array reply's elements are read by
// handle, from c.
func (e *Engine) roundTrip(build func(c *client), handle func(i int, r *reply, c *client) error) error {
	return e.trip(build, handle, false)
}

// trip is roundTrip; withErrors hands error replies to handle as well.
func (e *Engine) trip(build func(c *client), handle func(i int, r *reply, c *client) error, withErrors bool) error {
	if e.hasPending.Load() {
		e.dropPending()
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c, err := e.connect()
	if err != nil {
		return e.classify(err)
	}
	c.skip = c.skip[:0]
	build(c)
	skip, used := c.skip, c.dialect
	if err := c.flush(); err != nil {
		e.drop()
		return e.classify(err)
	}
	var first error
	i := 0
	for _, skipped := range skip {
		r, err := c.read()
		if err != nil {
			e.drop()
			return e.classify(err)
		}
		switch {
		case skipped:
			// A SCRIPT LOAD: should it fail, its EVALSHA says NOSCRIPT.
			err = discard(c, &r)
		case r.kind == '-' && !withErrors:
			err = replyError(r.data)
			i++
		default:
			err = handle(i, &r, c)
			i++
		}
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		if !keepsConnection(first) {
			e.drop()
		}
		return e.retryable(first, used)
	}
	return nil
}

// replyError is an error reply from the server.
type replyError string

func (e replyError) Error() string { return string(e) }

// errUnexpected: a reply of the wrong type; the stream may be out of step.
func errUnexpected(r *reply) error {
	return errProtocolReply{fmt.Sprintf("unexpected reply %c%d %.40q", r.kind, r.n, r.data)}
}

// keepsConnection: a reply error other than a protocol error. After a
// protocol error the server closes the connection; after a network error or
// a short write nobody knows where the reply stream stands.
func keepsConnection(err error) bool {
	var reply replyError
	return errors.As(err, &reply) && !isProtocolError(reply.Error()) && !notServing(reply.Error()) && serverLimit(reply.Error()) == ""
}

// serverLimit words a reply the server sends before it closes the
// connection for a limit of its own rather than the command's, "" for any
// other: at its client limit (maxclients: Redis's wording, and ephpm-kv's),
// or, on an ephpm-kv server, all clients' buffers over --max-client-memory
// with this client's the largest. The command did not run; unavailable.
func serverLimit(msg string) string {
	switch {
	case strings.HasPrefix(msg, "ERR max number of clients reached"):
		return "is at its client limit (maxclients); the command did not run"
	case strings.HasPrefix(msg, "ERR max memory for clients reached"):
		return "closed the connection: the memory for client buffers is full (--max-client-memory) and this client's were the largest; the command did not run"
	}
	return ""
}

// notServing: a Valkey or Redis that cannot take the command now: a
// replica (READONLY: a failover demoted it, or the address names one),
// one still loading its data, one whose replica lost its master, one
// busy with a long script, a master cut off from the replicas it must
// write to (min-replicas-to-write: NOREPLICAS). Nothing ran. Unavailable,
// and the connection is dropped, so the next call dials again (and may
// reach the new master).
func notServing(msg string) bool {
	for _, p := range []string{"READONLY", "LOADING", "MASTERDOWN", "BUSY", "NOREPLICAS"} {
		if strings.HasPrefix(msg, p+" ") {
			return true
		}
	}
	return false
}

func isProtocolError(msg string) bool { return strings.HasPrefix(msg, "ERR Protocol error") }

func (e *Engine) classify(err error) error {
	var reply replyError
	if errors.As(err, &reply) {
		return e.classifyReply(reply.Error())
	}
	var parting *closedWithReply
	if errors.As(err, &parting) && (isProtocolError(parting.Reply) || serverLimit(parting.Reply) != "") {
		return e.classifyReply(parting.Reply)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Errorf("%w: no answer from the %s at %s in time; the operation may or may not have happened: %v", kv.ErrUnavailable, e.kind(), e.addr, err)
	}
	return fmt.Errorf("%w: cannot reach the %s at %s: %v", kv.ErrUnavailable, e.kind(), e.addr, err)
}

// classifyReply gives a server's error reply its kv meaning: the engine
// errors from kv's RESP table, plus what only a client meets (a bulk over
// the server's limit, a refused password).
func (e *Engine) classifyReply(msg string) error {
	kind, detail, ok := kv.ParseRESPError(msg)
	switch {
	case ok && kind == kv.ErrNotLease && e.isRedis.Load():
		// Redis's WRONGTYPE: a key of another Redis type than the
		// operation's (a hash, a list... for a string operation; a string
		// for a lease's hash).
		return fmt.Errorf("%w: the %s at %s holds a value of another Redis type at that key: %s (%w)", kv.ErrNotLease, e.kind(), e.addr, msg, errWrongType)
	case ok:
		return e.storeError(kind, detail, msg)
	}
	switch {
	case isProtocolError(msg) && bulkTooLarge.MatchString(msg):
		// A value (or token) over the server's bulk limit; the check
		// before sending catches values once the limit is known.
		return fmt.Errorf("%w for the %s at %s, which refused it: %s", kv.ErrValueTooLarge, e.kind(), e.addr, strings.TrimPrefix(msg, "ERR "))
	case serverLimit(msg) != "":
		return fmt.Errorf("%w: the %s at %s %s: %s", kv.ErrUnavailable, e.kind(), e.addr, serverLimit(msg), msg)
	case notServing(msg):
		return fmt.Errorf("%w: the %s at %s cannot take the command now (nothing ran): %s", kv.ErrUnavailable, e.kind(), e.addr, msg)
	case strings.HasPrefix(msg, "NOAUTH"), strings.HasPrefix(msg, "WRONGPASS"):
		return fmt.Errorf("%w: the %s at %s refused the password (set ephpm.server_password): %s", kv.ErrUnavailable, e.kind(), e.addr, msg)
	}
	return fmt.Errorf("%s at %s: %s", e.kind(), e.addr, msg)
}

// errWrongType: a Valkey or Redis key of another type than the
// operation's (kv.ErrNotLease too). Incr reports it as kv.ErrNotInteger, as
// the in-process store does for any value that is not an integer.
var errWrongType = errors.New("wrong type")

// storeError words an engine error the server reported.
func (e *Engine) storeError(kind error, detail, reply string) error {
	switch {
	case kind == kv.ErrFull && detail == "":
		return fmt.Errorf("%w at the %s %s: %s", kv.ErrFull, e.kind(), e.addr, reply)
	case kind == kv.ErrFull:
		return fmt.Errorf("%w at the %s %s: %s", kv.ErrFull, e.kind(), e.addr, detail)
	case kind == kv.ErrValueTooLarge:
		return fmt.Errorf("%w for the %s at %s (%s)", kv.ErrValueTooLarge, e.kind(), e.addr, detail)
	case detail == "":
		return kind
	}
	return fmt.Errorf("%w: %s (the %s at %s)", kind, detail, e.kind(), e.addr)
}

// bulkTooLarge matches the server's protocol errors about one argument's
// size ("invalid bulk length N", and "bulk of N bytes" from ephpm-kv
// servers before their own RESP reader), not the argument count
// ("multibulk length").
var bulkTooLarge = regexp.MustCompile(`(^|[^a-z])bulk (of|length) [0-9]`)

// neverMatches checks key and reports a token that cannot equal any value
// the server holds: longer than its value limit. Such a token is not sent:
// past 64 KiB (every server's smallest bulk limit) the server may refuse
// it as a protocol error and close the connection, where the answer is
// simply "no match", as it is in process.
func (e *Engine) neverMatches(key string, token []byte) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	if len(token) <= kv.MaxKeySize {
		return false, nil
	}
	err := e.checkValue(token)
	if errors.Is(err, kv.ErrValueTooLarge) {
		return true, nil
	}
	return false, err
}

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
		if e.isRedis.Load() {
			return fmt.Errorf("%w: %d bytes, the %s at %s has proto-max-bulk-len %d",
				kv.ErrValueTooLarge, len(value), e.kind(), e.addr, limit)
		}
		return fmt.Errorf("%w: %d bytes, the ephpm-kv server at %s has --max-value-size %d",
			kv.ErrValueTooLarge, len(value), e.addr, limit)
	}
	return nil
}

// learnMaxValue asks the server for its max_value_size (one round trip per
// connection; this also dials when there is no connection yet).
func (e *Engine) learnMaxValue() (int64, error) {
	limit := int64(limitNone)
	err := e.statsPairs(func(name string, value int64) {
		if name == "max_value_size" && value > 0 {
			limit = value
		}
	})
	var again *notRun
	if errors.As(err, &again) && again.unknownCommand {
		// Not an ephpm-kv server: a Valkey or Redis, which says its
		// limit another way.
		if err := e.learnRedis(); err != nil {
			return 0, err
		}
		return e.maxValue.Load(), nil
	}
	var reply replyError
	if errors.As(err, &reply) && keepsConnection(reply) {
		// A server that answers neither way: it checks sizes itself.
		e.maxValue.Store(limitNone)
		return limitNone, nil
	}
	if err != nil {
		return 0, err
	}
	e.maxValue.Store(limit)
	return limit, nil
}

// statsPairs runs EPHPM.STATS and calls fn for each name and integer value.
func (e *Engine) statsPairs(fn func(name string, value int64)) error {
	return e.roundTrip(func(c *client) {
		c.command(1)
		c.arg("EPHPM.STATS")
	}, func(_ int, r *reply, c *client) error {
		return readStatsPairs(r, c, fn)
	})
}

// readStatsPairs reads EPHPM.STATS's reply, which also tells this
// connection's dialect.
func readStatsPairs(r *reply, c *client, fn func(name string, value int64)) error {
	{
		if r.kind != '*' || r.n < 0 {
			return errUnexpected(r)
		}
		var name string
		evictable := false
		for i := int64(0); i < r.n; i++ {
			el, err := c.read()
			if err != nil {
				return err
			}
			switch {
			case i%2 == 0 && el.kind == '$' && el.n >= 0:
				name = string(el.data)
				evictable = evictable || name == "bytes_evictable"
			case i%2 == 1 && el.kind == ':':
				fn(name, el.n)
			case el.kind == '*':
				return errUnexpected(&el) // nested: out of step
			}
		}
		c.dialect.kind, c.dialect.evictable = dialectEphpm, evictable
		return nil
	}
}

// ms checks a ttl (0 through kv.MaxTTL, else kv.ErrBadTTL, before anything
// is sent) and rounds it up to whole milliseconds, the server's unit, so a
// positive sub-millisecond ttl never becomes 0 ("no expiry").
func ms(ttl time.Duration) (int64, error) {
	if err := kv.CheckTTL(ttl); err != nil {
		return 0, err
	}
	return int64((ttl + time.Millisecond - 1) / time.Millisecond), nil
}

// intCmd runs a command whose reply is an integer.
func (e *Engine) intCmd(build func(c *client)) (int64, error) {
	var n int64
	err := e.do(build, func(_ int, r *reply, _ *client) error {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		n = r.n
		return nil
	})
	return n, err
}

// intOrBulk reads an integer reply, or a bulk holding one (what a script
// returns for a number that a Lua double could not hold exactly).
func intOrBulk(r *reply) (int64, error) {
	switch r.kind {
	case ':':
		return r.n, nil
	case '$':
		if n, err := strconv.ParseInt(string(r.data), 10, 64); err == nil && r.n >= 0 {
			return n, nil
		}
	}
	return 0, errUnexpected(r)
}

func (e *Engine) boolCmd(build func(c *client)) (bool, error) {
	n, err := e.intCmd(build)
	return n == 1, err
}

// okCmd runs a command whose reply is +OK; nil is (false, nil) (SET NX).
func (e *Engine) okCmd(build func(c *client)) (bool, error) {
	var ok bool
	err := e.do(build, func(_ int, r *reply, _ *client) error {
		switch {
		case r.kind == '+':
			ok = true
		case !r.isNil():
			return errUnexpected(r)
		}
		return nil
	})
	return ok, err
}

// keyCmd builds NAME key.
func keyCmd(name, key string) func(c *client) {
	return func(c *client) {
		c.command(2)
		c.arg(name)
		c.arg(key)
	}
}

// tokenCmd builds NAME key token.
func tokenCmd(name, key string, token []byte) func(c *client) {
	return func(c *client) {
		c.command(3)
		c.arg(name)
		c.arg(key)
		c.argBytes(token)
	}
}

// setCmd appends SET key value [NX] [PX px].
func setCmd(c *client, key string, value []byte, nx bool, px int64) {
	n := 3
	if nx {
		n++
	}
	if px > 0 {
		n += 2
	}
	c.command(n)
	c.arg("SET")
	c.arg(key)
	c.argBytes(value)
	if nx {
		c.arg("NX")
	}
	if px > 0 {
		c.arg("PX")
		c.argInt(px)
	}
}

// getReply takes GET's reply: the value copied into dst, or kept for the
// next Get when it does not fit.
func (e *Engine) getReply(r *reply, key string, dst []byte) (n int, found bool, err error) {
	switch {
	case r.isNil():
		return 0, false, nil
	case r.kind != '$':
		return 0, false, errUnexpected(r)
	}
	return e.keepValue(key, r.data, dst), true, nil
}

// Get implements kv.Engine.
func (e *Engine) Get(key string, dst []byte) (int, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, false, err
	}
	e.pendingMu.Lock()
	if e.pendingValue != nil && e.pendingKey == key && len(e.pendingValue) <= len(dst) {
		v := e.pendingValue
		e.pendingKey, e.pendingValue = "", nil
		e.hasPending.Store(false)
		e.pendingMu.Unlock()
		return copy(dst, v), true, nil
	}
	e.pendingMu.Unlock()
	var (
		n     int
		found bool
	)
	err := e.roundTrip(keyCmd("GET", key), func(_ int, r *reply, _ *client) (err error) {
		n, found, err = e.getReply(r, key, dst)
		return err
	})
	if err != nil {
		return 0, false, err
	}
	return n, found, nil
}

// GetMulti implements kv.MultiGetter: one MGET, one round trip.
func (e *Engine) GetMulti(keys []string, fn func(i int, value []byte, found bool)) error {
	for _, k := range keys {
		if err := kv.CheckKey(k); err != nil {
			return err
		}
	}
	if len(keys) == 0 {
		return nil
	}
	return e.roundTrip(func(c *client) {
		c.command(1 + len(keys))
		c.arg("MGET")
		for _, k := range keys {
			c.arg(k)
		}
	}, func(_ int, r *reply, c *client) error {
		if r.kind != '*' || r.n != int64(len(keys)) {
			return errUnexpected(r)
		}
		for i := range keys {
			el, err := c.read()
			if err != nil {
				return err
			}
			switch {
			case el.isNil():
				fn(i, nil, false)
			case el.kind == '$':
				fn(i, el.data, true)
			default:
				return errUnexpected(&el) // the rest stays unread: the connection is dropped
			}
		}
		return nil
	})
}

var _ kv.MultiGetter = (*Engine)(nil)

// keepValue copies v into dst when it fits, else keeps a copy for the Get
// that follows with a larger buffer; it returns v's length.
func (e *Engine) keepValue(key string, v, dst []byte) int {
	if len(v) > len(dst) {
		e.pendingMu.Lock()
		e.pendingKey, e.pendingValue = strings.Clone(key), append([]byte(nil), v...)
		e.hasPending.Store(true)
		e.pendingMu.Unlock()
		return len(v)
	}
	return copy(dst, v)
}

func (e *Engine) dropPending() {
	e.pendingMu.Lock()
	e.pendingKey, e.pendingValue = "", nil
	e.hasPending.Store(false)
	e.pendingMu.Unlock()
}

// Set implements kv.Engine.
func (e *Engine) Set(key string, value []byte, ttl time.Duration) error {
	px, err := ms(ttl)
	if err == nil {
		err = kv.CheckKey(key)
	}
	if err != nil {
		return err
	}
	if err := e.checkValue(value); err != nil {
		return err
	}
	ok, err := e.okCmd(func(c *client) { setCmd(c, key, value, false, px) })
	if err == nil && !ok {
		return e.classify(errProtocolReply{"nil reply to SET"})
	}
	return err
}

// SetEvictable implements kv.Cache: EPHPM.SETEVICTABLE on an ephpm-kv
// server, whose memory limit evicts such entries (and only those). On a
// Valkey or Redis it is a plain SET, held: evicting there takes a
// maxmemory-policy that would evict locks as well, which this client
// refuses (ErrEvicting). On an ephpm-kv server older than the command, a
// SET too.
func (e *Engine) SetEvictable(key string, value []byte, ttl time.Duration) error {
	ok, err := e.setEvictable(key, value, ttl, false)
	if err == nil && !ok {
		return e.classify(errProtocolReply{"nil reply to EPHPM.SETEVICTABLE"})
	}
	return err
}

// SetNXEvictable implements kv.Cache: EPHPM.SETEVICTABLE with NX, or on a
// Valkey, a Redis or an older ephpm-kv server a held SET NX.
func (e *Engine) SetNXEvictable(key string, value []byte, ttl time.Duration) (bool, error) {
	return e.setEvictable(key, value, ttl, true)
}

func (e *Engine) setEvictable(key string, value []byte, ttl time.Duration, nx bool) (bool, error) {
	px, err := ms(ttl)
	if err == nil {
		err = kv.CheckKey(key)
	}
	if err != nil {
		return false, err
	}
	if err := e.checkValue(value); err != nil {
		return false, err
	}
	return e.okCmd(func(c *client) {
		if d := c.dialect; d.redis() || (d.kind == dialectEphpm && !d.evictable) {
			setCmd(c, key, value, nx, px)
			return
		}
		n := 4
		if nx {
			n++
		}
		c.command(n)
		c.arg("EPHPM.SETEVICTABLE")
		c.arg(key)
		c.argBytes(value)
		c.argInt(px)
		if nx {
			c.arg("NX")
		}
	})
}

var _ kv.Cache = (*Engine)(nil)

// SetNX implements kv.Engine.
func (e *Engine) SetNX(key string, value []byte, ttl time.Duration) (bool, error) {
	px, err := ms(ttl)
	if err == nil {
		err = kv.CheckKey(key)
	}
	if err != nil {
		return false, err
	}
	if err := e.checkValue(value); err != nil {
		return false, err
	}
	return e.okCmd(func(c *client) { setCmd(c, key, value, true, px) })
}

// Del implements kv.Engine.
func (e *Engine) Del(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	return e.boolCmd(keyCmd("DEL", key))
}

// DelIfEq implements kv.Engine.
func (e *Engine) DelIfEq(key string, token []byte) (bool, error) {
	if never, err := e.neverMatches(key, token); never || err != nil {
		return false, err
	}
	return e.boolCmd(func(c *client) {
		switch d := c.dialect; {
		case !d.redis() || d.delIfEq:
			tokenCmd("DELIFEQ", key, token)(c)
		case d.delEx:
			c.command(4)
			c.arg("DELEX")
			c.arg(key)
			c.arg("IFEQ")
			c.argBytes(token)
		default:
			c.evalsha(scriptDelIfEq, 1, 1)
			c.arg(key)
			c.argBytes(token)
		}
	})
}

// Exists implements kv.Engine.
func (e *Engine) Exists(key string) (bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return false, err
	}
	return e.boolCmd(keyCmd("EXISTS", key))
}

// Expire implements kv.Engine.
func (e *Engine) Expire(key string, ttl time.Duration) (bool, error) {
	px, err := ms(ttl)
	if err == nil {
		err = kv.CheckKey(key)
	}
	if err != nil {
		return false, err
	}
	return e.boolCmd(func(c *client) {
		switch {
		case !c.dialect.redis():
			c.command(3)
			c.arg("EPHPM.PEXPIRE")
		case px > 0:
			c.command(3)
			c.arg("PEXPIRE")
		default:
			c.evalsha(scriptExpire, 1, 1)
		}
		c.arg(key)
		c.argInt(px)
	})
}

// ExpireIfEq implements kv.Engine.
func (e *Engine) ExpireIfEq(key string, token []byte, ttl time.Duration) (bool, error) {
	px, err := ms(ttl)
	if err != nil {
		return false, err
	}
	if never, err := e.neverMatches(key, token); never || err != nil {
		return false, err
	}
	var ok bool
	err = e.do(func(c *client) {
		// Always the script on a Valkey or Redis, even one with SET ...
		// IFEQ: a SET is refused over maxmemory (denyoom), PEXPIRE is
		// not, and a holder that cannot renew at a full server loses
		// its lock.
		if c.dialect.redis() {
			c.evalsha(scriptExpireIfEq, 1, 2)
		} else {
			c.command(4)
			c.arg("EPHPM.PEXPIREIFEQ")
		}
		c.arg(key)
		c.argBytes(token)
		c.argInt(px)
	}, func(_ int, r *reply, _ *client) error {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		ok = r.n == 1
		return nil
	})
	return ok, err
}

// ttlReply turns -2/-1/n-units into a TTL. An n too large for a Duration
// (a server that kept a TTL past kv.MaxTTL, such as one from before the
// maximum) saturates: wrapped, a live key's TTL would read as negative.
// 0 (a live key in its last unit: Redis's PTTL truncates, the ephpm-kv
// server's rounds) is one unit: a live key's TTL is positive, as in
// process, never the 0 that as a TTL means "no expiry".
func ttlReply(n int64, unit time.Duration) time.Duration {
	switch {
	case n < 0:
		return time.Duration(n) // kv.TTLMissing / kv.TTLPersistent
	case n == 0:
		return unit
	case n > math.MaxInt64/int64(unit):
		return math.MaxInt64
	}
	return time.Duration(n) * unit
}

// TTL implements kv.Engine.
func (e *Engine) TTL(key string) (time.Duration, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	n, err := e.intCmd(keyCmd("PTTL", key))
	if err != nil {
		return 0, err
	}
	return ttlReply(n, time.Millisecond), nil
}

// TTLIfEq implements kv.Engine.
func (e *Engine) TTLIfEq(key string, token []byte) (time.Duration, error) {
	if never, err := e.neverMatches(key, token); never || err != nil {
		return kv.TTLMissing, err
	}
	var ttl time.Duration
	err := e.do(func(c *client) {
		if !c.dialect.redis() {
			tokenCmd("EPHPM.PTTLIFEQ", key, token)(c)
			return
		}
		c.evalsha(scriptTTLIfEq, 1, 1)
		c.arg(key)
		c.argBytes(token)
	}, func(_ int, r *reply, c *client) error {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		unit := time.Microsecond
		if c.dialect.redis() {
			unit = time.Millisecond
		}
		ttl = ttlReply(r.n, unit)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return ttl, nil
}

// Incr implements kv.Engine.
func (e *Engine) Incr(key string, by int64, ttl time.Duration) (int64, error) {
	px, err := ms(ttl)
	if err == nil {
		err = kv.CheckKey(key)
	}
	if err != nil {
		return 0, err
	}
	var n int64
	err = e.do(func(c *client) {
		if c.dialect.redis() {
			c.evalsha(scriptIncr, 1, 2)
		} else {
			c.command(4)
			c.arg("EPHPM.INCRBY")
		}
		c.arg(key)
		c.argInt(by)
		c.argInt(px)
	}, func(_ int, r *reply, _ *client) (err error) {
		n, err = intOrBulk(r)
		return err
	})
	if errors.Is(err, errWrongType) {
		return 0, fmt.Errorf("%w: %v", kv.ErrNotInteger, err)
	}
	return n, err
}

// SetNXFenced implements kv.Engine.
func (e *Engine) SetNXFenced(key string, value []byte, ttl time.Duration) (int64, bool, error) {
	px, err := ms(ttl)
	if err == nil {
		err = kv.CheckKey(key)
	}
	if err != nil {
		return 0, false, err
	}
	if err := e.checkValue(value); err != nil {
		return 0, false, err
	}
	var fence int64
	err = e.do(func(c *client) {
		if !c.dialect.redis() {
			c.command(4)
			c.arg("EPHPM.SETNXFENCED")
			c.arg(key)
		} else {
			c.evalsha(scriptSetNXFenced, 2, 2)
			c.arg(key)
			c.arg(fenceCounterKey)
		}
		c.argBytes(value)
		c.argInt(px)
	}, func(_ int, r *reply, _ *client) (err error) {
		fence, err = intOrBulk(r)
		return err
	})
	if err != nil {
		return 0, false, e.fenceCounterError(err)
	}
	return fence, fence != 0, nil
}

// fenceCounterError words a Valkey or Redis's refusal of the fence counter
// (what a fenced script's ErrNotInteger means there).
func (e *Engine) fenceCounterError(err error) error {
	if errors.Is(err, kv.ErrNotInteger) && e.isRedis.Load() {
		return fmt.Errorf("%w: the fence counter %s on the %s at %s is not a decimal integer below 2^53-1 (another client wrote it; delete it to restart fences from the server's clock)",
			kv.ErrNotInteger, fenceCounterKey, e.kind(), e.addr)
	}
	return err
}

// Fence implements kv.Engine.
func (e *Engine) Fence(resource string, fence int64) (bool, error) {
	if err := kv.CheckKey(resource); err != nil {
		return false, err
	}
	return e.boolCmd(func(c *client) {
		if c.dialect.redis() {
			c.evalsha(scriptFence, 1, 1)
			c.arg(fenceMarkPrefix + resource)
		} else {
			c.command(3)
			c.arg("EPHPM.FENCE")
			c.arg(resource)
		}
		c.argInt(fence)
	})
}

// Flush implements kv.Engine. FLUSHDB, not FLUSHALL: a Redis may hold other
// software's data in its other databases.
func (e *Engine) Flush() error {
	ok, err := e.okCmd(func(c *client) {
		c.command(1)
		c.arg("FLUSHDB")
	})
	if err == nil && !ok {
		return e.classify(errProtocolReply{"nil reply to FLUSHDB"})
	}
	return err
}

// Stats implements kv.Engine.
func (e *Engine) Stats() (kv.Stats, error) {
	var st kv.Stats
	err := e.do(func(c *client) {
		if c.dialect.redis() {
			redisStatsCmd(c)
			return
		}
		c.command(1)
		c.arg("EPHPM.STATS")
	}, func(i int, r *reply, c *client) error {
		if c.dialect.redis() {
			return e.readRedisStats(i, r, &st)
		}
		return readStatsPairs(r, c, func(name string, value int64) {
			for _, f := range kv.StatsFields {
				if f.Name == name {
					*f.Of(&st) = value
				}
			}
		})
	})
	if err != nil {
		return kv.Stats{}, err
	}
	return st, nil
}

// LockAndGet implements kv.Engine in one round trip: SET lock token NX PX
// and GET key, pipelined. When the lock was not acquired, the GET's reply
// is read and dropped.
func (e *Engine) LockAndGet(lock string, token []byte, lockTTL time.Duration, key string, dst []byte) (bool, int, bool, error) {
	px, err := ms(lockTTL)
	if err == nil {
		err = errors.Join(kv.CheckKey(lock), kv.CheckKey(key))
	}
	if err != nil {
		return false, 0, false, err
	}
	if err := e.checkValue(token); err != nil {
		return false, 0, false, err
	}
	var (
		acquired, found, held bool
		n                     int
	)
	err = e.roundTrip(func(c *client) {
		setCmd(c, lock, token, true, px)
		c.command(2)
		c.arg("GET")
		c.arg(key)
	}, func(i int, r *reply, _ *client) (err error) {
		if i == 0 {
			if acquired = r.kind == '+'; !acquired && !r.isNil() {
				return errUnexpected(r)
			}
			held = !acquired
			return nil
		}
		if !acquired {
			return nil
		}
		n, found, err = e.getReply(r, key, dst)
		return err
	})
	if err != nil && acquired && !errors.Is(err, kv.ErrUnavailable) {
		// The lock was taken but the read refused (a Redis key of
		// another type): given back, not left to block the next
		// request for its TTL. Not after a timeout: nothing answers.
		e.DelIfEq(lock, token)
	}
	if err != nil && held && !errors.Is(err, kv.ErrUnavailable) {
		// Held by someone else: the GET's reply is dropped unread, so
		// its refusal too (a Redis key of another type).
		return false, 0, false, nil
	}
	if err != nil {
		return false, 0, false, err
	}
	return acquired, n, found, nil
}

// SetIfLocked implements kv.Engine with EPHPM.SETIFLOCKED, and DELIFEQ
// pipelined after it to release: one round trip either way. The server
// runs them in order, so the lock goes after the write. When the lock was
// not ours, the DELIFEQ finds another token (or none) and deletes nothing.
func (e *Engine) SetIfLocked(key string, value []byte, ttl time.Duration, lock string, token []byte, lockTTL time.Duration, release bool) (bool, error) {
	px, err := ms(ttl)
	if err != nil {
		return false, err
	}
	lockPX, err := ms(lockTTL)
	if err == nil {
		err = errors.Join(kv.CheckKey(key), kv.CheckKey(lock))
	}
	if err != nil {
		return false, err
	}
	if err := e.checkValue(value); err != nil {
		return false, err
	}
	if never, err := e.neverMatches(lock, token); never || err != nil {
		return false, err
	}
	var written, unknown bool
	err = e.do(func(c *client) {
		unknown = c.dialect.kind == dialectUnknown
		if c.dialect.redis() {
			// One script: check, write, then renew or release.
			c.evalsha(scriptSetIfLocked, 2, 5)
			c.arg(key)
			c.arg(lock)
			c.argBytes(value)
			c.argInt(px)
			c.argBytes(token)
			c.argInt(lockPX)
			if release {
				c.arg("1")
			} else {
				c.arg("0")
			}
			return
		}
		c.command(7)
		c.arg("EPHPM.SETIFLOCKED")
		c.arg(key)
		c.argBytes(value)
		c.argInt(px)
		c.arg(lock)
		c.argBytes(token)
		c.argInt(lockPX)
		// Not to a server not known to be an ephpm-kv server: a Valkey 9
		// would run the DELIFEQ after refusing EPHPM.SETIFLOCKED, releasing
		// the lock without the write.
		if release && !unknown {
			tokenCmd("DELIFEQ", lock, token)(c)
		}
	}, func(i int, r *reply, c *client) error {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		if i == 0 {
			written = r.n == 1
			if unknown {
				c.dialect.kind = dialectEphpm // it ran EPHPM.SETIFLOCKED
			}
		}
		return nil
	})
	if err == nil && written && release && unknown {
		// An ephpm-kv server wrote (a Valkey or Redis would have been
		// sent the script): release now, after the write, one round
		// trip more, on a connection's first use only.
		_, err = e.DelIfEq(lock, token)
	}
	return written, err
}
