package server

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Replies written while the client is slow to read come out whole and in
// order: raw writes and writevs that the socket takes only in part, or
// refuses (EAGAIN) until the client reads, resume where they stopped.
func TestRawIOPartialWrites(t *testing.T) {
	_, addr := startServer(t, Config{})
	rc := dial(t, "unix", addr)
	rnd := rand.New(rand.NewPCG(1, 2))
	vals := map[string][]byte{"big": make([]byte, 600<<10+3), "mid": make([]byte, writeDirectMin), "small": make([]byte, 4000)}
	for k, v := range vals {
		for i := range v {
			v[i] = byte(rnd.UintN(256))
		}
		runSteps(t, rc, []step{cmd("OK", "SET", k, string(v))})
	}
	var req, want bytes.Buffer
	for i := range 312 { // writevs, then many small replies through the buffer
		k := "small"
		if i < 12 {
			k = []string{"small", "big", "mid", "small", "big"}[i%5]
		}
		req.WriteString("*2\r\n$3\r\nGET\r\n$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n")
		want.WriteString("$" + strconv.Itoa(len(vals[k])) + "\r\n")
		want.Write(vals[k])
		want.WriteString("\r\n")
	}
	if _, err := rc.c.Write(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the server fills the socket and waits
	got := make([]byte, want.Len())
	rc.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for n := 0; n < len(got); {
		m, err := rc.r.Read(got[n:min(len(got), n+1+rnd.IntN(100<<10))])
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", n, len(got), err)
		}
		n += m
	}
	if !bytes.Equal(got, want.Bytes()) {
		i := 0
		for got[i] == want.Bytes()[i] {
			i++
		}
		t.Fatalf("replies differ from byte %d of %d", i, len(got))
	}
	runSteps(t, rc, []step{cmd("PONG", "PING")})
}

// A client that does not read replies small enough to go through the
// reply buffer (not the writev of a big value) is closed too.
func TestUnreadSmallRepliesClosed(t *testing.T) {
	s, addr := startServer(t, Config{ClientWriteTimeout: 200 * time.Millisecond})
	ok := dial(t, "unix", addr)
	runSteps(t, ok, []step{cmd("OK", "SET", "v", strings.Repeat("v", writeDirectMin/2))})
	rc := dial(t, "unix", addr)
	rc.c.SetWriteDeadline(time.Now().Add(time.Second))
	for range 10000 {
		if _, err := rc.c.Write([]byte("*2\r\n$3\r\nGET\r\n$1\r\nv\r\n")); err != nil {
			break // the server stopped reading, or closed us
		}
	}
	for deadline := time.Now().Add(5 * time.Second); s.outputLimitDrops.Load() == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the client that does not read was not closed")
		}
	}
	rc.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, rc.c); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("connection not closed")
	}
	runSteps(t, ok, []step{cmd("PONG", "PING")})
}

// Commands that arrive while the server is busy with the previous ones,
// or just as it goes back to wait for more, are never left unread: many
// clients each send two commands a moment apart, again and again, and
// every reply must come.
func TestRawIONoLostWakeups(t *testing.T) {
	_, addr := startServer(t, Config{})
	const clients, rounds = 8, 1500
	errs := make(chan error, clients)
	for i := range clients {
		rc := dial(t, "unix", addr)
		go func() {
			rnd := rand.New(rand.NewPCG(uint64(i), 7))
			rc.c.SetDeadline(time.Now().Add(10 * time.Second))
			ping := []byte("*1\r\n$4\r\nPING\r\n")
			buf := make([]byte, 14)
			for range rounds {
				rc.c.Write(ping)
				for range rnd.IntN(3) * 1000 { // a pause of 0 to a few microseconds
					_ = rnd.Uint64()
				}
				rc.c.Write(ping)
				if _, err := io.ReadFull(rc.r, buf); err != nil {
					errs <- err
					return
				}
				if string(buf) != "+PONG\r\n+PONG\r\n" {
					errs <- errors.New("reply " + string(buf))
					return
				}
			}
			errs <- nil
		}()
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// A client that sends part of a command and closes at once: its data and
// its EOF may reach the server as one poller event, so a read that came
// back short must not be taken to mean "wait for the poller" (nothing would
// ever wake it: the connection and its goroutine would stay forever).
func TestRawIOSeesEOFAfterShortRead(t *testing.T) {
	s, addr := startServer(t, Config{})
	const conns = 200
	for range conns {
		c, err := net.Dial("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte("*2\r\n$3\r\nGET\r\n$5\r\nab"))
		c.Close()
	}
	for deadline := time.Now().Add(5 * time.Second); s.clients.Load() != 0 || s.totalConns.Load() != conns; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d connections still open after their clients closed", s.clients.Load(), s.totalConns.Load())
		}
	}
}
