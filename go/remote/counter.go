package remote

// Counters and fences.

import (
	"errors"
	"fmt"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Incr implements kv.Engine.
func (e *Engine) Incr(key string, by int64, ttl time.Duration) (int64, error) {
	px, err := checkKeyTTL(key, ttl)
	if err != nil {
		return 0, err
	}
	var n int64
	err = e.do(func(c *client) {
		c.keyCommand(scriptIncr, "EPHPM.INCRBY", key, 2)
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
	px, err := checkWrite(e, key, value, ttl)
	if err != nil {
		return 0, false, err
	}
	return e.fencedCmd(func(c *client) {
		if !c.dialect.redis() {
			c.command(4)
			c.arg("EPHPM.SETNXFENCED")
			c.arg(key)
		} else {
			c.evalsha(scriptSetNXFenced, 3, 2)
			c.arg(key)
			c.arg(fenceCounterKey)
			c.arg(serverLockFenceKey(key))
		}
		c.argBytes(value)
		c.argInt(px)
	})
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
