package remote

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// trickle is a net.Conn whose reads return at most step bytes of src, as a
// slow socket would, and whose writes go to out.
type trickle struct {
	net.Conn
	src  *bytes.Reader
	step int
	out  bytes.Buffer
}

func (c *trickle) Read(p []byte) (int, error) {
	if len(p) > c.step {
		p = p[:c.step]
	}
	return c.src.Read(p)
}

func (c *trickle) Write(p []byte) (int, error) { return c.out.Write(p) }

func replies(stream string, step int) *client {
	return newClient(&trickle{src: bytes.NewReader([]byte(stream)), step: step})
}

func TestReadReplies(t *testing.T) {
	big := strings.Repeat("v", 3*readBufSize+7) // larger than the read buffer
	stream := "+OK\r\n-ERR x y\r\n:123\r\n:-5\r\n:9223372036854775807\r\n:-9223372036854775808\r\n" +
		"$3\r\nabc\r\n$0\r\n\r\n$-1\r\n*2\r\n$4\r\nkeys\r\n:7\r\n*-1\r\n$5\r\na\r\nb\n\r\n" +
		"$" + itoa(len(big)) + "\r\n" + big + "\r\n+after\r\n"
	want := []string{"+OK", "-ERR x y", ":123", ":-5", ":9223372036854775807", ":-9223372036854775808",
		"$abc", "$", "$nil", "*2", "$keys", ":7", "*nil", "$a\r\nb\n", "$" + big, "+after"}
	for _, step := range []int{1, 3, 1 << 20} {
		c := replies(stream, step)
		for i, w := range want {
			r, err := c.read()
			if err != nil {
				t.Fatalf("step %d, reply %d: %v", step, i, err)
			}
			if got := render(&r); got != w {
				t.Fatalf("step %d, reply %d = %.40q, want %.40q", step, i, got, w)
			}
		}
	}
}

func render(r *reply) string {
	switch {
	case r.isNil():
		return string(r.kind) + "nil"
	case r.kind == ':' || r.kind == '*':
		return string(r.kind) + itoa64(r.n)
	}
	return string(r.kind) + string(r.data)
}

func itoa(n int) string { return itoa64(int64(n)) }

func itoa64(n int64) string {
	var c client
	c.argInt(n) // "$len\r\ndigits\r\n"
	s := string(c.out)
	return s[strings.Index(s, "\n")+1 : len(s)-2]
}

// Anything that is not RESP2 is an error, never a guessed reply.
func TestReadMalformed(t *testing.T) {
	for _, stream := range []string{
		"", "+OK", "+OK\n", "\r\n", "?x\r\n", ":abc\r\n", ":\r\n", ":-\r\n", ":1 \r\n",
		":99999999999999999999\r\n", ":9223372036854775808\r\n", ":-9223372036854775809\r\n",
		"$5\r\nab\r\n", "$3\r\nabcXY", "$-x\r\n", "$3000000000\r\n",
		"$40000\r\n" + strings.Repeat("x", 40000) + "XY",
		"+" + strings.Repeat("x", readBufSize) + "\r\n",
		"*-5\r\n", "*-2\r\n", "$-2\r\n", "$-5\r\n", "*-9223372036854775808\r\n", "$-9223372036854775808\r\n",
	} {
		if r, err := replies(stream, 7).read(); err == nil {
			t.Errorf("%.40q read as %.40q", stream, render(&r))
		}
	}
}

// Integer and status replies cost no allocation.
func TestReadDoesNotAllocate(t *testing.T) {
	stream := strings.Repeat(":1\r\n+OK\r\n$3\r\nabc\r\n$-1\r\n", 1000)
	c := replies(stream, 1<<20)
	allocs := testing.AllocsPerRun(500, func() {
		for i := 0; i < 4; i++ {
			if _, err := c.read(); err != nil {
				t.Fatal(err)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per four replies", allocs)
	}
}

func TestParseInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-0": 0, "42": 42, "-1": -1,
		"9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64} {
		if got, ok := parseInt([]byte(in)); !ok || got != want {
			t.Errorf("parseInt(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "-", "+1", "1a", " 1", "9223372036854775808", "-9223372036854775809", "18446744073709551616"} {
		if got, ok := parseInt([]byte(in)); ok {
			t.Errorf("parseInt(%q) = %d, accepted", in, got)
		}
	}
}

// A server that answers one command with garbage: that call fails as
// unavailable, the connection is dropped, and the next call dials again
// and works. Nothing is retried (a retried SETNX could report its own first
// attempt as held).
func TestMalformedReplyDropsConnection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "odd.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns, commands atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := conns.Add(1)
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
					commands.Add(1)
					reply := ":1\r\n"
					if n == 1 {
						reply = "%garbage\r\n:1\r\n"
					}
					if _, err := c.Write([]byte(reply)); err != nil {
						return
					}
				}
			}()
		}
	}()
	e := newEngine(t, "unix://"+path, "", time.Second)
	if ok, err := e.Del("k"); ok || !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "malformed reply") {
		t.Fatalf("del answered with garbage = %v, %v", ok, err)
	}
	if ok, err := e.Del("k"); !ok || err != nil {
		t.Fatalf("del after reconnecting = %v, %v", ok, err)
	}
	if conns.Load() != 2 || commands.Load() != 2 {
		t.Fatalf("%d connections, %d commands: want 2 and 2 (no retry)", conns.Load(), commands.Load())
	}
}

// A reply of the wrong type for the command is an error too.
func TestUnexpectedReplyType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "odd.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Read(make([]byte, 4096))
		c.Write([]byte("$1\r\n1\r\n"))
		io.Copy(io.Discard, c)
	}()
	e := newEngine(t, "unix://"+path, "", time.Second)
	if ok, err := e.Exists("k"); ok || !errors.Is(err, kv.ErrUnavailable) {
		t.Fatalf("exists answered with a bulk = %v, %v", ok, err)
	}
}

// A server that answers GET with a negative length other than -1 ($-5):
// an error, never a miss.
func TestNegativeLengthIsNoNil(t *testing.T) {
	for _, reply := range []string{"$-5\r\n", "*-5\r\n"} {
		path := filepath.Join(t.TempDir(), "odd.sock")
		ln, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			c.Read(make([]byte, 4096))
			c.Write([]byte(reply))
			io.Copy(io.Discard, c)
		}()
		e := newEngine(t, "unix://"+path, "", time.Second)
		if n, ok, err := e.Get("k", make([]byte, 16)); !errors.Is(err, kv.ErrUnavailable) || !strings.Contains(err.Error(), "malformed reply") {
			t.Errorf("GET answered %q = %d, %v, %v: want a malformed reply", reply, n, ok, err)
		}
	}
}
