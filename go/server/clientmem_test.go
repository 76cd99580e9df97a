package server

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitClientMem waits until all clients' buffers hold at least least bytes.
func waitClientMem(t *testing.T, s *Server, least int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); s.clientMem.Load() < least; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("clients' buffers hold %d bytes, want at least %d", s.clientMem.Load(), least)
		}
	}
}

// unfinishedSet sends all of a SET of an n-byte value but its last byte.
func unfinishedSet(t *testing.T, addr, key string, n int) *respConn {
	rc := dial(t, "unix", addr)
	rc.c.Write([]byte("*3\r\n$3\r\nSET\r\n$" + strconv.Itoa(len(key)) + "\r\n" + key + "\r\n$" + strconv.Itoa(n) + "\r\n" + strings.Repeat("v", n-1)))
	return rc
}

// One budget bounds all clients' buffers together: the client whose read
// buffer would pass it closes the clients with the largest buffers (here
// not itself), counted in INFO; the others, and the small ones, go on.
func TestClientMemoryBudget(t *testing.T) {
	const kib = 1 << 10
	s, addr := startServer(t, Config{MaxBulk: 60 * kib, MaxCommandSize: 64 * kib, MaxClientMemory: 160 * kib})
	small := dial(t, "unix", addr)
	runSteps(t, small, []step{cmd("PONG", "PING")})
	big := unfinishedSet(t, addr, "big", 60*kib) // a 64 KiB read buffer
	waitClientMem(t, s, 64*kib)
	var mid []*respConn
	for i, least := range []int64{96 * kib, 128 * kib} {
		mid = append(mid, unfinishedSet(t, addr, "mid"+strconv.Itoa(i), 28*kib)) // 32 KiB each
		waitClientMem(t, s, least)
	}
	// The last one's buffer doubles from 16 to 32 KiB: with both live,
	// 180 KiB, over the budget.
	mid = append(mid, unfinishedSet(t, addr, "mid2", 28*kib))
	big.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := big.r.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the client with the largest buffer read %d bytes, %v: want the connection closed", n, err)
	}
	for i, rc := range mid {
		rc.c.Write([]byte("v\r\n"))
		if got := rc.read(); got != "OK" {
			t.Errorf("client %d of 32 KiB: %s", i, got)
		}
	}
	runSteps(t, small, []step{cmd("PONG", "PING")})
	info, _ := strconv.Unquote(small.do("INFO"))
	if !strings.Contains(info, "evicted_clients:1\r\n") || !strings.Contains(info, "maxmemory_clients:163840\r\n") {
		t.Errorf("INFO does not count the client closed for the budget:\n%s", info)
	}
	if used := s.clientMem.Load(); used > s.cfg.MaxClientMemory {
		t.Errorf("clients hold %d bytes, over the budget of %d", used, s.cfg.MaxClientMemory)
	}
	// what closed clients held is given back
	for _, rc := range append(mid, small) {
		rc.c.Close()
	}
	for deadline := time.Now().Add(5 * time.Second); s.clientMem.Load() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no clients, yet their buffers hold %d bytes", s.clientMem.Load())
		}
	}
}

// A client whose own buffer passes the budget, being the largest, gets an
// error reply that says why, and is closed.
func TestClientMemoryBudgetClosesTheGrowingClient(t *testing.T) {
	const kib = 1 << 10
	s, addr := startServer(t, Config{MaxBulk: 60 * kib, MaxCommandSize: 64 * kib, MaxClientMemory: 160 * kib})
	a := unfinishedSet(t, addr, "a", 28*kib)
	waitClientMem(t, s, 32*kib)
	b := unfinishedSet(t, addr, "b", 28*kib)
	waitClientMem(t, s, 64*kib)
	c := unfinishedSet(t, addr, "c", 60*kib) // doubling 32 to 64 KiB: 96 KiB of its own
	if got := c.read(); !strings.HasPrefix(got, "ERR max memory for clients reached") {
		t.Fatalf("the growing client read %q", got)
	}
	for _, rc := range []*respConn{a, b} {
		rc.c.Write([]byte("v\r\n"))
		if got := rc.read(); got != "OK" {
			t.Errorf("a smaller client: %s", got)
		}
	}
	if n := s.clientEvictions.Load(); n != 1 {
		t.Errorf("%d clients closed, want 1", n)
	}
}

// The budget must hold one command of the largest size.
func TestClientMemoryBudgetTooSmall(t *testing.T) {
	if _, err := New(Config{Unix: "unused", MaxCommandSize: 1 << 20, MaxClientMemory: 1 << 20}); err == nil || !strings.Contains(err.Error(), "budget") {
		t.Errorf("a budget of one command: %v", err)
	}
	s, err := New(Config{Unix: "unused", MaxCommandSize: 100 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.store.Close()
	if s.cfg.MaxClientMemory != MinClientMemory(100<<20) {
		t.Errorf("default budget %d for 100 MiB commands", s.cfg.MaxClientMemory)
	}
}
