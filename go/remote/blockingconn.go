package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// The engine is called on PHP's own thread. Through Go's netpoller every
// round trip would park that thread and wake it from another one (two
// thread handoffs per call); a blocking socket keeps the whole round trip
// on the calling thread, as phpredis does. Timeouts are the kernel's
// SO_RCVTIMEO/SO_SNDTIMEO, fixed at dial, so per-call deadlines are not
// needed (go-redis's are ignored).

type blockingConn struct {
	fd            int
	local, remote net.Addr
}

type timeoutError struct{ op string }

func (e timeoutError) Error() string   { return e.op + ": i/o timeout" }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return true }

func dialBlocking(network, addr string, timeout time.Duration) (net.Conn, error) {
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
	return &blockingConn{fd: fd, remote: remote, local: remote}, nil
}

func (c *blockingConn) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(c.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: timeoutError{"read"}}
		case err != nil:
			return 0, &net.OpError{Op: "read", Net: c.remote.Network(), Addr: c.remote, Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := syscall.Write(c.fd, p[written:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: timeoutError{"write"}}
		case err == syscall.EPIPE || err == syscall.ECONNRESET:
			return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: c.partingReply(err)}
		case err != nil:
			return written, &net.OpError{Op: "write", Net: c.remote.Network(), Addr: c.remote, Err: err}
		}
		written += n
	}
	return written, nil
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

// SyscallConn lets go-redis's pool look at an idle connection before it
// reuses it (a non-blocking MSG_PEEK): one the server closed, because it
// restarted since the last call, is dropped and redialled instead of
// failing the next call with a broken pipe or EOF.
func (c *blockingConn) SyscallConn() (syscall.RawConn, error) { return rawConn(c.fd), nil }

// rawConn calls f once: the socket is blocking, there is no poller to wait
// for readiness with, so an f that asks to wait is an error.
type rawConn int

var errWouldWait = errors.New("blocking socket: cannot wait for readiness")

func (r rawConn) Control(f func(uintptr)) error { f(uintptr(r)); return nil }
func (r rawConn) Read(f func(uintptr) bool) error {
	if !f(uintptr(r)) {
		return errWouldWait
	}
	return nil
}
func (r rawConn) Write(f func(uintptr) bool) error { return r.Read(f) }

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

func blockingDialer(timeout time.Duration) func(context.Context, string, string) (net.Conn, error) {
	return func(_ context.Context, network, addr string) (net.Conn, error) {
		return dialBlocking(network, addr, timeout)
	}
}
