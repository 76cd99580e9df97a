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

// engine returns the running engine, starting the in-process store with
// defaults when no configure call came first.
func engine() kv.Engine {
	if ref := active.Load(); ref != nil {
		return ref.Engine
	}
	startWith(func() (kv.Engine, error) { return store.New(store.Config{}), nil })
	return active.Load().Engine
}

// startWith installs the engine newEngine makes, unless one is running
// (errStarted).
func startWith(newEngine func() (kv.Engine, error)) error {
	startMu.Lock()
	defer startMu.Unlock()
	if active.Load() != nil {
		return errStarted
	}
	e, err := newEngine()
	if err != nil {
		return err
	}
	active.Store(&engineRef{e})
	return nil
}
