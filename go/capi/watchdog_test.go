package main

import (
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

func held(t *testing.T, e kv.Engine, key, token string) bool {
	t.Helper()
	ttl, err := e.TTLIfEq(key, []byte(token))
	if err != nil {
		t.Fatal(err)
	}
	return ttl != kv.TTLMissing
}

func TestWatchRenewsUntilHalted(t *testing.T) {
	e := store.New(store.Config{})
	const ttl = 60 * time.Millisecond
	if ok, _ := e.SetNX("k", []byte("tok"), ttl); !ok {
		t.Fatal("setnx")
	}
	w := startWatch(e, "k", []byte("tok"), ttl, time.Minute)
	time.Sleep(4 * ttl)
	if !held(t, e, "k", "tok") || w.state.Load() != watchHeld {
		t.Fatalf("lock lost after 4 TTLs under watch (state %d)", w.state.Load())
	}
	w.halt()
	if w.state.Load() != watchStopped {
		t.Fatalf("state after halt = %d", w.state.Load())
	}
	time.Sleep(2 * ttl)
	if held(t, e, "k", "tok") {
		t.Fatal("still renewed after halt")
	}
}

func TestWatchStopsAtMaxHold(t *testing.T) {
	e := store.New(store.Config{})
	const ttl, maxHold = 60 * time.Millisecond, 150 * time.Millisecond
	e.SetNX("k", []byte("tok"), ttl)
	w := startWatch(e, "k", []byte("tok"), ttl, maxHold)
	time.Sleep(maxHold - 20*time.Millisecond)
	if !held(t, e, "k", "tok") {
		t.Fatal("lost before maxHold")
	}
	time.Sleep(20*time.Millisecond + ttl + 40*time.Millisecond)
	if held(t, e, "k", "tok") {
		t.Fatal("still held one TTL after maxHold")
	}
	if w.state.Load() != watchStopped {
		t.Fatalf("state = %d, want stopped", w.state.Load())
	}
}

func TestWatchLostDoesNotTouchTheNewHolder(t *testing.T) {
	e := store.New(store.Config{})
	const ttl = 60 * time.Millisecond
	e.SetNX("k", []byte("tok"), ttl)
	w := startWatch(e, "k", []byte("tok"), ttl, time.Minute)
	e.Del("k")
	e.SetNX("k", []byte("other"), 5*ttl)
	time.Sleep(2 * ttl)
	if w.state.Load() != watchLost {
		t.Fatalf("state = %d, want lost", w.state.Load())
	}
	left, _ := e.TTL("k")
	if left > 4*ttl || left <= 0 {
		t.Fatalf("the new holder's TTL = %v: the watchdog changed it", left)
	}
}
