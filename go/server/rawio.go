package server

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// rawIO reads and writes a connection's socket with raw system calls
// through its syscall.RawConn. The socket is non-blocking, so a raw read or
// write never blocks the thread; skipping the runtime's entersyscall and
// exitsyscall skips the wake-ups of its monitor thread (sysmon) they cause,
// most of the server's CPU beyond the kernel's own in a small-request
// benchmark. On EAGAIN the RawConn parks the goroutine on the netpoller
// exactly as net.Conn does, and honours the connection's deadlines and
// Close.
//
// What it cannot remove: the runtime registers every socket for EPOLLOUT
// too, and a unix socket signals EPOLLOUT each time the client consumes a
// reply, so an idle server is woken for nothing once per reply read (over
// TCP, which signals only after a full buffer, ephpm-kv and redis-server
// cost the same per request).
type rawIO struct {
	rc  syscall.RawConn
	iov [][]byte  // what the pending write sends
	one [1][]byte // Write's single buffer, kept so it does not escape per call
	n   int
	err syscall.Errno

	rp   []byte // what the pending read fills
	rn   int
	rerr error

	// made once per connection: a closure passed to the RawConn per call
	// would be allocated per call
	readFn, writevFn func(fd uintptr) bool
}

// newRawIO returns nc's raw reader and writer, or nil when nc is not a
// socket the runtime polls (a net.Pipe in tests).
func newRawIO(nc net.Conn) *rawIO {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	r := &rawIO{rc: rc}
	r.readFn = r.read
	r.writevFn = r.writev
	return r
}

// Read reads what has arrived, waiting for at least one byte; io.EOF when
// the peer has closed. Each call is one RawConn.Read, as net.Conn's own
// Read: it reads until data or EAGAIN, then waits for the poller. (Skipping
// the EAGAIN read after a short one is not safe: the peer's EOF can arrive
// in the same edge-triggered event as its last bytes, and only that read
// sees it: TestRawIOSeesEOFAfterShortRead.)
func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.rp, r.rn, r.rerr = p, 0, nil
	err := r.rc.Read(r.readFn)
	r.rp = nil
	if err == nil {
		err = r.rerr
	}
	return r.rn, err
}

func (r *rawIO) read(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.rp))), uintptr(len(r.rp)))
		switch {
		case e == syscall.EINTR:
			continue
		case e == syscall.EAGAIN:
			return false // wait for the poller
		case e != 0:
			r.rerr = &net.OpError{Op: "read", Net: "raw", Err: e}
		case n == 0:
			r.rerr = io.EOF
		default:
			r.rn = int(n)
		}
		return true
	}
}

// Write writes all of p, waiting while the socket's buffer is full.
func (r *rawIO) Write(p []byte) (int, error) {
	r.one[0] = p
	n, err := r.writeBuffers(r.one[:])
	r.one[0] = nil
	return n, err
}

func (r *rawIO) writev(fd uintptr) bool {
	var vec [2]syscall.Iovec
	for {
		for len(r.iov) > 0 && len(r.iov[0]) == 0 {
			r.iov = r.iov[1:]
		}
		if len(r.iov) == 0 {
			return true
		}
		k := 0
		for _, b := range r.iov[:min(len(r.iov), len(vec))] {
			vec[k].Base = unsafe.SliceData(b)
			vec[k].SetLen(len(b))
			k++
		}
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&vec[0])), uintptr(k))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			r.n += int(n)
			for n > 0 {
				m := min(int(n), len(r.iov[0]))
				r.iov[0] = r.iov[0][m:]
				n -= uintptr(m)
				if len(r.iov[0]) == 0 {
					r.iov = r.iov[1:]
				}
			}
			continue
		}
		r.err = e
		return true
	}
}

// writeBuffers writes all of bufs with writev, waiting while the socket's
// buffer is full. It consumes bufs.
func (r *rawIO) writeBuffers(bufs [][]byte) (int, error) {
	r.iov, r.n, r.err = bufs, 0, 0
	err := r.rc.Write(r.writevFn)
	n := r.n
	r.iov = nil
	if err == nil && r.err != 0 {
		err = &net.OpError{Op: "writev", Net: "raw", Err: r.err}
	}
	return n, err
}
