package shm

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// TestConcurrentLocksAndCounters checks that many goroutines over several
// attaches of one segment can take and release a few locks: inside a lock each
// checks it is alone and counts, and counters end exact.
func TestConcurrentLocksAndCounters(t *testing.T) {
	mem, _ := MapAnonymous(4 << 20)
	defer Unmap(mem)
	var engines []*Engine
	for range 4 {
		e, err := Attach(mem, Config{})
		if err != nil {
			t.Fatal(err)
		}
		engines = append(engines, e)
	}
	const workers, rounds = 16, 1000
	keys := []string{"l0", "l1", "l2"}
	// Holders inside each lock. Atomic: the race detector does not see the
	// ordering the segment's lock word gives (it tracks no memory outside
	// the Go heap), so a plain int would be reported though it is safe.
	var inside [3]atomic.Int32
	var acquired atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := engines[w%len(engines)]
			for i := range rounds {
				k := i % len(keys)
				token := []byte(fmt.Sprint(w, ":", i))
				ok, err := e.SetNX(keys[k], token, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					if n := inside[k].Add(1); n != 1 {
						t.Errorf("%d holders of %s", n, keys[k])
					}
					inside[k].Add(-1)
					acquired.Add(1)
					if ok, _ := e.DelIfEq(keys[k], token); !ok {
						t.Error("own lock not released")
					}
				}
				if _, err := e.Incr("n", 1, 0); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if v, _ := get(t, engines[0], "n"); v != strconv.Itoa(workers*rounds) {
		t.Fatalf("counter %s, want %d", v, workers*rounds)
	}
	if acquired.Load() == 0 {
		t.Fatal("no lock acquired")
	}
	mustVerify(t, engines[0])
}

// TestConcurrentMixedOnSmallSegment checks that values read back are always
// whole, and the segment verifies clean, when goroutines write, read, delete
// and expire values of many sizes on a segment too small for all of them, so
// that allocation steals, falls back to larger classes, reclaims, coalesces and
// reports full, concurrently.
func TestConcurrentMixedOnSmallSegment(t *testing.T) {
	e := newTestEngine(t, MinSize, Config{CompressMin: -1})
	const workers = 8
	var wg sync.WaitGroup
	var full atomic.Int64
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			buf := make([]byte, 1<<16)
			for range 3000 {
				k := r.IntN(400)
				key := fmt.Sprint("k", k)
				switch r.IntN(5) {
				case 0, 1:
					v := bytes.Repeat([]byte{byte(k)}, r.IntN(3000))
					ttl := time.Duration(r.IntN(3)) * time.Millisecond
					if err := e.Set(key, v, ttl); errors.Is(err, kv.ErrFull) {
						full.Add(1)
					} else if err != nil {
						t.Error(err)
					}
				case 2:
					n, ok, err := e.Get(key, buf)
					if err != nil {
						t.Error(err)
					}
					if ok && n <= len(buf) {
						for _, c := range buf[:n] {
							if c != byte(k) {
								t.Errorf("torn value at %s", key)
								break
							}
						}
					}
				case 3:
					e.Del(key)
				case 4:
					e.Expire(key, time.Millisecond)
				}
			}
		}()
	}
	wg.Wait()
	mustVerify(t, e)
	st, _ := e.Stats()
	// Pressure: a write refused, or one that needed a coalescing pass
	// (which, since compaction, often makes the room a refusal lacked).
	if full.Load() == 0 && e.Coalesces() == 0 {
		t.Fatal("the segment never filled: allocation under pressure untested")
	}
	t.Logf("%d writes refused as full, %d coalescing passes, %d records moved; stats %+v", full.Load(), e.Coalesces(), e.Moves(), st)
}

// Verify while goroutines keep every stripe busy: it gets all the locks
// (it does not starve) and finds the segment consistent each time.
func TestVerifyUnderLoad(t *testing.T) {
	e := newTestEngine(t, 1<<20, Config{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			token := []byte(strconv.Itoa(w))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprint("k", i%500)
				if ok, _ := e.SetNX(key, token, time.Second); ok {
					e.DelIfEq(key, token)
				}
			}
		}()
	}
	start := time.Now()
	verified := 0
	for time.Since(start) < 300*time.Millisecond {
		if err := e.Verify(); err != nil {
			close(stop)
			wg.Wait()
			t.Fatal(err)
		}
		verified++
	}
	close(stop)
	wg.Wait()
	t.Logf("%d Verify runs under load", verified)
}
