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
type rawIO struct {
	rc  syscall.RawConn
	p   []byte   // what the pending read fills or write sends
	iov [][]byte // what the pending writev sends
	n   int
	err syscall.Errno

	// made once per connection: a closure passed to the RawConn per call
	// would be allocated per call
	readFn, writeFn, writevFn func(fd uintptr) bool
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
	r.writeFn = r.write
	r.writevFn = r.writev
	return r
}

func (r *rawIO) read(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(r.p))), uintptr(len(r.p)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		case 0:
			r.n = int(n)
		}
		r.err = e
		return true
	}
}

// Read reads what is there, waiting for at least one byte; 0 and io.EOF
// when the peer has closed.
func (r *rawIO) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p, r.n, r.err = p, 0, 0
	err := r.rc.Read(r.readFn)
	n := r.n
	r.p = nil
	switch {
	case err != nil:
		return n, err
	case r.err != 0:
		return n, &net.OpError{Op: "read", Net: "raw", Err: r.err}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
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
