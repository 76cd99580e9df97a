package server

import (
	"io"
	"iter"
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
	p   []byte   // what the pending write sends
	iov [][]byte // what the pending writev sends
	n   int
	err syscall.Errno

	rp   []byte             // what the pending read fills
	next func() (int, bool) // the reading coroutine (see Read)
	stop func()
	rerr error // why it ended

	// made once per connection: a closure passed to the RawConn per call
	// would be allocated per call
	writeFn, writevFn func(fd uintptr) bool
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
	r.writeFn = r.write
	r.writevFn = r.writev
	return r
}

// Read reads what has arrived, waiting for at least one byte; io.EOF when
// the peer has closed.
//
// The connection's reads all run inside one RawConn.Read, in a coroutine
// that hands each read's bytes to the caller. A read that returns less than
// asked is not taken to mean "wait for the poller": the peer's EOF may have
// arrived with those bytes, in the same edge-triggered event, and a short
// read does not report it; only the next read does (0 bytes), or EAGAIN
// shows that nothing more is there (TestRawIOSeesEOFAfterShortRead).
func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if r.next == nil {
		r.next, r.stop = iter.Pull(r.reads)
	}
	r.rp = p
	n, ok := r.next()
	r.rp = nil
	if !ok {
		return 0, r.rerr
	}
	return n, nil
}

// Release ends the reading coroutine. Between reads it holds the
// descriptor's read lock, and Close waits for that: call Release before
// closing the connection, and close a connection from another goroutine
// only without holding a lock its commands may take (its goroutine must get
// back to reading, or end, for that Close to return).
func (r *rawIO) Release() {
	if r.stop != nil {
		r.stop()
	}
}

// reads yields the length of each read into r.rp until an error, EOF or
// Release.
func (r *rawIO) reads(yield func(int) bool) {
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.rp))), uintptr(len(r.rp)))
			switch {
			case e == syscall.EINTR:
				continue
			case e == syscall.EAGAIN:
				return false
			case e != 0:
				r.rerr = &net.OpError{Op: "read", Net: "raw", Err: e}
				return true
			case n == 0:
				r.rerr = io.EOF
				return true
			}
			if !yield(int(n)) {
				r.rerr = net.ErrClosed
				return true
			}
		}
	})
	if err != nil {
		r.rerr = err
	}
}

func (r *rawIO) write(fd uintptr) bool {
	for len(r.p) > 0 {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.p))), uintptr(len(r.p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			r.n += int(n)
			r.p = r.p[n:]
			continue
		}
		r.err = e
		return true
	}
	return true
}

// Write writes all of p, waiting while the socket's buffer is full.
func (r *rawIO) Write(p []byte) (int, error) {
	r.p, r.n, r.err = p, 0, 0
	err := r.rc.Write(r.writeFn)
	n := r.n
	r.p = nil
	if err == nil && r.err != 0 {
		err = &net.OpError{Op: "write", Net: "raw", Err: r.err}
	}
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
