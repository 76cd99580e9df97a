package remote

// The server's value limit, learned once per connection.

import (
	"errors"
	"fmt"

	"github.com/ephpm/ephpm-kv/kv"
)

// checkToken refuses, as checkValue does, a token longer than the
// server's value limit. A token no longer than a key fits every server, so
// it is let through without learning the limit (no round trip).
func (e *Engine) checkToken(token []byte) error {
	if len(token) <= kv.MaxKeySize {
		return nil
	}
	return e.checkValue(token)
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
