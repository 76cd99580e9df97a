package remote

import (
	"bytes"
	"strconv"

	"github.com/ephpm/ephpm-kv/kv"
)

// Stats from a Valkey or Redis: DBSIZE and INFO, pipelined.
//
//	keys         DBSIZE (of the selected database; fence counters, fence
//	             marks and locks' fence records count as keys there)
//	bytes_used   used_memory: all the server's memory, as its allocator
//	             sees it, not the sum of keys and values
//	bytes_limit  maxmemory (0: none)
//	hits, misses, expired   keyspace_hits, keyspace_misses, expired_keys
//	evicted      evicted_keys (0: the client refuses a policy that evicts)
//	bytes_evictable   0: an evictable write is a held SET there
//	rejected     errorstat_OOM: commands refused over maxmemory
//	compressed, compress_min   0: Redis stores values as given
//	max_value_size   proto-max-bulk-len, learned at connect
func redisStatsCmd(c *client) {
	c.command(1)
	c.arg("DBSIZE")
	c.command(5)
	c.arg("INFO")
	c.arg("memory")
	c.arg("stats")
	c.arg("errorstats")
	c.arg("keyspace")
}

// readRedisStats reads Stats's replies from a Valkey or Redis: DBSIZE's
// (i 0), then INFO's. limit: the value limit learned, when positive.
func readRedisStats(i int, r *reply, st *kv.Stats, limit int64) error {
	if i == 0 {
		if r.kind != ':' {
			return errUnexpected(r)
		}
		st.Keys = r.n
		return nil
	}
	if r.kind != '$' || r.n < 0 {
		return errUnexpected(r)
	}
	fields := map[string]*int64{
		"used_memory":     &st.BytesUsed,
		"maxmemory":       &st.BytesLimit,
		"keyspace_hits":   &st.Hits,
		"keyspace_misses": &st.Misses,
		"expired_keys":    &st.Expired,
		"evicted_keys":    &st.Evicted,
	}
	for _, line := range bytes.Split(r.data, []byte("\r\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		if string(name) == "errorstat_OOM" {
			// errorstat_OOM:count=N
			value = bytes.TrimPrefix(value, []byte("count="))
			name = []byte("rejected")
		}
		var to *int64
		if string(name) == "rejected" {
			to = &st.Rejected
		} else if to = fields[string(name)]; to == nil {
			continue
		}
		if n, err := strconv.ParseInt(string(value), 10, 64); err == nil {
			*to = n
		}
	}
	if limit > 0 {
		st.MaxValueSize = limit
	}
	return nil
}
