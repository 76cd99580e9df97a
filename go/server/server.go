// Package server serves an ephpm-kv store over RESP (the Redis protocol) on
// a unix socket and optionally TCP, so every PHP process of a host, and
// Redis tools and clients, share one store.
package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/redcon"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// Version is reported by HELLO and INFO.
const Version = "0.1.0"

// Config sets up a Server. Zero fields take the defaults noted.
type Config struct {
	Unix          string      // unix socket path; "" = none
	UnixMode      os.FileMode // default 0660
	TCP           string      // host:port; "" = none
	Password      string      // AUTH password; required for a non-loopback TCP address
	MaxClients    int         // default 10000
	MaxArgs       int         // elements per command, default 65536
	MaxBulk       int64       // bytes per bulk string, default max(store max value size, 64 KiB)
	Snapshot      string      // snapshot file; "" = none
	SnapshotEvery time.Duration
	FenceBlock    int64 // fences reserved durably at a time (default store.DefaultFenceBlock)
	Store         store.Config
	Logger        *slog.Logger
}

// Server is a running ephpm-kv server.
type Server struct {
	cfg     Config
	store   *store.Store
	log     *slog.Logger
	started time.Time

	mu        sync.Mutex
	listeners []*redcon.Server
	sockets   []net.Listener // closed by Close too: a Serve goroutine may not have started yet
	wg        sync.WaitGroup

	clients, totalConns, totalCmds, rejectedConns atomic.Int64
	stopSnap                                      chan struct{}
	snapDone                                      chan struct{}
}

// client is the per-connection state.
type client struct {
	authed bool
}

// New checks cfg, opens the store and loads the snapshot if there is one.
func New(cfg Config) (*Server, error) {
	if cfg.Unix == "" && cfg.TCP == "" {
		return nil, errors.New("nothing to listen on: give a unix socket path and/or a TCP address")
	}
	if cfg.TCP != "" && cfg.Password == "" {
		if err := requireLoopback(cfg.TCP); err != nil {
			return nil, err
		}
	}
	if cfg.UnixMode == 0 {
		cfg.UnixMode = 0o660
	}
	if cfg.MaxClients <= 0 {
		cfg.MaxClients = 10000
	}
	if cfg.MaxArgs <= 0 {
		cfg.MaxArgs = 65536
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	s := &Server{cfg: cfg, store: store.New(cfg.Store), log: cfg.Logger, started: time.Now()}
	if s.cfg.MaxBulk <= 0 {
		s.cfg.MaxBulk = max(s.store.Config().MaxValueSize, kv.MaxKeySize)
	}
	if cfg.Snapshot != "" {
		if err := s.openSnapshot(); err != nil {
			s.store.Close()
			return nil, err
		}
	}
	return s, nil
}

func requireLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("bad TCP address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("refusing to listen on %s without a password: set --requirepass, or bind 127.0.0.1", addr)
}

// Store is the store the server serves.
func (s *Server) Store() *store.Store { return s.store }

// Listen opens the configured sockets; Serve then serves them.
func (s *Server) Listen() ([]net.Addr, error) {
	var addrs []net.Addr
	if s.cfg.Unix != "" {
		ln, err := listenUnix(s.cfg.Unix, s.cfg.UnixMode)
		if err != nil {
			return nil, err
		}
		s.add(ln)
		addrs = append(addrs, ln.Addr())
	}
	if s.cfg.TCP != "" {
		ln, err := net.Listen("tcp", s.cfg.TCP)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.add(ln)
		addrs = append(addrs, ln.Addr())
	}
	if s.cfg.Snapshot != "" && s.cfg.SnapshotEvery > 0 {
		s.stopSnap, s.snapDone = make(chan struct{}), make(chan struct{})
		go s.snapshotLoop()
	}
	return addrs, nil
}

func (s *Server) add(ln net.Listener) {
	guarded := guardListener{ln, limits{maxArgs: s.cfg.MaxArgs, maxBulk: s.cfg.MaxBulk, maxInline: 64 << 10}}
	rs := redcon.NewServer("", s.serveRESP, s.accept, s.closed)
	s.mu.Lock()
	s.listeners = append(s.listeners, rs)
	s.sockets = append(s.sockets, ln)
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := rs.Serve(guarded); err != nil {
			s.log.Error("listener stopped", "addr", ln.Addr(), "err", err)
		}
	}()
}

func (s *Server) accept(conn redcon.Conn) bool {
	if s.clients.Add(1) > int64(s.cfg.MaxClients) {
		s.clients.Add(-1)
		s.rejectedConns.Add(1)
		conn.WriteError("ERR max number of clients reached")
		if bw := redcon.BaseWriter(conn); bw != nil {
			bw.Flush()
		}
		return false
	}
	s.totalConns.Add(1)
	conn.SetContext(&client{authed: s.cfg.Password == ""})
	return true
}

func (s *Server) closed(conn redcon.Conn, err error) {
	s.clients.Add(-1)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		s.log.Debug("connection closed", "remote", conn.RemoteAddr(), "err", err)
	}
}

// Wait blocks until every listener stopped.
func (s *Server) Wait() { s.wg.Wait() }

// Close stops listening, closes client connections, writes the snapshot
// and stops the store's sweep.
func (s *Server) Close() error {
	s.mu.Lock()
	listeners, sockets := s.listeners, s.sockets
	s.listeners, s.sockets = nil, nil
	s.mu.Unlock()
	for _, rs := range listeners {
		rs.Close()
	}
	for _, ln := range sockets {
		ln.Close()
	}
	s.wg.Wait()
	if s.stopSnap != nil {
		close(s.stopSnap)
		<-s.snapDone
		s.stopSnap = nil
	}
	var err error
	if s.cfg.Snapshot != "" {
		err = s.saveSnapshot()
	}
	// Closing the unix listener removed its socket file; a path whose
	// Listen was refused (a file, another server's socket) is not ours.
	s.store.Close()
	return err
}
