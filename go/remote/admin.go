package remote

// The whole store: flush and stats.

import (
	"github.com/ephpm/ephpm-kv/kv"
)

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
			return readRedisStats(i, r, &st, e.maxValue.Load())
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
