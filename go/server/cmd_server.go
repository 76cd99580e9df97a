package server

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"
)

// Server commands: COMMAND, CONFIG, DBSIZE, FLUSHDB, FLUSHALL, INFO.

var pid = os.Getpid()

// cmdCommand implements COMMAND: enough for redis-cli, which asks for COMMAND
// DOCS at start.
func cmdCommand(s *Server, c *conn, a [][]byte) {
	if len(a) > 1 && strings.EqualFold(string(a[1]), "count") {
		c.WriteInt(len(commands))
		return
	}
	c.WriteArray(0)
}

// CONFIG GET answers each parameter with an empty value, so tools that
// probe settings (redis-benchmark asks for save and appendonly) go on.
func cmdConfig(s *Server, c *conn, a [][]byte) {
	if strings.EqualFold(string(a[1]), "get") {
		c.WriteArray(2 * (len(a) - 2))
		for _, p := range a[2:] {
			c.WriteBulk(p)
			c.WriteBulkString("")
		}
		return
	}
	c.WriteError(errUnsupported("CONFIG " + strings.ToUpper(string(a[1]))))
}

func cmdDBSize(s *Server, c *conn, a [][]byte) { c.WriteInt64(s.store.Counters().Keys) }

// FLUSHDB, FLUSHALL [SYNC|ASYNC]
func cmdFlush(s *Server, c *conn, a [][]byte) {
	if len(a) > 2 || (len(a) == 2 && !strings.EqualFold(string(a[1]), "sync") && !strings.EqualFold(string(a[1]), "async")) {
		c.WriteError(errSyntax)
		return
	}
	s.store.Flush()
	c.WriteString("OK")
}

func cmdInfo(s *Server, c *conn, a [][]byte) {
	st := s.store.Counters()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Server\r\nredis_version:7.0.0\r\nephpm_kv_version:%s\r\nredis_mode:standalone\r\nprocess_id:%d\r\nuptime_in_seconds:%d\r\n",
		Version, pid, int64(time.Since(s.started).Seconds()))
	fmt.Fprintf(&b, "\r\n# Clients\r\nconnected_clients:%d\r\nmaxclients:%d\r\n", s.clients.Load(), s.cfg.MaxClients)
	// maxmemory_policy: noeviction for every key Redis's commands write;
	// only EPHPM.SETEVICTABLE's entries (bytes_evictable) are evicted.
	fmt.Fprintf(&b, "\r\n# Memory\r\nused_memory:%d\r\nmaxmemory:%d\r\nmaxmemory_policy:noeviction\r\nbytes_evictable:%d\r\nmem_clients_normal:%d\r\nmaxmemory_clients:%d\r\n",
		st.BytesUsed, st.BytesLimit, st.BytesEvictable, s.clientMem.Load(), s.cfg.MaxClientMemory)
	fmt.Fprintf(&b, "\r\n# Stats\r\ntotal_connections_received:%d\r\ntotal_commands_processed:%d\r\nrejected_connections:%d\r\n",
		s.totalConns.Load(), s.totalCmds.Load(), s.rejectedConns.Load())
	fmt.Fprintf(&b, "client_query_buffer_limit_disconnections:%d\r\nclient_output_buffer_limit_disconnections:%d\r\nevicted_clients:%d\r\n",
		s.queryLimitDrops.Load(), s.outputLimitDrops.Load(), s.clientEvictions.Load())
	fmt.Fprintf(&b, "keyspace_hits:%d\r\nkeyspace_misses:%d\r\nexpired_keys:%d\r\nevicted_keys:%d\r\nrejected_writes:%d\r\ncompressed_keys:%d\r\nfence_records:%d\r\n",
		st.Hits, st.Misses, st.Expired, st.Evicted, st.Rejected, st.Compressed, st.Fences)
	fmt.Fprintf(&b, "\r\n# Keyspace\r\ndb0:keys=%d\r\n", st.Keys)
	c.WriteBulk(b.Bytes())
}
