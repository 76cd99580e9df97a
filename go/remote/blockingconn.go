package remote

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// The engine is called on PHP's own thread. Through Go's netpoller every
// round trip would park that thread and wake it from another one (two
// thread handoffs per call); a blocking socket keeps the whole round trip
// on the calling thread, as phpredis does. Timeouts are the kernel's
// SO_RCVTIMEO/SO_SNDTIMEO, fixed at dial, so per-call deadlines are not
// needed.

type blockingConn struct {
	fd            int
	timeout       time.Duration // SO_RCVTIMEO and SO_SNDTIMEO
	raw           bool          // RawSyscalls: I/O without entersyscall
	local, remote net.Addr
}

type timeoutError struct{ op string }

func (e timeoutError) Error() string   { return e.op + ": i/o timeout" }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return true }

func dialBlocking(network, addr string, timeout time.Duration, raw bool) (net.Conn, error) {
	var (
		family int
		sa     syscall.Sockaddr
		remote net.Addr
	)
	switch network {
	case "unix":
		family, sa, remote = syscall.AF_UNIX, &syscall.SockaddrUnix{Name: addr}, &net.UnixAddr{Name: addr, Net: "unix"}
	case "tcp":
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			return nil, err
		}
		remote = tcp
		if ip4 := tcp.IP.To4(); ip4 != nil {
			family, sa = syscall.AF_INET, &syscall.SockaddrInet4{Port: tcp.Port, Addr: [4]byte(ip4)}
		} else {
			family, sa = syscall.AF_INET6, &syscall.SockaddrInet6{Port: tcp.Port, Addr: [16]byte(tcp.IP.To16())}
		}
	default:
		return nil, fmt.Errorf("unsupported network %q", network)
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	tv := sockTimeout(timeout)
	for _, opt := range []int{syscall.SO_RCVTIMEO, syscall.SO_SNDTIMEO} {
		if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv); err != nil {
			syscall.Close(fd)
			return nil, os.NewSyscallError("setsockopt", err)
		}
	}
	if family != syscall.AF_UNIX {
		syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	}
	for {
		err = syscall.Connect(fd, sa) // SO_SNDTIMEO bounds a blocking connect
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		if errors.Is(err, syscall.EINPROGRESS) || errors.Is(err, syscall.EAGAIN) {
			return nil, &net.OpError{Op: "dial", Net: network, Addr: remote, Err: timeoutError{"connect"}}
		}
		return nil, &net.OpError{Op: "dial", Net: network, Addr: remote, Err: os.NewSyscallError("connect", err)}
	}
	return &blockingConn{fd: fd, timeout: timeout, raw: raw, remote: remote, local: remote}, nil
}

// With RawSyscalls, reads and writes are raw system calls. syscall.Read
// marks the thread as in a syscall, and while PHP's thread waits for a
// reply sysmon hands its P to another thread and wakes one to run it
// (futex wakeups, ~15 us of worker CPU per session request); in a PHP
// process nothing else needs that P, so keeping it is cheaper. Only one
// thread at a time does I/O (one connection per process), so at most one
// P is held this way.
//
// What holding the P costs: no goroutine of this process can run on it
// until the reply comes, so a process that also serves (a test with the
// server in it) must not use raw I/O. And a stop-the-world (a forced GC,
// another PHP thread's allocation) waits for this thread to come back to Go
// code. It does not wait long: Go's signals have SA_RESTART, but a socket
// read or write with SO_RCVTIMEO/SO_SNDTIMEO set is never restarted, so the
// preemption signal the runtime sends ends it with EINTR, the loop below is a
// safe point, and the call resumes with what is left of its timeout. A
// timeout is always set: New makes 0 a second, and sockTimeout's largest
// (MaxInt64 ns, ~292 years) is still finite to the kernel, which takes
// only {0, 0} or more than LONG_MAX/HZ seconds as none. Were the call
// restarted anyway, the world would wait for the reply or the timeout, as
// PHP's thread does, and nothing needed for that runs in Go, so it cannot
// deadlock. The buffers are Go memory, which the GC never moves
// (TestRawReadDoesNotHoldUpGC, TestRawSyscallsTimeOutThroughSignals).

func (c *blockingConn) Read(p []byte) (int, error) {
	var w interrupted
	defer w.restore(c, syscall.SO_RCVTIMEO)
	for {
		n, errno := c.syscall(syscall.SYS_READ, p)
		if errno == syscall.EINTR {
			errno = w.again(c, syscall.SO_RCVTIMEO)
		}
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: timeoutError{"read"}}
		case errno != 0:
			return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: errno}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return int(n), nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	var w interrupted
	defer w.restore(c, syscall.SO_SNDTIMEO)
	written := 0
	for written < len(p) {
		rest := p[written:]
		n, errno := c.syscall(syscall.SYS_WRITE, rest)
		if errno == syscall.EINTR {
			errno = w.again(c, syscall.SO_SNDTIMEO)
		}
		switch {
		case errno == syscall.EINTR:
			continue
		case errno == syscall.EAGAIN:
			return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: timeoutError{"write"}}
		case errno == syscall.EPIPE || errno == syscall.ECONNRESET:
			return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: c.partingReply(errno)}
		case errno != 0:
			return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: errno}
		}
		written += int(n)
	}
	return written, nil
}

// syscall is read(2) or write(2) of p, raw or through Go's wrapper.
func (c *blockingConn) syscall(trap uintptr, p []byte) (uintptr, syscall.Errno) {
	ptr, n := uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p))
	if c.raw {
		r, _, errno := syscall.RawSyscall(trap, uintptr(c.fd), ptr, n)
		return r, errno
	}
	r, _, errno := syscall.Syscall(trap, uintptr(c.fd), ptr, n)
	return r, errno
}

// interrupted keeps a read or write that signals interrupt within its
// timeout: the kernel starts the socket timeout afresh on every retry, so
// the first EINTR fixes the deadline and each retry gets what is left of
// it; restore puts the full timeout back for the next call.
type interrupted struct {
	since time.Time // zero until the first EINTR
}

// again returns EINTR to retry (with the socket's timeout set to what is left),
// EAGAIN when the time is up, or setsockopt's error.
func (w *interrupted) again(c *blockingConn, opt int) syscall.Errno {
	if w.since.IsZero() {
		w.since = time.Now()
	}
	left := c.timeout - time.Since(w.since)
	if left <= 0 {
		return syscall.EAGAIN
	}
	if errno := setTimeout(c.fd, opt, left); errno != 0 {
		return errno
	}
	return syscall.EINTR
}

func (w *interrupted) restore(c *blockingConn, opt int) {
	if !w.since.IsZero() {
		setTimeout(c.fd, opt, c.timeout)
	}
}

func setTimeout(fd, opt int, timeout time.Duration) syscall.Errno {
	tv := sockTimeout(timeout)
	_, _, errno := syscall.RawSyscall6(syscall.SYS_SETSOCKOPT, uintptr(fd), syscall.SOL_SOCKET, uintptr(opt),
		uintptr(unsafe.Pointer(&tv)), unsafe.Sizeof(tv), 0)
	return errno
}

// closedWithReply is a write that failed because the server closed the
// connection after answering with an error reply (as it does on a protocol
// error: a bulk over its limit arrives, it replies and hangs up while the
// rest of the value is still being sent). Reply is that error reply.
type closedWithReply struct {
	Reply string
	Err   error
}

func (e *closedWithReply) Error() string {
	return e.Err.Error() + " (the server closed the connection after replying: " + e.Reply + ")"
}
func (e *closedWithReply) Unwrap() error { return e.Err }

// partingReply returns err, or a closedWithReply when the server left an
// error reply in the socket before closing it.
func (c *blockingConn) partingReply(err error) error {
	var buf [512]byte
	n, _, rerr := syscall.Recvfrom(c.fd, buf[:], syscall.MSG_DONTWAIT)
	if rerr != nil || n < 2 || buf[0] != '-' {
		return err
	}
	line, _, _ := strings.Cut(string(buf[1:n]), "\r\n")
	return &closedWithReply{Reply: line, Err: err}
}

// closedByPeer reports, without blocking, whether an idle connection can
// no longer carry a command: the server closed it (it restarted since the
// last call) or left something unasked-for in it (a parting error reply).
// A non-blocking MSG_PEEK, so nothing is consumed.
func (c *blockingConn) closedByPeer() bool {
	var b [1]byte
	for {
		_, _, errno := syscall.RawSyscall6(syscall.SYS_RECVFROM, uintptr(c.fd), uintptr(unsafe.Pointer(&b[0])), 1,
			syscall.MSG_PEEK|syscall.MSG_DONTWAIT, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		// EAGAIN: open with nothing pending, the normal case. Otherwise
		// 0 bytes (closed), a byte (out of step) or an error.
		return errno != syscall.EAGAIN
	}
}

func (c *blockingConn) Close() error                     { return syscall.Close(c.fd) }
func (c *blockingConn) LocalAddr() net.Addr              { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr             { return c.remote }
func (c *blockingConn) SetDeadline(time.Time) error      { return nil }
func (c *blockingConn) SetReadDeadline(time.Time) error  { return nil }
func (c *blockingConn) SetWriteDeadline(time.Time) error { return nil }

// sockTimeout is timeout as SO_RCVTIMEO/SO_SNDTIMEO want it, rounded up to
// whole microseconds so a positive timeout never becomes {0, 0} ("block
// forever"). Not syscall.NsecToTimeval: its round-up adds 999 ns first,
// which wraps a timeout near MaxInt64 (ephpm.server_timeout=1e300 saturates
// there) into a negative timeval, which the kernel takes as 0: every read
// would time out at once. A huge tv_sec the kernel treats as no timeout.
func sockTimeout(timeout time.Duration) syscall.Timeval {
	sec, rest := int64(timeout/time.Second), timeout%time.Second
	usec := int64((rest + time.Microsecond - 1) / time.Microsecond)
	if usec == int64(time.Second/time.Microsecond) {
		sec, usec = sec+1, 0
	}
	return syscall.Timeval{Sec: sec, Usec: usec}
}
