package server

import (
	"bytes"
	"fmt"
	"io"
)

// The RESP2 reader. It checks every limit while a command arrives, before
// the bytes a header announces are buffered: a header over a limit is an
// error at once, the buffer grows only (doubling) as bytes actually arrive
// and never past the command limit, and the parse state is kept between
// reads so a command trickled in byte by byte costs linear time.

// limits are what one connection may send in one command.
type limits struct {
	maxArgs    int   // elements of one command
	maxBulk    int64 // bytes of one bulk string
	maxCommand int64 // bytes of one command, RESP framing included
	maxInline  int   // bytes of one inline (telnet-style) command line
	preAuth    bool  // wording of the errors: Redis names these "unauthenticated"
}

// Before AUTH (when a password is set) a client may send only small
// commands, as in Redis 6.2+: enough for AUTH and HELLO, too little to cost
// memory.
const (
	preAuthMaxArgs = 10
	preAuthMaxBulk = 16 << 10
)

func preAuthLimits(l limits) limits {
	return limits{
		maxArgs:    min(l.maxArgs, preAuthMaxArgs),
		maxBulk:    min(l.maxBulk, preAuthMaxBulk),
		maxCommand: min(l.maxCommand, preAuthMaxArgs*(preAuthMaxBulk+32)+32),
		maxInline:  min(l.maxInline, preAuthMaxBulk),
		preAuth:    true,
	}
}

// protoError is a framing error: the client gets "-ERR Protocol error: ..."
// and the connection is closed. limit marks the errors that are a limit
// (counted in INFO) rather than malformed input.
type protoError struct {
	msg   string
	limit bool
}

func (e *protoError) Error() string { return "Protocol error: " + e.msg }

func malformed(format string, a ...any) error {
	return &protoError{msg: fmt.Sprintf(format, a...)}
}

func overLimit(format string, a ...any) error {
	return &protoError{msg: fmt.Sprintf(format, a...), limit: true}
}

const (
	readBufInitial = 4 << 10
	readBufKeep    = 16 << 10 // a larger buffer is dropped once drained
	argsKeep       = 1024     // as are argument lists longer than this
	maxHeaderLine  = 32       // "*" or "$", 20 digits and a sign, CRLF
)

type reader struct {
	src io.Reader
	buf []byte
	r   int // buf[r:w] is unread; the command being parsed starts at r
	w   int

	// Parse state of the command at r, kept across reads. Offsets are
	// relative to r, so compacting the buffer does not disturb them.
	p     int   // bytes of the command parsed so far
	nargs int   // declared elements, 0 before the '*' header is read
	bulk  int   // declared length of the next bulk, -1 before its header
	offs  []int // start and end of each argument read so far
	args  [][]byte

	// reserve, when set, is asked before the buffer grows to n bytes: an
	// error refuses the growth (the client memory budget, clientmem.go).
	reserve func(n int64) error
}

func newReader(src io.Reader) *reader {
	return &reader{src: src, buf: make([]byte, readBufInitial), bulk: -1}
}

// next returns the next complete command in the buffer, nil when more bytes
// are needed, or a protocol error. The arguments stay valid until the next
// call to fill.
func (rd *reader) next(lim *limits) ([][]byte, error) {
	for {
		b := rd.buf[rd.r:rd.w]
		if len(b) == 0 {
			return nil, nil
		}
		var args [][]byte
		var done bool
		var err error
		if rd.nargs == 0 && b[0] != '*' {
			args, done, err = rd.inline(b, lim)
		} else {
			args, done, err = rd.multibulk(b, lim)
		}
		switch {
		case err != nil || args != nil:
			return args, err
		case done: // an empty line or array was skipped
			continue
		case int64(len(b)) > lim.maxCommand:
			return nil, overLimit("command larger than %d bytes", lim.maxCommand)
		}
		return nil, nil
	}
}

// header parses "*N\r\n" or "$N\r\n" at b[0]: -1 used when incomplete.
func header(b []byte) (n int64, used int, err error) {
	i := bytes.IndexByte(b[:min(len(b), maxHeaderLine)], '\n')
	if i < 0 {
		if len(b) >= maxHeaderLine {
			return 0, 0, malformed("invalid length header")
		}
		return 0, -1, nil
	}
	if i < 3 || b[i-1] != '\r' {
		return 0, 0, malformed("invalid length header")
	}
	digits, neg := b[1:i-1], false
	if digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, 0, malformed("invalid length header")
	}
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, 0, malformed("invalid length header")
		}
		n = n*10 + int64(d-'0')
	}
	if neg {
		n = -n
	}
	return n, i + 1, nil
}

// multibulk parses "*N" then N bulks; done is false while incomplete.
func (rd *reader) multibulk(b []byte, lim *limits) (args [][]byte, done bool, err error) {
	if rd.nargs == 0 {
		n, used, err := header(b)
		if err != nil || used < 0 {
			return nil, false, err
		}
		if n < -1 {
			return nil, false, malformed("invalid multibulk length %d", n)
		}
		if n <= 0 { // "*0" and "*-1" are no command at all, as in Redis
			rd.consume(used)
			return nil, true, nil
		}
		if n > int64(lim.maxArgs) {
			if lim.preAuth {
				return nil, false, overLimit("unauthenticated multibulk length %d (at most %d before AUTH)", n, lim.maxArgs)
			}
			return nil, false, overLimit("invalid multibulk length %d (at most %d arguments)", n, lim.maxArgs)
		}
		rd.nargs, rd.p = int(n), used
	}
	for len(rd.offs)/2 < rd.nargs {
		if rd.bulk < 0 {
			rest := b[rd.p:]
			if len(rest) == 0 {
				return nil, false, nil
			}
			if rest[0] != '$' {
				return nil, false, malformed("expected '$', got '%c'", rest[0])
			}
			n, used, err := header(rest)
			if err != nil || used < 0 {
				return nil, false, err
			}
			switch {
			case n < 0:
				return nil, false, malformed("invalid bulk length")
			case n > lim.maxBulk && lim.preAuth:
				return nil, false, overLimit("unauthenticated bulk length %d (at most %d before AUTH)", n, lim.maxBulk)
			case n > lim.maxBulk:
				return nil, false, overLimit("invalid bulk length %d (at most %d bytes)", n, lim.maxBulk)
			case int64(rd.p+used)+n+2 > lim.maxCommand:
				return nil, false, overLimit("command larger than %d bytes", lim.maxCommand)
			}
			rd.bulk, rd.p = int(n), rd.p+used
		}
		if len(b)-rd.p < rd.bulk+2 {
			return nil, false, nil
		}
		end := rd.p + rd.bulk
		if b[end] != '\r' || b[end+1] != '\n' {
			return nil, false, malformed("bulk not followed by CRLF")
		}
		rd.offs = append(rd.offs, rd.p, end)
		rd.p, rd.bulk = end+2, -1
	}
	rd.args = rd.args[:0]
	for i := 0; i < len(rd.offs); i += 2 {
		rd.args = append(rd.args, b[rd.offs[i]:rd.offs[i+1]:rd.offs[i+1]])
	}
	rd.consume(rd.p)
	return rd.args, true, nil
}

// consume ends the command at r after used bytes.
func (rd *reader) consume(used int) {
	rd.r += used
	rd.p, rd.nargs, rd.bulk, rd.offs = 0, 0, -1, rd.offs[:0]
}

// inline parses a telnet-style command line in place: memory and time are
// linear in the line (the search for its end resumes where it stopped).
func (rd *reader) inline(b []byte, lim *limits) (args [][]byte, done bool, err error) {
	i := bytes.IndexByte(b[rd.p:], '\n')
	if i < 0 {
		rd.p = len(b)
		if lineLen(b) > lim.maxInline {
			return nil, false, overLimit("too big inline request (more than %d bytes)", lim.maxInline)
		}
		return nil, false, nil
	}
	end := rd.p + i
	line := b[:lineLen(b[:end])]
	if len(line) > lim.maxInline {
		return nil, false, overLimit("too big inline request (more than %d bytes)", lim.maxInline)
	}
	args, err = splitArgs(line, rd.args[:0], lim.maxArgs)
	rd.consume(end + 1)
	if err != nil {
		return nil, false, err
	}
	rd.args = args
	if len(args) == 0 {
		return nil, true, nil
	}
	return args, true, nil
}

// lineLen is the length of a line without the CR of its CRLF: the limit
// counts the line, not its terminator.
func lineLen(b []byte) int {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return n - 1
	}
	return len(b)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func hexVal(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// splitArgs splits an inline line as Redis' sdssplitargs does: blanks
// separate arguments; "double quotes" take \n \r \t \b \a \\ \" and \xHH
// escapes, 'single quotes' take \'; a closing quote must be followed by a
// blank or the end; a NUL byte ends the line. Unescaping happens in place
// (the output is never longer than the input), so it allocates only the
// argument slice headers.
func splitArgs(line []byte, args [][]byte, maxArgs int) ([][]byte, error) {
	if z := bytes.IndexByte(line, 0); z >= 0 {
		line = line[:z]
	}
	p := 0
	for {
		for p < len(line) && isSpace(line[p]) {
			p++
		}
		if p == len(line) {
			return args, nil
		}
		if len(args) == maxArgs {
			return nil, overLimit("too many arguments in inline request (at most %d)", maxArgs)
		}
		out := p // unescaped bytes are written at line[start:out]
		start := p
		inq, insq := false, false
	arg:
		for {
			if p == len(line) {
				if inq || insq {
					return nil, malformed("unbalanced quotes in request")
				}
				break
			}
			c := line[p]
			switch {
			case inq:
				if c == '\\' && p+3 < len(line) && line[p+1] == 'x' {
					if h, ok := hexVal(line[p+2]); ok {
						if l, ok := hexVal(line[p+3]); ok {
							line[out], out, p = h<<4|l, out+1, p+4
							continue
						}
					}
				}
				if c == '\\' && p+1 < len(line) {
					e := line[p+1]
					switch e {
					case 'n':
						e = '\n'
					case 'r':
						e = '\r'
					case 't':
						e = '\t'
					case 'b':
						e = '\b'
					case 'a':
						e = '\a'
					}
					line[out], out, p = e, out+1, p+2
					continue
				}
				if c == '"' {
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return nil, malformed("unbalanced quotes in request")
					}
					p++
					break arg
				}
			case insq:
				if c == '\\' && p+1 < len(line) && line[p+1] == '\'' {
					line[out], out, p = '\'', out+1, p+2
					continue
				}
				if c == '\'' {
					if p+1 < len(line) && !isSpace(line[p+1]) {
						return nil, malformed("unbalanced quotes in request")
					}
					p++
					break arg
				}
			case isSpace(c):
				break arg
			case c == '"':
				inq, p = true, p+1
				continue
			case c == '\'':
				insq, p = true, p+1
				continue
			}
			line[out], out, p = c, out+1, p+1
		}
		args = append(args, line[start:out:out])
	}
}

// fill reads more bytes, first making room: a drained buffer that grew for
// a big command is dropped for a small one, a consumed prefix is moved out,
// and a buffer full of one unfinished command doubles, up to the limit.
func (rd *reader) fill(lim *limits) error {
	if rd.r == rd.w {
		rd.r, rd.w = 0, 0
		if len(rd.buf) > readBufKeep {
			rd.buf = make([]byte, readBufInitial)
		}
		if cap(rd.args) > argsKeep {
			rd.args, rd.offs = nil, nil
		}
	} else if rd.r > 0 && (rd.w == len(rd.buf) || rd.r >= len(rd.buf)/2) {
		rd.w = copy(rd.buf, rd.buf[rd.r:rd.w])
		rd.r = 0
	}
	if rd.w == len(rd.buf) {
		most := max(lim.maxCommand, int64(lim.maxInline)) + 1
		size := min(int64(2*len(rd.buf)), most)
		if size <= int64(len(rd.buf)) {
			// next has already refused a command this large
			return overLimit("command larger than %d bytes", lim.maxCommand)
		}
		if rd.reserve != nil {
			if err := rd.reserve(size); err != nil {
				return err
			}
		}
		nb := make([]byte, size)
		copy(nb, rd.buf[:rd.w])
		rd.buf = nb
	}
	n, err := rd.src.Read(rd.buf[rd.w:])
	rd.w += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}
