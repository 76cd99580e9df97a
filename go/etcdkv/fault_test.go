package etcdkv

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ephpm/ephpm-kv/kv"
)

// ownCluster is a cluster for one test that stops or kills members.
func ownCluster(t *testing.T, offset int, env ...string) *cluster {
	t.Helper()
	base := portBase()
	if base != 0 {
		base += offset
	}
	c, err := startCluster(base, env...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.stop)
	return c
}

// leader returns the member (1..3) that leads now.
func leader(t *testing.T, c *cluster, e *Engine) int {
	t.Helper()
	cl, err := e.client()
	if err != nil {
		t.Fatal(err)
	}
	for i, ep := range c.endpoints {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st, err := cl.Status(ctx, ep)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return i + 1
		}
	}
	t.Fatal("no member says it leads")
	return 0
}

// A lock taken before the leader is killed (SIGKILL) is still held after:
// the two members left are a quorum, elect a leader, and know the lock. Its
// fence stays below the next one, and its owner's release still works.
func TestLockSurvivesLeaderKill(t *testing.T) {
	c := ownCluster(t, 10)
	a := newTestEngine(t, c, Config{Timeout: 3 * time.Second})
	b := newTestEngine(t, c, Config{Timeout: 3 * time.Second, Prefix: a.cfg.Prefix})
	fa, ok, err := a.SetNXFenced("lock", []byte("A"), 30*time.Second)
	if err != nil || !ok {
		t.Fatalf("A acquires: %v, %v", ok, err)
	}
	if ok, err := b.SetNX("lock", []byte("B"), 30*time.Second); err != nil || ok {
		t.Fatalf("B acquires a held lock before the kill: %v, %v", ok, err)
	}
	l := leader(t, c, a)
	if err := syscall.Kill(c.pid(t, l), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed member %d, the leader", l)
	waitServing(t, b)
	if ok, err := b.SetNX("lock", []byte("B"), 30*time.Second); err != nil || ok {
		t.Fatalf("B acquires after the leader's death: %v, %v (the lock was lost)", ok, err)
	}
	if d, err := a.TTLIfEq("lock", []byte("A")); err != nil || d <= 0 || d > 30*time.Second {
		t.Fatalf("A's lock after the kill: ttl %v, %v", d, err)
	}
	if ok, err := a.DelIfEq("lock", []byte("A")); err != nil || !ok {
		t.Fatalf("A releases: %v, %v", ok, err)
	}
	fb, ok, err := b.SetNXFenced("lock", []byte("B"), 30*time.Second)
	if err != nil || !ok || fb <= fa {
		t.Fatalf("B acquires after the release: fence %d (A's %d), %v, %v", fb, fa, ok, err)
	}
}

// With two members of three stopped (SIGSTOP) there is no quorum: every
// operation is kv.ErrUnavailable within the timeout (plus scheduling),
// never false ("held") from a SetNX, never a guessed answer. Resumed, the
// cluster serves again.
func TestNoQuorumIsUnavailable(t *testing.T) {
	c := ownCluster(t, 10)
	const timeout = time.Second
	e := newTestEngine(t, c, Config{Timeout: timeout})
	if err := e.Set("held", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	l := leader(t, c, e)
	// Stop the leader and one follower: the member left cannot lead.
	stopped := []int{l, l%3 + 1}
	for _, m := range stopped {
		if err := syscall.Kill(c.pid(t, m), syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	resumed := false
	resume := func() {
		if !resumed {
			for _, m := range stopped {
				syscall.Kill(c.pid(t, m), syscall.SIGCONT)
			}
			resumed = true
		}
	}
	defer resume()
	ops := map[string]func() error{
		"SetNX no ttl": func() error { ok, err := e.SetNX("lock", []byte("A"), 0); return errors.Join(err, trueIsWrong(ok)) },
		"SetNX ttl": func() error {
			ok, err := e.SetNX("lock", []byte("A"), 5*time.Second)
			return errors.Join(err, trueIsWrong(ok))
		},
		"SetNX held": func() error {
			ok, err := e.SetNX("held", []byte("A"), 0)
			if err == nil && !ok {
				return errors.New(`returned false ("held") without a quorum`)
			}
			return err
		},
		"SetNXFenced": func() error {
			_, ok, err := e.SetNXFenced("lock", []byte("A"), 0)
			return errors.Join(err, trueIsWrong(ok))
		},
		"DelIfEq":    func() error { _, err := e.DelIfEq("held", []byte("x")); return err },
		"ExpireIfEq": func() error { _, err := e.ExpireIfEq("held", []byte("x"), time.Minute); return err },
		"Get":        func() error { _, _, err := e.Get("held", nil); return err },
		"Fence":      func() error { _, err := e.Fence("db", 1); return err },
	}
	for name, op := range ops {
		start := time.Now()
		err := op()
		took := time.Since(start)
		if !errors.Is(err, kv.ErrUnavailable) {
			t.Errorf("%s without a quorum: %v, want kv.ErrUnavailable", name, err)
		}
		if took > timeout+time.Second {
			t.Errorf("%s without a quorum took %v, the timeout is %v", name, took, timeout)
		}
	}
	resume()
	// A timed-out write may still land: the request can sit in a stopped
	// member's socket and commit once it resumes. So the lock is free, or
	// holds our own token; never anything else. One with a ttl (a lease)
	// is then undone (undo.go): the next SetNX acquires. One without
	// stays: nothing tells it from a caller's lock.
	// Waiting for the cluster (a leader elected, a write committed) with
	// writes to another key: a timed-out one of the lock could land too.
	cl, err := e.client()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := e.Set("probe", []byte("x"), 0)
		var r *clientv3.GetResponse
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			r, err = cl.Get(ctx, e.dataKey("lock"))
			cancel()
		}
		if err == nil {
			found := len(r.Kvs) == 1
			// A or, from a SetNX below that timed out in a second
			// election, B: never anything else.
			if found && string(r.Kvs[0].Value) != "A" && string(r.Kvs[0].Value) != "B" {
				t.Fatalf("after resuming, the lock holds %q", r.Kvs[0].Value)
			}
			kept := found && r.Kvs[0].Lease == 0
			t.Logf("after resuming: a timed-out SetNX landed late: %v; without a ttl: %v", found, kept)
			var ok bool
			ok, err = e.SetNX("lock", []byte("B"), 0)
			if err == nil {
				if ok == kept {
					t.Fatalf("SetNX after resuming: %v; the lock was held by a timed-out SetNX without a ttl: %v", ok, kept)
				}
				break
			}
			// A resumed member can force one more election (etcd 3.4
			// runs without pre-vote): unavailable again, for a moment.
			if !errors.Is(err, kv.ErrUnavailable) {
				t.Fatalf("SetNX after resuming: %v", err)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster did not serve again within 10 s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func value(t *testing.T, e *Engine, key string) string {
	t.Helper()
	buf := make([]byte, 1<<10)
	n, found, err := e.Get(key, buf)
	if err != nil || !found {
		t.Fatalf("Get %s: %v, found %v", key, err, found)
	}
	return string(buf[:n])
}

// waitServing returns once the cluster commits a write (to a key of its
// own: a timed-out write could land later), after a fault.
func waitServing(t *testing.T, e *Engine) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := e.Set("probe", []byte("x"), 0)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster did not serve again within 10 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func trueIsWrong(ok bool) error {
	if ok {
		return errors.New("succeeded without a quorum")
	}
	return nil
}

// No member reachable at all (nothing listens): kv.ErrUnavailable within
// the timeout.
func TestUnreachableIsUnavailable(t *testing.T) {
	e, err := New(Config{Endpoints: []string{"127.0.0.1:1", "127.0.0.1:2"}, Timeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	start := time.Now()
	ok, err := e.SetNX("lock", []byte("A"), time.Minute)
	if !errors.Is(err, kv.ErrUnavailable) || ok {
		t.Fatalf("SetNX with no member up: %v, %v", ok, err)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Fatalf("took %v for a 500 ms timeout", took)
	}
}

// Flush deletes ephpm's prefix only: a cluster shared with other software
// keeps the other keys.
func TestFlushKeepsOtherKeys(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 5 * time.Second})
	cl, err := e.client()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	other := e.cfg.Prefix[:len(e.cfg.Prefix)-1] + "-other/x" // shares the prefix's text, not the prefix
	if _, err := cl.Put(ctx, other, "theirs"); err != nil {
		t.Fatal(err)
	}
	defer cl.Delete(ctx, other)
	if err := e.Set("mine", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.Exists("mine"); ok {
		t.Fatal("Flush kept the engine's key")
	}
	if r, err := cl.Get(ctx, other); err != nil || len(r.Kvs) != 1 || string(r.Kvs[0].Value) != "theirs" {
		t.Fatalf("Flush deleted a key outside the prefix: %v, %v", r, err)
	}
}

// A refresh (ExpireIfEq) keeps the key's create revision, so a lock's
// fence is the same before and after; its displaced lease is revoked.
func TestRefreshKeepsFence(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 5 * time.Second})
	f, ok, err := e.SetNXFenced("lock", []byte("A"), 10*time.Second)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	cl, _ := e.client()
	before, err := cl.Get(context.Background(), e.dataKey("lock"))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := e.ExpireIfEq("lock", []byte("A"), time.Hour); err != nil || !ok {
		t.Fatal(ok, err)
	}
	r, err := cl.Get(context.Background(), e.dataKey("lock"))
	if err != nil || len(r.Kvs) != 1 || r.Kvs[0].CreateRevision != f {
		t.Fatalf("after the refresh: %v, %v; fence was %d", r, err, f)
	}
	old := clientv3.LeaseID(before.Kvs[0].Lease)
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, err := cl.TimeToLive(context.Background(), old)
		if err == nil && l.TTL == -1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the displaced lease %x is still alive: %v, %v", old, l, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
