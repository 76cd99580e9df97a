package kvtest

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// CheckSessionOps checks LockAndGet and SetIfLocked, the session handler's
// two steps, against the contract in kv.Engine: the same for every engine.
func CheckSessionOps(t *testing.T, e kv.Engine) {
	t.Helper()
	CheckSessionOpsLag(t, e, 0)
}

// CheckSessionOpsLag is CheckSessionOps for an engine whose expired
// entries may be seen up to lag past their ttl (Target.ExpiryLag).
func CheckSessionOpsLag(t *testing.T, e kv.Engine, lag time.Duration) {
	t.Helper()
	const data, lock = "kvtest:session", "kvtest:session_lock"
	check := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	reset := func() {
		t.Helper()
		_, err := e.Del(data)
		check("Del", err)
		_, err = e.Del(lock)
		check("Del", err)
	}
	value := func(key string) string {
		t.Helper()
		buf := make([]byte, 1<<16)
		n, found, err := e.Get(key, buf)
		check("Get", err)
		if !found {
			return "(absent)"
		}
		return string(buf[:n])
	}
	ttl := func(key string) time.Duration {
		t.Helper()
		d, err := e.TTL(key)
		check("TTL", err)
		return d
	}

	// A free lock: acquired, and the data read with it.
	reset()
	check("Set", e.Set(data, []byte("n|i:1;"), 0))
	buf := make([]byte, 64)
	acquired, n, found, err := kv.LockAndGet(e, lock, []byte("A"), time.Minute, data, buf)
	check("LockAndGet", err)
	if !acquired || !found || string(buf[:n]) != "n|i:1;" || value(lock) != "A" {
		t.Fatalf("free lock: acquired %v found %v data %q, lock %q", acquired, found, buf[:n], value(lock))
	}
	// Held: nothing acquired, nothing read, the holder untouched.
	buf = make([]byte, 64)
	acquired, n, found, err = kv.LockAndGet(e, lock, []byte("B"), time.Minute, data, buf)
	check("LockAndGet", err)
	if acquired || found || n != 0 || !bytes.Equal(buf, make([]byte, 64)) || value(lock) != "A" {
		t.Fatalf("held lock: acquired %v found %v n %d, lock %q", acquired, found, n, value(lock))
	}

	// Acquired with no data yet.
	reset()
	acquired, n, found, err = kv.LockAndGet(e, lock, []byte("A"), time.Minute, data, buf)
	check("LockAndGet", err)
	if !acquired || found || n != 0 {
		t.Fatalf("no data: acquired %v found %v n %d", acquired, found, n)
	}

	// Data larger than the buffer: its length, then Get with a larger one.
	reset()
	big := strings.Repeat("session-data;", 1000)
	check("Set", e.Set(data, []byte(big), 0))
	acquired, n, found, err = kv.LockAndGet(e, lock, []byte("A"), time.Minute, data, make([]byte, 16))
	check("LockAndGet", err)
	if !acquired || !found || n != len(big) || value(data) != big {
		t.Fatalf("large data: acquired %v found %v n %d", acquired, found, n)
	}

	// An expired lock is free.
	reset()
	check("Set", e.Set(lock, []byte("old"), 20*time.Millisecond))
	time.Sleep(40*time.Millisecond + lag)
	acquired, _, _, err = kv.LockAndGet(e, lock, []byte("A"), time.Minute, data, buf)
	check("LockAndGet", err)
	if !acquired || value(lock) != "A" {
		t.Fatalf("expired lock: acquired %v, lock %q", acquired, value(lock))
	}

	// The owner writes, with the data's ttl, and renews the lock.
	reset()
	check("Set", e.Set(lock, []byte("A"), 5*time.Second))
	ok, err := kv.SetIfLocked(e, data, []byte("new"), time.Hour, lock, []byte("A"), time.Minute, false)
	check("SetIfLocked", err)
	if d, l := ttl(data), ttl(lock); !ok || value(data) != "new" || d < 59*time.Minute || l < 55*time.Second || value(lock) != "A" {
		t.Fatalf("owner: %v, data %q ttl %v, lock %q ttl %v", ok, value(data), d, value(lock), l)
	}
	// ttl 0: no expiry, for the data as for the lock.
	ok, err = kv.SetIfLocked(e, data, []byte("newer"), 0, lock, []byte("A"), 0, false)
	check("SetIfLocked", err)
	if !ok || value(data) != "newer" || ttl(data) != kv.TTLPersistent || ttl(lock) != kv.TTLPersistent {
		t.Fatalf("ttl 0: %v, data %q ttl %v, lock ttl %v", ok, value(data), ttl(data), ttl(lock))
	}

	// Released with the write: written first, then the lock is gone.
	ok, err = kv.SetIfLocked(e, data, []byte("last"), time.Hour, lock, []byte("A"), time.Minute, true)
	check("SetIfLocked", err)
	if !ok || value(data) != "last" || value(lock) != "(absent)" {
		t.Fatalf("owner releasing: %v, data %q, lock %q", ok, value(data), value(lock))
	}

	// Someone else's lock, or none: nothing written, the lock untouched,
	// whether or not the write was to release it.
	reset()
	check("Set", e.Set(data, []byte("theirs"), 0))
	check("Set", e.Set(lock, []byte("B"), 5*time.Second))
	for _, release := range []bool{false, true} {
		ok, err = kv.SetIfLocked(e, data, []byte("mine"), 0, lock, []byte("A"), time.Minute, release)
		check("SetIfLocked", err)
		if ok || value(data) != "theirs" || value(lock) != "B" || ttl(lock) > 5*time.Second {
			t.Fatalf("stranger (release %v): %v, data %q, lock %q ttl %v", release, ok, value(data), value(lock), ttl(lock))
		}
	}
	_, err = e.Del(lock)
	check("Del", err)
	ok, err = kv.SetIfLocked(e, data, []byte("mine"), 0, lock, []byte("A"), time.Minute, true)
	check("SetIfLocked", err)
	if ok || value(data) != "theirs" || value(lock) != "(absent)" {
		t.Fatalf("no lock: %v, data %q, lock %q", ok, value(data), value(lock))
	}
	// A lock that expired is not revived, and its holder does not write.
	check("Set", e.Set(lock, []byte("A"), 20*time.Millisecond))
	time.Sleep(40*time.Millisecond + lag)
	ok, err = kv.SetIfLocked(e, data, []byte("mine"), 0, lock, []byte("A"), time.Minute, false)
	check("SetIfLocked", err)
	if ok || value(data) != "theirs" || value(lock) != "(absent)" {
		t.Fatalf("expired lock: %v, data %q, lock %q", ok, value(data), value(lock))
	}
}

// CheckSessionOpsRefuse checks that a value the engine refuses is an error, and the
// lock keeps its ttl (nothing was renewed, or released, for a write that
// did not happen).
func CheckSessionOpsRefuse(t *testing.T, e kv.Engine, tooLarge []byte) {
	t.Helper()
	const data, lock = "kvtest:session", "kvtest:session_lock"
	if err := e.Set(lock, []byte("A"), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	ok, err := kv.SetIfLocked(e, data, tooLarge, 0, lock, []byte("A"), time.Hour, true)
	if ok || !errors.Is(err, kv.ErrValueTooLarge) {
		t.Fatalf("too large: %v, %v", ok, err)
	}
	if d, err := e.TTL(lock); err != nil || d > 5*time.Second || d < 0 {
		t.Fatalf("the refused write renewed or released the lock: ttl %v, %v", d, err)
	}
	if found, err := e.Exists(data); err != nil || found {
		t.Fatalf("the refused value was stored: %v, %v", found, err)
	}
}

// CheckSessionsSerialize runs workers goroutines, each with its own engine
// from newEngine, that each do rounds of the session protocol on one shared
// session (LockAndGet, waiting while it is held; increment; SetIfLocked
// releasing, or SetIfLocked and DelIfEq): the counter must come out at
// workers*rounds, no update lost.
func CheckSessionsSerialize(t *testing.T, newEngine func() kv.Engine, workers, rounds int) {
	t.Helper()
	const data, lock = "kvtest:shared", "kvtest:shared_lock"
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			e := newEngine()
			token := []byte{'t', byte('a' + w)}
			buf := make([]byte, 32)
			for r := 0; r < rounds; r++ {
				var (
					acquired bool
					n        int
					err      error
				)
				for !acquired {
					if acquired, n, _, err = kv.LockAndGet(e, lock, token, time.Minute, data, buf); err != nil {
						errs <- err
						return
					}
					if !acquired {
						time.Sleep(50 * time.Microsecond)
					}
				}
				count, _ := strconv.Atoi(string(buf[:n])) // absent: 0
				next := []byte(strconv.Itoa(count + 1))
				release := (w+r)%2 == 0 // released with the write, or after it
				if ok, err := kv.SetIfLocked(e, data, next, 0, lock, token, time.Minute, release); err != nil || !ok {
					errs <- errors.Join(err, errors.New("lost a lock nobody could take"))
					return
				}
				if release {
					continue
				}
				if ok, err := e.DelIfEq(lock, token); err != nil || !ok {
					errs <- errors.Join(err, errors.New("release failed"))
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _, err := newEngine().Get(data, buf)
	if err != nil || string(buf[:n]) != strconv.Itoa(workers*rounds) {
		t.Fatalf("counter %q after %d increments (%v)", buf[:n], workers*rounds, err)
	}
}
