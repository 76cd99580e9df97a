// Package remote holds the kv.Engines that talk RESP: Engine to an
// ephpm-kv server or a Valkey/Redis (one connection, pipelined), Cluster to
// a Redis Cluster (through go-redis), so every PHP process shares one store. Any failure to reach the
// server, or a reply that does not come in time, is kv.ErrUnavailable: never
// a guessed answer (a timed-out SETNX may have landed).
package remote

import (
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Engine implements kv.Engine against a server, over one connection that
// callers take turns on (one PHP thread's round trip at a time).
type Engine struct {
	peer
	network, dialAddr, password string
	timeout                     time.Duration
	raw                         bool
	tlsFiles                    TLSFiles
	tls                         *tls.Config // rediss://: set by New

	mu sync.Mutex
	cl *client // nil: dial on the next call

	// The server's max_value_size, learned once per connection (a restarted
	// server may have another): limitUnknown until asked, limitNone when
	// the server does not say.
	maxValue atomic.Int64

	// The C side reads a value larger than its first buffer in a second
	// call; the value fetched by the first waits here so that costs no
	// second round trip. Any other round trip drops it (hasPending spares
	// them the lock): after a write, even this client's own, the kept
	// value may be stale.
	pendingMu    sync.Mutex
	hasPending   atomic.Bool
	pendingKey   string
	pendingValue []byte
}

var _ kv.Engine = (*Engine)(nil)

// Option changes how New's engine works.
type Option func(*Engine)

// RawSyscalls does the socket I/O with raw system calls, keeping the
// calling thread's P while it waits (see blockingconn.go): for a process
// whose threads only wait for the server, such as PHP's, never for one that
// also runs the server.
func RawSyscalls() Option { return func(e *Engine) { e.raw = true } }

// New returns an engine for the server at url. It connects on first use
// and reconnects after failures; one connection per process.
func New(url, password string, timeout time.Duration, opts ...Option) (*Engine, error) {
	network, addr, err := ParseAddress(url)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	e := &Engine{peer: peer{addr: url}, network: network, dialAddr: addr, password: password, timeout: timeout}
	for _, opt := range opts {
		opt(e)
	}
	switch {
	case network == "tls":
		host, _, _ := net.SplitHostPort(addr)
		if e.tls, err = tlsConfig(e.tlsFiles, host); err != nil {
			return nil, fmt.Errorf("ephpm.server %q: %w", url, err)
		}
		e.network = "tcp"
	case e.tlsFiles.set():
		return nil, fmt.Errorf("ephpm.server %q: TLS settings (ephpm.server_tls_*) are given but the address is not rediss://host:port", url)
	}
	return e, nil
}

// Close drops the connection.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cl == nil {
		return nil
	}
	err := e.cl.nc.Close()
	e.cl = nil
	return err
}
