package main

/*
#include "ops_go.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
)

// Watch states, as watch_state() reports them (ephpm_kv_ops.h).
const (
	watchLost    = 0 // the owner check failed: someone else's key, or none
	watchHeld    = 1 // renewing
	watchStopped = 2 // unwatched, or maxHold passed
)

// watch renews one lock from its own goroutine. A forked child has no Go
// threads, so a watch never runs there: the parent keeps renewing its lock.
type watch struct {
	state atomic.Int32
	stop  chan struct{}
	once  sync.Once
}

func (w *watch) halt() {
	w.once.Do(func() {
		w.state.CompareAndSwap(watchHeld, watchStopped)
		close(w.stop)
	})
}

// startWatch renews key (while its value is token) to ttl every ttl/3,
// until stopped, until the owner check fails, or until maxHold after now:
// then the lock expires at most one ttl later. A store error is retried at
// the next tick.
func startWatch(e kv.Engine, key string, token []byte, ttl, maxHold time.Duration) *watch {
	w := &watch{stop: make(chan struct{})}
	w.state.Store(watchHeld)
	key, token = string([]byte(key)), append([]byte(nil), token...) // C's buffers live only for the call
	deadline := time.Now().Add(maxHold)
	tick := max(ttl/3, time.Millisecond)
	go func() {
		t := time.NewTimer(tick)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			if !time.Now().Before(deadline) {
				w.state.CompareAndSwap(watchHeld, watchStopped)
				return
			}
			ok, err := e.ExpireIfEq(key, token, ttl)
			if err == nil && !ok {
				w.state.CompareAndSwap(watchHeld, watchLost)
				return
			}
			t.Reset(tick)
		}
	}()
	return w
}

var (
	watchMu    sync.Mutex
	watches    = map[int64]*watch{}
	lastHandle int64

	// renewerFactory makes a second remote engine from ephpm.server's
	// settings (serverEngine): one RESP connection serves one request at a
	// time, and PHP's own must stay free while its renewals wait.
	renewerFactory func() (kv.Engine, error)
	renewerOnce    sync.Once
	renewer        kv.Engine
	renewerErr     error
)

// renewEngine is the engine renewals go through: the running one, except
// for a single-server remote engine, which gets its own connection.
func renewEngine() (kv.Engine, error) {
	e := engine()
	if _, single := e.(*remote.Engine); !single || renewerFactory == nil {
		return e, nil
	}
	renewerOnce.Do(func() { renewer, renewerErr = renewerFactory() })
	return renewer, renewerErr
}

//export ephpmKvWatch
func ephpmKvWatch(key *C.ephpm_cchar, keyLen C.size_t, token *C.ephpm_cchar, tokenLen C.size_t, ttl, maxHold C.int64_t, handle *C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	if ttl <= 0 || maxHold <= 0 {
		return fail(cerr, kv.ErrBadTTL)
	}
	e, err := renewEngine()
	if err != nil {
		return fail(cerr, err)
	}
	w := startWatch(e, goString(key, keyLen), goBytes(token, tokenLen), time.Duration(ttl), time.Duration(maxHold))
	watchMu.Lock()
	lastHandle++
	watches[lastHandle] = w
	*handle = C.int64_t(lastHandle)
	watchMu.Unlock()
	return 0
}

//export ephpmKvUnwatch
func ephpmKvUnwatch(handle C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	watchMu.Lock()
	w := watches[int64(handle)]
	delete(watches, int64(handle))
	watchMu.Unlock()
	if w == nil {
		return 0
	}
	w.halt()
	return 1
}

//export ephpmKvWatchState
func ephpmKvWatchState(handle C.int64_t, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	watchMu.Lock()
	w := watches[int64(handle)]
	watchMu.Unlock()
	if w == nil {
		return watchStopped
	}
	return C.int(w.state.Load())
}
