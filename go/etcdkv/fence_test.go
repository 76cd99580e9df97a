package etcdkv

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// above is a fence no revision of the test cluster reaches: one a caller
// took from a counter of its own.
const above = int64(1) << 40

// A fence record above the floor (a caller's own counter) refuses more
// than the floor does, so Flush keeps it; the records at or below the
// floor refuse nothing it does not, and Flush deletes them.
func TestFlushKeepsFencesAboveFloor(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 5 * time.Second})
	f, ok, err := e.SetNXFenced("lock", []byte("A"), time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, c := range []struct {
		resource string
		fence    int64
		want     bool
	}{{"db", above, true}, {"db", above - 1, false}, {"cache", f, true}} {
		if ok, err := e.Fence(c.resource, c.fence); err != nil || ok != c.want {
			t.Fatalf("before Flush: Fence(%s, %d) = %v, %v", c.resource, c.fence, ok, err)
		}
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		resource string
		fence    int64
		want     bool
	}{{"db", above - 1, false}, {"cache", f, false}, {"db", above, true}} {
		if ok, err := e.Fence(c.resource, c.fence); err != nil || ok != c.want {
			t.Fatalf("after Flush: Fence(%s, %d) = %v, %v (want %v)", c.resource, c.fence, ok, err, c.want)
		}
	}
	cl, _ := e.client()
	r, err := cl.Get(context.Background(), e.fencePrefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Kvs) != 1 || string(r.Kvs[0].Key) != e.fencePrefix+"db" {
		t.Fatalf("fence records after Flush: %v; want only db's, above the floor", r.Kvs)
	}
}

// Fence checks racing Flushes: a fence refused, or below one accepted,
// stays refused whenever the Flushes land (between the two calls, or
// between a sweep's read of a record and its delete).
func TestFlushRacesFences(t *testing.T) {
	e := newTestEngine(t, shared, Config{Timeout: 5 * time.Second})
	const workers, rounds = 4, 40
	var flushes atomic.Int64
	stop := make(chan struct{})
	flushed := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				flushed <- nil
				return
			default:
			}
			if err := e.Flush(); err != nil {
				flushed <- err
				return
			}
			flushes.Add(1)
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				resource := fmt.Sprintf("r%d-%d", w, i)
				f, ok, err := e.SetNXFenced(resource, []byte("A"), time.Minute)
				if err != nil || !ok {
					errs <- fmt.Errorf("SetNXFenced(%s): %v, %v", resource, ok, err)
					return
				}
				// Accepted unless a Flush came after the acquisition: the
				// sweep may read this record, then see it raised.
				if _, err := e.Fence(resource, f); err != nil {
					errs <- err
					return
				}
				hi := above + int64(i)
				for _, c := range []struct {
					fence int64
					want  bool
				}{{hi, true}, {hi - 1, false}, {f, false}} {
					if ok, err := e.Fence(resource, c.fence); err != nil || ok != c.want {
						errs <- fmt.Errorf("Fence(%s, %d) = %v, %v after Fence(%s, %d) was accepted", resource, c.fence, ok, err, resource, hi)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if flushes.Load() == 0 {
		t.Fatal("no Flush ran during the fence checks")
	}
	t.Logf("%d flushes during %d fence rounds", flushes.Load(), workers*rounds)
}
