package main

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// engineRef lets an interface value sit behind an atomic pointer, so the hot
// path reads the engine with one load and no lock.
type engineRef struct{ kv.Engine }

var (
	active  atomic.Pointer[engineRef]
	startMu sync.Mutex
)

var errStarted = errors.New("ephpm-kv: configure called after the store started; settings apply only before first use")

// engine returns the running engine, starting one with defaults when no
// configure call came first.
func engine() kv.Engine {
	if ref := active.Load(); ref != nil {
		return ref.Engine
	}
	ref, _ := start(store.Config{})
	return ref.Engine
}

// start creates the engine once; started reports whether this call did it.
func start(cfg store.Config) (ref *engineRef, started bool) {
	startMu.Lock()
	defer startMu.Unlock()
	if ref := active.Load(); ref != nil {
		return ref, false
	}
	ref = &engineRef{store.New(cfg)}
	active.Store(ref)
	return ref, true
}
