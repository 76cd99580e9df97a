// Package server serves an ephpm-kv store over RESP (the Redis protocol) on
// a unix socket and optionally TCP, so every PHP process of a host, and
// Redis tools and clients, share one store.
package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

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

	// MaxCommandSize caps the bytes of one command, framing included:
	// default 4 MiB (MSET of three 1 MiB values), or more if needed for a
	// SET of a MaxBulk value with a key of kv.MaxKeySize.
	MaxCommandSize int64
	// ClientWriteTimeout closes a client whose reply write has been blocked
	// this long (it does not read what it asked for); default 60 s.
	ClientWriteTimeout time.Duration
	// Metrics is the address (host:port) of an HTTP endpoint that serves
	// GET /metrics in the Prometheus text format (metrics.go); "" = none.
	Metrics string
	// MaxClientMemory caps the bytes all clients' buffers hold together
	// (Redis's maxmemory-clients): past it, the clients with the largest
	// buffers are closed. Default DefaultMaxClientMemory, or
	// MinClientMemory(MaxCommandSize) if that is more.
	MaxClientMemory int64
}

// Server is a running ephpm-kv server.
type Server struct {
	cfg     Config
	store   *store.Store
	log     *slog.Logger
	started time.Time

	limits, preAuth limits // what one command may be, after and before AUTH
	authFailures    rateLog
	evictions       rateLog

	clientMem       atomic.Int64 // bytes of all clients' buffers (clientmem.go)
	clientEvictions atomic.Int64 // clients closed for the budget

	mu        sync.Mutex
	sockets   []net.Listener
	conns     map[*conn]struct{}
	closing   bool
	wg        sync.WaitGroup // accept loops
	connWG    sync.WaitGroup // connections
	stopWatch chan struct{}
	watchDone chan struct{}

	metricsSrv  *http.Server // the --metrics endpoint (metrics.go)
	metricsLn   net.Listener
	metricsDone chan struct{}

	clients, totalConns, totalCmds, rejectedConns atomic.Int64
	queryLimitDrops, outputLimitDrops             atomic.Int64 // clients closed for a limit
	stopSnap                                      chan struct{}
	snapDone                                      chan struct{}
	quit                                          chan struct{} // closed by Close: ends the AUTH delays
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
	if cfg.ClientWriteTimeout <= 0 {
		cfg.ClientWriteTimeout = time.Minute
	}
	s := &Server{cfg: cfg, store: store.New(cfg.Store), log: cfg.Logger, started: time.Now(), conns: map[*conn]struct{}{}, quit: make(chan struct{})}
	if s.cfg.MaxBulk <= 0 {
		s.cfg.MaxBulk = max(s.store.Config().MaxValueSize, kv.MaxKeySize)
	}
	if s.cfg.MaxCommandSize <= 0 {
		s.cfg.MaxCommandSize = DefaultCommandSize(s.cfg.MaxBulk)
	}
	if least := MinClientMemory(s.cfg.MaxCommandSize); s.cfg.MaxClientMemory <= 0 {
		s.cfg.MaxClientMemory = max(DefaultMaxClientMemory, least)
	} else if s.cfg.MaxClientMemory < least {
		s.store.Close()
		return nil, fmt.Errorf("client memory budget of %d bytes is below %d: one client sending a command of the largest size (%d bytes) would be closed",
			s.cfg.MaxClientMemory, least, s.cfg.MaxCommandSize)
	}
	s.authFailures.write = func(n int, remote string) {
		s.log.Warn("failed AUTH", "failures", n, "last_remote", remote)
	}
	s.evictions.write = func(n int, remote string) {
		s.log.Warn("closed the clients with the largest buffers: all clients' buffers passed --max-client-memory",
			"clients", n, "last_remote", remote, "max_client_memory", s.cfg.MaxClientMemory)
	}
	s.limits = limits{maxArgs: s.cfg.MaxArgs, maxBulk: s.cfg.MaxBulk, maxCommand: s.cfg.MaxCommandSize, maxInline: 64 << 10}
	s.preAuth = preAuthLimits(s.limits)
	if cfg.Snapshot != "" {
		if err := s.openSnapshot(); err != nil {
			s.store.Close()
			return nil, err
		}
	}
	return s, nil
}

// DefaultCommandSize is the command cap when none is given: 4 MiB (MSET of
// three 1 MiB values), or MinCommandSize(maxBulk) if that is more.
func DefaultCommandSize(maxBulk int64) int64 { return max(4<<20, MinCommandSize(maxBulk)) }

// MinCommandSize is the smallest command cap that still lets one SET of a
// maxBulk-byte value with the largest key through, framing included.
func MinCommandSize(maxBulk int64) int64 { return maxBulk + kv.MaxKeySize + 4<<10 }

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
	if s.cfg.Metrics != "" {
		if err := s.listenMetrics(); err != nil {
			s.Close()
			return nil, fmt.Errorf("--metrics %s: %w", s.cfg.Metrics, err)
		}
	}
	if s.cfg.Snapshot != "" && s.cfg.SnapshotEvery > 0 {
		s.stopSnap, s.snapDone = make(chan struct{}), make(chan struct{})
		go s.snapshotLoop()
	}
	s.stopWatch, s.watchDone = make(chan struct{}), make(chan struct{})
	go s.watchdog(s.stopWatch, s.watchDone)
	return addrs, nil
}

func (s *Server) add(ln net.Listener) {
	s.mu.Lock()
	s.sockets = append(s.sockets, ln)
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.acceptLoop(ln)
	}()
}

// Wait blocks until every listener stopped.
func (s *Server) Wait() { s.wg.Wait() }

// Close stops listening, closes client connections, writes the snapshot
// and stops the store's sweep.
func (s *Server) Close() error {
	s.mu.Lock()
	sockets := s.sockets
	if !s.closing {
		close(s.quit)
	}
	s.sockets, s.closing = nil, true
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	for _, ln := range sockets {
		ln.Close()
	}
	s.closeMetrics()
	s.wg.Wait()
	s.connWG.Wait()
	if s.stopWatch != nil {
		close(s.stopWatch)
		<-s.watchDone
		s.stopWatch = nil
	}
	if s.stopSnap != nil {
		close(s.stopSnap)
		<-s.snapDone
		s.stopSnap = nil
	}
	var err error
	var id uint64
	if s.cfg.Snapshot != "" {
		id, err = s.writeSnapshot()
	}
	// Closing the unix listener removed its socket file; a path whose
	// Listen was refused (a file, another server's socket) is not ours.
	s.store.Close()
	if s.cfg.Snapshot != "" && err == nil {
		// After the store stopped reserving fences: the snapshot holds
		// every fence recorded, and the next start may trust it.
		err = writeFenceFile(fencePath(s.cfg.Snapshot), fenceFile{mark: s.store.DurableFenceMark(), cleanSnap: id})
		if err != nil {
			err = fmt.Errorf("recording the clean shutdown: %w", err)
		}
	}
	return err
}
