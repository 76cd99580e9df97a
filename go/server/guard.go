package server

import (
	"errors"
	"fmt"
	"net"
)

// redcon parses RESP without limits: a client can make it buffer a bulk of
// any declared size, or spin on a huge array count. guardConn sits under it
// and checks the framing of everything a client sends as it arrives, in
// O(bytes) with no allocation, closing the connection with a protocol error
// before redcon sees a frame over the limits.

type limits struct {
	maxArgs   int   // elements in one command array
	maxBulk   int64 // bytes in one bulk string
	maxInline int   // bytes in one inline (telnet-style) command line
}

type guardState uint8

const (
	expectCommand guardState = iota // start of a command
	inArrayHeader                   // reading the digits after '*'
	expectBulk                      // '$' of the next bulk
	inBulkHeader                    // reading the digits after '$'
	inBulkBody                      // skipping payload plus CRLF
	inInline                        // skipping an inline command to '\n'
)

type guard struct {
	limits
	state    guardState
	num      int64 // header digits read so far
	digits   int
	left     int64 // bulks left in the array, or payload bytes left
	bulks    int64
	inlineAt int
}

var errLimit = errors.New("protocol limit")

// scan checks the next chunk of client bytes.
func (g *guard) scan(p []byte) error {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch g.state {
		case expectCommand:
			if b == '*' {
				g.state, g.num, g.digits = inArrayHeader, 0, 0
			} else {
				g.state, g.inlineAt = inInline, 1
			}
		case inInline:
			if b == '\n' {
				g.state = expectCommand
			} else if g.inlineAt++; g.inlineAt > g.maxInline {
				return fmt.Errorf("%w: inline command longer than %d bytes", errLimit, g.maxInline)
			}
		case inArrayHeader, inBulkHeader:
			switch {
			case b >= '0' && b <= '9':
				g.num = g.num*10 + int64(b-'0')
				if g.digits++; g.digits > 18 {
					return fmt.Errorf("%w: length header too long", errLimit)
				}
			case b == '\r':
			case b == '\n':
				if g.state == inArrayHeader {
					if g.num > int64(g.maxArgs) {
						return fmt.Errorf("%w: %d arguments, the limit is %d", errLimit, g.num, g.maxArgs)
					}
					g.bulks, g.state = g.num, expectBulk
					if g.bulks <= 0 {
						g.state = expectCommand
					}
				} else {
					if g.num > g.maxBulk {
						return fmt.Errorf("%w: bulk of %d bytes, the limit is %d", errLimit, g.num, g.maxBulk)
					}
					g.left, g.state = g.num+2, inBulkBody
				}
			default:
				return fmt.Errorf("%w: bad length header", errLimit)
			}
		case expectBulk:
			if b != '$' {
				return fmt.Errorf("%w: expected '$', got %q", errLimit, b)
			}
			g.state, g.num, g.digits = inBulkHeader, 0, 0
		case inBulkBody:
			skip := min(int64(len(p)-i), g.left)
			g.left -= skip
			i += int(skip) - 1
			if g.left == 0 {
				if g.bulks--; g.bulks > 0 {
					g.state = expectBulk
				} else {
					g.state = expectCommand
				}
			}
		}
	}
	return nil
}

type guardConn struct {
	net.Conn
	g guard
}

func (c *guardConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		if gerr := c.g.scan(p[:n]); gerr != nil {
			c.Conn.Write([]byte("-ERR Protocol error: " + gerr.Error() + "\r\n"))
			return 0, gerr
		}
	}
	return n, err
}

type guardListener struct {
	net.Listener
	limits limits
}

func (l guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &guardConn{Conn: c, g: guard{limits: l.limits}}, nil
}
