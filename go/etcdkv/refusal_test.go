package etcdkv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ephpm/ephpm-kv/kv"
)

// A refusal from SetNX ("someone else holds it": null from Lock::acquire,
// false from setnx) must only ever come when the key holds another
// caller's value. These tests take fresh keys in loops, with short
// timeouts, under injected faults, and read the key back after every
// refusal: absent, or holding the very value the refused call sent, is
// the bug.

// proxy forwards one loopback port to an etcd member; it can hold back
// the member's answers (a write lands, its answer comes after the caller's
// deadline) and cut every connection (a request sent, its answer lost).
type proxy struct {
	ln     net.Listener
	target string
	delay  atomic.Int64 // ns each answer chunk waits
	mu     sync.Mutex
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close(); p.cut() })
	go p.serve()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { io.Copy(s, c); s.Close(); c.Close() }()
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := s.Read(buf)
				if n > 0 {
					if d := time.Duration(p.delay.Load()); d > 0 {
						time.Sleep(d)
					}
					if _, werr := c.Write(buf[:n]); werr != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			s.Close()
			c.Close()
		}()
	}
}

// cut closes every connection through the proxy, both ends.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// refusals counts a loop's outcomes; bugs are refusals of a key no other
// caller held.
type refusals struct {
	acquired, refused, unavailable int
	bugs                           []string
}

// attempt is one SetNXFenced of key with token. The loop is the only
// caller on its keys: any refusal is a bug, and the key read back says
// which (absent, the refused call's own value, or a lost earlier attempt's).
func (r *refusals) attempt(t *testing.T, e, check *Engine, key string, token []byte, try int) (bool, error) {
	t.Helper()
	_, ok, err := e.SetNXFenced(key, token, 30*time.Second)
	switch {
	case err != nil:
		if !errors.Is(err, kv.ErrUnavailable) {
			t.Fatalf("SetNXFenced %s: %v", key, err)
		}
		r.unavailable++
		return false, err
	case ok:
		r.acquired++
		return true, nil
	}
	r.refused++
	r.bugs = append(r.bugs, fmt.Sprintf("%s refused with %q (attempt %d): %s", key, token, try, holder(t, check, key)))
	return false, nil
}

// holder says what key holds, for a failure's message.
func holder(t *testing.T, e *Engine, key string) string {
	t.Helper()
	buf := make([]byte, 64)
	n, found, err := e.Get(key, buf)
	switch {
	case err != nil:
		return err.Error()
	case !found:
		return "nobody holds it"
	}
	return fmt.Sprintf("it holds %q", buf[:n])
}

// loop acquires and releases fresh keys until stop, as a PHP process doing
// Lock::acquire(fresh, ...) and release() would. After an error it tries
// the key again until it has it: with a new value (a new Lock::acquire)
// or, every other key, the same (a setnx tried again as is).
func (r *refusals) loop(t *testing.T, e, check *Engine, name string, stop <-chan time.Time) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		key := fmt.Sprintf("%s-%d", name, i)
		token := []byte(fmt.Sprintf("t%d-0", i))
		for try := 1; ; try++ {
			ok, err := r.attempt(t, e, check, key, token, try)
			if ok {
				e.DelIfEq(key, token) // a failed release leaves a key no later iteration uses
			}
			if err == nil {
				break
			}
			if try == 50 {
				t.Fatalf("%s: 50 attempts failed", key)
			}
			if i%2 == 0 {
				token = []byte(fmt.Sprintf("t%d-%d", i, try))
			}
		}
	}
}

// A refusal from SetNX only ever comes from another caller's key, also
// after an attempt that failed with an error (kv.ErrUnavailable) landed:
// fresh keys taken in a loop, through proxies that hold answers back past
// the deadline (the write commits, the caller is told it failed) or cut
// every connection with requests in flight. The loop is the keys' only
// caller: every refusal is a bug. Also a check of the etcd client: it never
// sends a write again on its own (a first attempt refused with its own
// value would say so).
func TestRefusalOnlyForAnotherHolder(t *testing.T) {
	check := newTestEngine(t, shared, Config{Timeout: 10 * time.Second})
	var ps []*proxy
	var eps []string
	for _, ep := range shared.endpoints {
		p := newProxy(t, ep)
		ps = append(ps, p)
		eps = append(eps, p.addr())
	}
	run := func(mode string, timeout time.Duration, fault func(stop <-chan struct{})) {
		e := newTestEngine(t, shared, Config{Timeout: timeout, Prefix: check.cfg.Prefix})
		e.cfg.Endpoints = eps
		var r refusals
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() { defer close(done); fault(stop) }()
		r.loop(t, e, check, mode, time.After(time.Second))
		close(stop)
		<-done
		t.Logf("%s: %d acquired, %d refused, %d unavailable", mode, r.acquired, r.refused, r.unavailable)
		for _, b := range r.bugs {
			t.Error(mode + ": " + b)
		}
		if r.unavailable == 0 {
			t.Errorf("%s: no attempt failed: the fault did not bite", mode)
		}
	}
	// every period, fault for length, then none for the rest
	every := func(period, length time.Duration, on, off func()) func(stop <-chan struct{}) {
		return func(stop <-chan struct{}) {
			defer off()
			for {
				on()
				select {
				case <-stop:
					return
				case <-time.After(length):
				}
				off()
				select {
				case <-stop:
					return
				case <-time.After(period - length):
				}
			}
		}
	}
	delay := func(d time.Duration) func() {
		return func() {
			for _, p := range ps {
				p.delay.Store(int64(d))
			}
		}
	}
	run("slow answers", 100*time.Millisecond, every(250*time.Millisecond, 150*time.Millisecond, delay(150*time.Millisecond), delay(0)))
	run("cut connections", 300*time.Millisecond, every(7*time.Millisecond, 0, func() {
		for _, p := range ps {
			p.cut()
		}
	}, func() {}))
}

// lostAnswers, a gRPC interceptor on the engine's client, fails KV Txn
// calls while armed: lost, the request is sent as usual (it commits) but
// the caller is told the connection failed, as when the answer is lost;
// late, the caller is told at once and the request is sent 200 ms later,
// as one sitting in a stopped member's socket; then, the request is
// answered and after runs before the caller sees the answer.
type lostAnswers struct {
	mode  atomic.Int32
	late  chan error // each late request's own outcome
	after func()     // then: run once the Txn has its answer, before the caller sees it
}

const (
	answered = iota
	lost
	late
	then
)

func (f *lostAnswers) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if method != "/etcdserverpb.KV/Txn" {
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	switch f.mode.Load() {
	case lost:
		if err := invoker(ctx, method, req, reply, cc, opts...); err != nil {
			return err
		}
		return status.Error(codes.Unavailable, "injected: the answer was lost")
	case late:
		go func() {
			time.Sleep(200 * time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			// reply and opts are the caller's, gone by now
			f.late <- invoker(ctx, method, req, new(pb.TxnResponse), cc)
		}()
		return status.Error(codes.Unavailable, "injected: the request is still on its way")
	case then:
		err := invoker(ctx, method, req, reply, cc, opts...)
		f.mode.Store(answered)
		f.after()
		return err
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// A SetNX that failed with kv.ErrUnavailable but committed (its answer
// lost) is undone: a retry acquires, with a new value (Lock::acquire) or the
// same (setnx as is), and another process sees the key free long before its
// ttl. One whose request commits after the caller gave up writes nothing.
// A key someone else holds is still refused, and the engine's own locks
// stay.
func TestLostSetNXIsUndone(t *testing.T) {
	f := &lostAnswers{late: make(chan error, 1)}
	e := newTestEngine(t, shared, Config{Timeout: 5 * time.Second, dial: []grpc.DialOption{grpc.WithChainUnaryInterceptor(f.intercept)}})
	other := newTestEngine(t, shared, Config{Timeout: 5 * time.Second, Prefix: e.cfg.Prefix}) // another process
	const ttl = 30 * time.Second
	fail := func(t *testing.T, mode int32, key, token string) {
		t.Helper()
		f.mode.Store(mode)
		_, ok, err := e.SetNXFenced(key, []byte(token), ttl)
		f.mode.Store(answered)
		if !errors.Is(err, kv.ErrUnavailable) || ok {
			t.Fatalf("SetNXFenced %s with its answer lost: %v, %v", key, ok, err)
		}
	}
	acquires := func(t *testing.T, e *Engine, key, token string) {
		t.Helper()
		if ok, err := e.SetNX(key, []byte(token), ttl); err != nil || !ok {
			t.Fatalf("SetNX %s, %s: %v, %v; %s", key, token, ok, err, holder(t, other, key))
		}
	}
	freed := func(t *testing.T, key string) {
		t.Helper()
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if ok, err := other.Exists(key); err == nil && !ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s is not free 3 s after a lost SetNX (ttl %v): %s", key, ttl, holder(t, other, key))
			}
		}
	}
	acquires(t, e, "mine", "M")
	acquires(t, other, "held", "theirs")

	t.Run("retry", func(t *testing.T) {
		// No background undo for now (as if it had not run yet): the
		// retry itself finds its lost attempt, undoes it and acquires.
		e.undo.mu.Lock()
		e.undo.running = true
		e.undo.mu.Unlock()
		defer func() {
			e.undo.mu.Lock()
			e.undo.running = false
			e.undo.mu.Unlock()
		}()
		fail(t, lost, "new-token", "A1")
		if h := holder(t, other, "new-token"); h != `it holds "A1"` {
			t.Fatalf("the lost SetNX did not commit: %s", h)
		}
		acquires(t, e, "new-token", "A2")
		fail(t, lost, "same-token", "B")
		acquires(t, e, "same-token", "B")
		// The background undo lands between the retry's transaction
		// (which saw the lost attempt's key) and its look at the book.
		fail(t, lost, "revoked-meanwhile", "F1")
		f.after = func() {
			cl, err := e.client()
			if err != nil {
				t.Error(err)
				return
			}
			e.undo.mu.Lock()
			var ids []clientv3.LeaseID
			for id, at := range e.undo.leases {
				if at.IsZero() {
					ids = append(ids, id)
				}
			}
			e.undo.mu.Unlock()
			for _, id := range ids {
				if err := e.revokeAbandoned(context.Background(), cl, id); err != nil {
					t.Error(err)
				}
			}
		}
		f.mode.Store(then)
		acquires(t, e, "revoked-meanwhile", "F2")
		fail(t, lost, "held", "C1")
		if ok, err := e.SetNX("held", []byte("C2"), ttl); err != nil || ok {
			t.Fatalf("SetNX of a key another engine holds: %v, %v", ok, err)
		}
	})
	t.Run("another process", func(t *testing.T) {
		// The background undo frees the key for others.
		fail(t, lost, "other-process", "D")
		freed(t, "other-process")
		acquires(t, other, "other-process", "D2")
	})
	t.Run("late", func(t *testing.T) {
		// A request that commits after its caller gave up writes nothing.
		fail(t, late, "late", "E")
		err := <-f.late
		if rpctypes.Error(err) != rpctypes.ErrLeaseNotFound {
			t.Logf("the late request: %v (its lease was not revoked before it committed)", err)
		}
		freed(t, "late")
		acquires(t, other, "late", "E2")
	})
	// e's undos touched nothing else
	if h := holder(t, other, "mine"); h != `it holds "M"` || holder(t, other, "held") != `it holds "theirs"` {
		t.Fatalf("after the undos, mine: %s, held: %s", h, holder(t, other, "held"))
	}
}
