package server

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"syscall"
	"time"
)

// conn is one client connection, served by one goroutine: read a command,
// run it, and write replies when the input is drained. While a reply write
// blocks, the goroutine reads nothing more, so a client that does not read
// its replies cannot make the server buffer them.
type conn struct {
	writer
	s      *Server
	nc     net.Conn // nil in the fuzz test
	rd     *reader
	authed bool
	quit   bool // QUIT: close once the reply is written

	authFailures int          // failed AUTHs on this connection (cmd_connection.go)
	mem          atomic.Int64 // this connection's share of the client memory total
	evicted      atomic.Bool  // closed for the client memory budget

	// What CLIENT LIST shows (cmd_client.go), read by other connections.
	id         int64                   // from 1, in the order of connection; set by track
	created    time.Time               // set by track
	lastActive atomic.Int64            // UnixNano of the last read that brought bytes
	lastCmd    atomic.Pointer[command] // the last command run, nil for an unknown one
	name       atomic.Pointer[string]  // CLIENT SETNAME, HELLO SETNAME
}

func (c *conn) remoteAddr() string {
	if c.nc == nil {
		return ""
	}
	return c.nc.RemoteAddr().String()
}

func (c *conn) limits() *limits {
	if c.authed {
		return &c.s.limits
	}
	return &c.s.preAuth
}

func (s *Server) serveConn(nc net.Conn) {
	defer s.connWG.Done()
	var rw io.ReadWriter = nc
	raw := newRawIO(nc)
	if raw != nil {
		rw = raw
	}
	c := &conn{writer: writer{dst: rw}, s: s, nc: nc, rd: newReader(rw), authed: s.cfg.Password == ""}
	if !s.track(c) {
		nc.Close()
		return
	}
	defer s.untrack(c)
	c.rd.reserve = c.reserve
	for {
		args, err := c.rd.next(c.limits())
		if err == nil && args == nil {
			c.Flush() // input drained: send the pipeline's replies
			if c.err != nil {
				return
			}
			c.account()
			err = c.rd.fill(c.limits())
			c.account()
			if err == nil {
				c.lastActive.Store(time.Now().UnixNano())
			}
		}
		if errors.Is(err, errClientMemory) {
			c.WriteError(err.Error())
			c.Flush()
			return
		}
		if err != nil {
			var pe *protoError
			if errors.As(err, &pe) {
				if pe.limit {
					s.queryLimitDrops.Add(1)
				}
				c.WriteError(errProtocol(pe))
				c.Flush()
			} else if !errors.Is(err, net.ErrClosed) && !c.hungUp(err) {
				s.log.Debug("connection closed", "remote", c.remoteAddr(), "err", err)
			}
			return
		}
		if args == nil {
			continue
		}
		s.dispatch(c, args)
		c.account()
		if c.quit || c.err != nil {
			c.Flush()
			return
		}
		c.maybeFlush()
	}
}

// hungUp tells a client that closed between commands (no error) from one
// cut off inside a command.
func (c *conn) hungUp(err error) bool {
	return errors.Is(err, io.EOF) && c.rd.r == c.rd.w
}

// track registers a client; false when the server is closing or full.
func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	if len(s.conns) >= s.cfg.MaxClients {
		s.rejectedConns.Add(1)
		c.WriteError(errMaxClients)
		c.nc.SetWriteDeadline(time.Now().Add(time.Second))
		c.Flush()
		return false
	}
	s.conns[c] = struct{}{}
	s.clients.Store(int64(len(s.conns)))
	c.id = s.totalConns.Add(1)
	c.created = time.Now()
	c.lastActive.Store(c.created.UnixNano())
	return true
}

func (s *Server) untrack(c *conn) {
	c.nc.Close()
	s.mu.Lock()
	delete(s.conns, c)
	s.clients.Store(int64(len(s.conns)))
	s.mu.Unlock()
	c.release()
}

// acceptLoop accepts clients until the listener is closed. When accept fails
// (out of file descriptors, say) it backs off 5 ms doubling to 1 s, as
// net/http does, and logs once per episode instead of spinning.
func (s *Server) acceptLoop(ln net.Listener) {
	var delay time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if delay == 0 {
				delay = 5 * time.Millisecond
				s.log.Error("accept failed; backing off until it works again", "addr", ln.Addr(), "err", err,
					"out_of_fds", errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE))
			} else {
				delay = min(2*delay, time.Second)
			}
			time.Sleep(delay)
			continue
		}
		if delay != 0 {
			s.log.Info("accept works again", "addr", ln.Addr())
			delay = 0
		}
		s.connWG.Add(1)
		go s.serveConn(nc)
	}
}

// watchdog closes clients whose reply write has been stalled for longer than
// ClientWriteTimeout: a client that stops reading holds at most one buffer
// and one value, and only for that long.
func (s *Server) watchdog(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	timeout := s.cfg.ClientWriteTimeout
	t := time.NewTicker(min(max(timeout/4, 10*time.Millisecond), time.Second))
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			s.mu.Lock()
			for c := range s.conns {
				if since := c.stalledSince.Load(); since != 0 && now.UnixNano()-since > int64(timeout) {
					if c.stalledSince.CompareAndSwap(since, 0) {
						s.outputLimitDrops.Add(1)
						s.log.Warn("closing a client that does not read its replies", "remote", c.remoteAddr(), "stalled", timeout)
						c.nc.Close()
					}
				}
			}
			s.mu.Unlock()
		}
	}
}
