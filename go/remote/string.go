package remote

// Get, set and delete (Valkey's t_string.c).

import (
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

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
	if err := checkKeys(keys); err != nil {
		return err
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
	px, err := checkWrite(e, key, value, ttl)
	if err != nil {
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
	px, err := checkWrite(e, key, value, ttl)
	if err != nil {
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
	px, err := checkWrite(e, key, value, ttl)
	if err != nil {
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

// DelMulti implements kv.MultiDeleter: one DEL.
func (e *Engine) DelMulti(keys []string) (int64, error) {
	if err := checkKeys(keys); err != nil || len(keys) == 0 {
		return 0, err
	}
	return e.intCmd(func(c *client) {
		c.command(1 + len(keys))
		c.arg("DEL")
		for _, k := range keys {
			c.arg(k)
		}
	})
}

var _ kv.MultiDeleter = (*Engine)(nil)

// DelIfEq implements kv.Engine.
func (e *Engine) DelIfEq(key string, token []byte) (bool, error) {
	if never, err := checkTokenOp(e, key, token); never || err != nil {
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
