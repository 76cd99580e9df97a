package server

import (
	"cmp"
	"errors"
	"slices"
	"time"
	"unsafe"
)

// The budget for all clients' buffers (--max-client-memory, as Redis 7's
// maxmemory-clients). A connection alone is bounded by the command limit,
// but many connections each holding an unfinished command of that size
// are not (200 clients with 3 MiB each took the server to 920 MiB): so each
// connection's buffers are counted in one total, and when it passes the
// budget the clients with the largest buffers are closed until it is back
// under, counted in INFO (evicted_clients; the total is mem_clients_normal).
//
// A read buffer is charged before it grows (the old and the new buffer are
// both live while one is copied to the other), so the total never lags
// what the connections hold; the reply buffer, the argument lists and a
// shrunk read buffer are counted after each command and each read.

// DefaultMaxClientMemory is the default budget. Under a flood the live
// buffers reach the budget and as much again is garbage before the
// collector runs (GOGC=100), so 128 MiB keeps the server under 300 MiB
// whatever the clients send, yet holds 32 commands of the largest default
// size (4 MiB) at once, or 6,000 idle clients (4-20 KiB each).
const DefaultMaxClientMemory = 128 << 20

// reserveWaits bounds, in milliseconds, how long a client that needs a
// larger buffer waits for the clients closed to make room to let go.
const reserveWaits = 100

// MinClientMemory is the smallest budget that lets one client send a
// command of maxCommand bytes: its read buffer and the one it doubles into.
func MinClientMemory(maxCommand int64) int64 { return 2 * (maxCommand + 1) }

// errClientMemory tells a client it had the largest buffers when the budget
// ran out.
var errClientMemory = errors.New("ERR max memory for clients reached (--max-client-memory): this client had the largest buffers and is closed")

const (
	sliceBytes = int64(unsafe.Sizeof([]byte(nil)))
	intBytes   = int64(unsafe.Sizeof(0))
)

// buffered is what the connection's buffers hold.
func (c *conn) buffered() int64 {
	return int64(cap(c.rd.buf)) + int64(cap(c.rd.args))*sliceBytes + int64(cap(c.rd.offs))*intBytes + int64(cap(c.buf))
}

// account brings the connection's share of the total up to date.
func (c *conn) account() {
	if d := c.buffered() - c.mem.Load(); d != 0 {
		c.charge(d)
	}
}

// reserve charges n bytes before a buffer of that size is allocated; an
// error when this client is closed for it.
func (c *conn) reserve(n int64) error {
	c.charge(n)
	// The clients closed for this still hold their buffers until their
	// goroutines see the close: wait for that (a little), so that what
	// is live stays within the budget.
	for i := 0; i < reserveWaits && !c.evicted.Load() && c.s.clientMem.Load() > c.s.cfg.MaxClientMemory; i++ {
		time.Sleep(time.Millisecond)
	}
	if c.evicted.Load() {
		return errClientMemory
	}
	return nil
}

// charge adds delta to the connection's share and the total, and closes
// clients when the total passed the budget.
func (c *conn) charge(delta int64) {
	c.mem.Add(delta)
	if total := c.s.clientMem.Add(delta); delta > 0 && total > c.s.cfg.MaxClientMemory {
		c.s.evictClients(c)
	}
}

// release takes a closed connection's share out of the total.
func (c *conn) release() { c.s.clientMem.Add(-c.mem.Swap(0)) }

// evictClients closes the clients with the largest buffers until the total
// is within the budget. Clients already closed for it but not yet gone
// count as freed. self, the client whose growth passed the budget, is only
// marked: it answers with errClientMemory and closes itself.
func (s *Server) evictClients(self *conn) {
	type share struct {
		c   *conn
		mem int64
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	over := s.clientMem.Load() - s.cfg.MaxClientMemory
	shares := make([]share, 0, len(s.conns))
	for c := range s.conns {
		m := c.mem.Load()
		if c.evicted.Load() {
			over -= m
		} else {
			shares = append(shares, share{c, m})
		}
	}
	if over <= 0 {
		return
	}
	slices.SortFunc(shares, func(a, b share) int { return cmp.Compare(b.mem, a.mem) })
	for _, sh := range shares {
		if over <= 0 {
			break
		}
		sh.c.evicted.Store(true)
		over -= sh.mem
		s.clientEvictions.Add(1)
		s.evictions.event(sh.c.remoteAddr())
		if sh.c != self {
			sh.c.nc.Close()
		}
	}
}
