package remote

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
)

// A RESP2 client connection: commands appended into one reused buffer and
// written in one call (two commands for a pipelined step), replies parsed
// from one read buffer. A status, error or bulk reply's bytes alias that
// buffer until the next reply is read; integers and nils cost nothing.

const (
	readBufSize = 16 << 10 // also the longest status, error or length line
	keepOutBuf  = 64 << 10 // a larger command buffer is dropped after use
	maxBulk     = 1 << 31  // a bulk length past this is a protocol error
)

type client struct {
	nc   net.Conn
	out  []byte
	in   []byte
	r, w int // unread replies are in[r:w]

	// skip has one entry per command appended since the last flush: true
	// for a command whose reply the caller does not see (a SCRIPT LOAD
	// pipelined before its EVALSHA).
	skip []bool

	dialect dialect // what the server at the other end offers
	loaded  uint32  // scripts loaded on this connection, by script.bit
}

func newClient(nc net.Conn) *client {
	return &client{nc: nc, in: make([]byte, readBufSize)}
}

// stale reports whether the server closed the connection while it was idle, or
// left something unasked-for in it. Replies are read whole, so anything unread
// here was not asked for.
func (c *client) stale() bool {
	if c.r != c.w {
		return true
	}
	nc := c.nc
	if tc, ok := nc.(*tls.Conn); ok {
		// The socket under TLS: a restarted server's FIN (or a parting
		// alert) shows there as on a plain one.
		nc = tc.NetConn()
	}
	bc, ok := nc.(*blockingConn)
	return ok && bc.closedByPeer()
}

// command starts a command of n arguments (the name counts).
func (c *client) command(n int) {
	c.skip = append(c.skip, false)
	c.out = append(c.out, '*')
	c.out = strconv.AppendInt(c.out, int64(n), 10)
	c.out = append(c.out, '\r', '\n')
}

func (c *client) arg(s string) {
	c.out = append(c.out, '$')
	c.out = strconv.AppendInt(c.out, int64(len(s)), 10)
	c.out = append(c.out, '\r', '\n')
	c.out = append(c.out, s...)
	c.out = append(c.out, '\r', '\n')
}

func (c *client) argBytes(b []byte) {
	c.out = append(c.out, '$')
	c.out = strconv.AppendInt(c.out, int64(len(b)), 10)
	c.out = append(c.out, '\r', '\n')
	c.out = append(c.out, b...)
	c.out = append(c.out, '\r', '\n')
}

func (c *client) argInt(n int64) {
	var digits [20]byte
	c.argBytes(strconv.AppendInt(digits[:0], n, 10))
}

// flush sends what command and arg appended. A short write leaves the
// stream in an unknown state: the caller drops the connection.
func (c *client) flush() error {
	_, err := c.nc.Write(c.out)
	if cap(c.out) > keepOutBuf {
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
	return err
}

// reply is one RESP2 reply. kind is '+', '-', ':', '$' or '*'; n is the
// integer, or the bulk's or array's length (-1: nil, the only negative one).
type reply struct {
	kind byte
	n    int64
	data []byte // status or error text, or the bulk's bytes
}

func (r *reply) isNil() bool { return (r.kind == '$' || r.kind == '*') && r.n < 0 }

// errProtocolReply reports that the server sent something that is not RESP2.
// The connection is dropped.
type errProtocolReply struct{ what string }

func (e errProtocolReply) Error() string { return "malformed reply from the server: " + e.what }

// read returns the next reply. For an array only its header: the caller
// reads the n elements next.
func (c *client) read() (reply, error) {
	line, err := c.line()
	if err != nil {
		return reply{}, err
	}
	if len(line) == 0 {
		return reply{}, errProtocolReply{"empty line"}
	}
	r := reply{kind: line[0]}
	switch r.kind {
	case '+', '-':
		r.data = line[1:]
		return r, nil
	case ':', '$', '*':
		n, ok := parseInt(line[1:])
		if !ok {
			return reply{}, errProtocolReply{fmt.Sprintf("bad number in %.40q", line)}
		}
		if n < -1 && r.kind != ':' {
			// -1 is RESP2's nil; no other length is below 0
			return reply{}, errProtocolReply{fmt.Sprintf("negative length in %.40q", line)}
		}
		r.n = n
	default:
		return reply{}, errProtocolReply{fmt.Sprintf("unknown reply type in %.40q", line)}
	}
	if r.kind != '$' || r.n < 0 {
		return r, nil
	}
	if r.n > maxBulk {
		return reply{}, errProtocolReply{fmt.Sprintf("bulk of %d bytes", r.n)}
	}
	r.data, err = c.bulk(int(r.n))
	return r, err
}

// line returns the next line without its CRLF, aliasing the read buffer.
func (c *client) line() ([]byte, error) {
	for {
		if i := bytes.IndexByte(c.in[c.r:c.w], '\n'); i >= 0 {
			line := c.in[c.r : c.r+i+1]
			c.r += i + 1
			if len(line) < 2 || line[len(line)-2] != '\r' {
				return nil, errProtocolReply{"a line without CRLF"}
			}
			return line[:len(line)-2], nil
		}
		if c.r == 0 && c.w == len(c.in) {
			return nil, errProtocolReply{"a line longer than the read buffer"}
		}
		if err := c.fill(); err != nil {
			return nil, err
		}
	}
}

// bulk returns the n bytes of a bulk and consumes its CRLF. One that fits
// the read buffer aliases it; a larger one is read into its own slice.
func (c *client) bulk(n int) ([]byte, error) {
	need := n + 2
	if need <= len(c.in) {
		for c.w-c.r < need {
			if err := c.fill(); err != nil {
				return nil, err
			}
		}
		data := c.in[c.r : c.r+n]
		c.r += need
		if data[:need][n] != '\r' || data[:need][n+1] != '\n' {
			return nil, errProtocolReply{"a bulk without CRLF"}
		}
		return data, nil
	}
	own := make([]byte, need)
	got := copy(own, c.in[c.r:c.w])
	c.r += got
	if _, err := io.ReadFull(c.nc, own[got:]); err != nil {
		return nil, err
	}
	if own[n] != '\r' || own[n+1] != '\n' {
		return nil, errProtocolReply{"a bulk without CRLF"}
	}
	return own[:n], nil
}

// fill reads more into the buffer, first moving unread bytes to its start.
func (c *client) fill() error {
	if c.r > 0 {
		c.w = copy(c.in, c.in[c.r:c.w])
		c.r = 0
	}
	n, err := c.nc.Read(c.in[c.w:])
	c.w += n
	if n == 0 && err == nil {
		err = io.ErrNoProgress
	}
	if n > 0 {
		return nil
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// parseInt parses a RESP integer without allocating.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + uint64(d-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return -int64(n), true // -(1<<63) wraps to itself: MinInt64
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}
