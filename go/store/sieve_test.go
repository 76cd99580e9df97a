package store

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// checkAccounts checks that used is the sum of the entries' (and fence
// records') bytes, evictable that of the evictable entries, and the queue holds
// exactly the evictable entries of the map, each once, linked both ways.
func checkAccounts(t *testing.T, s *Store) {
	t.Helper()
	var used, evictable int64
	inMap := map[*cacheItem]bool{}
	s.m.Range(func(key string, it *item) bool {
		used += it.mem(key)
		if it.evictable {
			evictable += it.mem(key)
			inMap[it.cache()] = true
			if c := it.cache(); c.key != key {
				t.Errorf("cache item of %q names %q", key, c.key)
			}
		}
		return true
	})
	used += s.fenceMem.Load()
	if got := s.used.Load(); got != used {
		t.Errorf("used %d, entries hold %d", got, used)
	}
	if got := s.evictable.Load(); got != evictable {
		t.Errorf("evictable %d, evictable entries hold %d", got, evictable)
	}
	q := &s.cacheQ
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	var newer *cacheItem
	for c := q.oldest; c != nil; newer, c = c, c.newer {
		if c.older != newer || !c.queued || !inMap[c] {
			t.Fatalf("queue entry %q: older %p (want %p), queued %v, in the map %v", c.key, c.older, newer, c.queued, inMap[c])
		}
		n++
	}
	if q.newest != newer || n != len(inMap) {
		t.Errorf("queue of %d entries (newest %p, want %p), map has %d evictable", n, q.newest, newer, len(inMap))
	}
	if q.hand != nil && !q.hand.queued {
		t.Errorf("the hand is on %q, out of the queue", q.hand.key)
	}
}

// SIEVE's order: the hand takes the oldest entry not hit since it last
// passed, clears the marks of those it passes, and wraps around.
func TestSieveOrder(t *testing.T) {
	s := newTestStore(t, Config{MemoryLimit: 1 << 20, SweepInterval: time.Hour})
	for _, k := range []string{"a", "b", "c", "d"} {
		if err := s.SetEvictable(k, []byte(k), 0); err != nil {
			t.Fatal(err)
		}
	}
	get(t, s, "a")
	get(t, s, "c")
	evict := func(want string) {
		t.Helper()
		c := s.cacheQ.victim(nanotime())
		if c == nil || c.key != want {
			t.Fatalf("victim %v, want %q", c, want)
		}
		// Put it back in the map's terms: delete it as evictOne does.
		if ok, _ := s.Del(c.key); !ok {
			t.Fatalf("%q not in the map", c.key)
		}
	}
	evict("b") // a (hit) passed and cleared
	evict("d") // c (hit) passed and cleared
	get(t, s, "c")
	if err := s.SetEvictable("e", []byte("e"), 0); err != nil {
		t.Fatal(err)
	}
	evict("a") // wrapped: a was cleared, c hit again
	evict("e") // c passed and cleared again
	evict("c")
	if c := s.cacheQ.victim(nanotime()); c != nil {
		t.Fatalf("victim %q of an empty queue", c.key)
	}
	checkAccounts(t, s)
}

// An expired evictable entry is taken by the hand, hit or not, and counts
// as expired, not evicted.
func TestSieveTakesExpired(t *testing.T) {
	s := newTestStore(t, Config{MemoryLimit: 1 << 20, SweepInterval: time.Hour})
	s.SetEvictable("short", []byte("v"), time.Millisecond)
	s.SetEvictable("long", []byte("v"), 0)
	get(t, s, "short")
	time.Sleep(3 * time.Millisecond)
	if !s.evictOne() {
		t.Fatal("nothing to evict")
	}
	if st := s.Counters(); st.Expired != 1 || st.Evicted != 0 || !exists(s, "long") {
		t.Fatalf("expired %d, evicted %d, long there %v", st.Expired, st.Evicted, exists(s, "long"))
	}
	checkAccounts(t, s)
}

func exists(s *Store, key string) bool { ok, _ := s.Exists(key); return ok }

// Every kind of held write into a store full of cache evicts it: locks,
// leases, rate limits, counters, fences, sessions, restores.
func TestHeldWritesEvictCache(t *testing.T) {
	token := []byte("0123456789abcdef")
	writes := map[string]func(s *Store) error{
		"Set":   func(s *Store) error { return s.Set("held", make([]byte, 4000), 0) },
		"SetNX": func(s *Store) error { _, err := s.SetNX("held", token, time.Minute); return err },
		"SetNXFenced": func(s *Store) error {
			_, _, err := s.SetNXFenced("held", token, time.Minute)
			return err
		},
		"Incr": func(s *Store) error { _, err := s.Incr("held", 1, 0); return err },
		"LeaseAcquire": func(s *Store) error {
			_, _, err := s.LeaseAcquire("held", token, kv.LeaseShared, 0, time.Minute, 0)
			return err
		},
		"RateLimit": func(s *Store) error { _, _, _, err := s.RateLimit("held", 10, time.Minute); return err },
		"Fence":     func(s *Store) error { _, err := s.Fence("held", 1<<40); return err },
		"SetIfLocked": func(s *Store) error {
			if _, err := s.SetNX("lock", token, time.Minute); err != nil {
				return err
			}
			_, err := s.SetIfLocked("held", make([]byte, 4000), 0, "lock", token, time.Minute, true)
			return err
		},
		"Restore": func(s *Store) error { _, err := s.Restore("held", KindPlain, make([]byte, 4000), 0); return err },
	}
	for name, write := range writes {
		t.Run(name, func(t *testing.T) {
			s := newTestStore(t, Config{MemoryLimit: 256 << 10, CompressMin: -1, SweepInterval: time.Hour})
			for i := 0; s.Counters().Evicted == 0; i++ {
				if err := s.SetEvictable(fmt.Sprint("cache:", i), make([]byte, 1000), 0); err != nil {
					t.Fatal(err)
				}
			}
			// Not a byte left but what the cache holds.
			phantom := s.cfg.MemoryLimit - s.used.Load()
			s.used.Add(phantom)
			evicted := s.Counters().Evicted
			if err := write(s); err != nil {
				t.Fatalf("into a store full of cache: %v", err)
			}
			if s.Counters().Evicted == evicted {
				t.Error("nothing evicted")
			}
			s.used.Add(-phantom)
			checkAccounts(t, s)
		})
	}
}

// A Flush empties the queue.
func TestFlushEmptiesQueue(t *testing.T) {
	s := newTestStore(t, Config{MemoryLimit: 1 << 20, SweepInterval: time.Hour})
	for i := range 100 {
		s.SetEvictable(fmt.Sprint("c", i), []byte("v"), 0)
	}
	get(t, s, "c5")
	s.cacheQ.victim(nanotime()) // the hand mid-queue
	s.Flush()
	if s.cacheQ.oldest != nil || s.cacheQ.newest != nil || s.cacheQ.hand != nil || s.evictable.Load() != 0 {
		t.Fatalf("after Flush: oldest %v, newest %v, hand %v, evictable %d", s.cacheQ.oldest, s.cacheQ.newest, s.cacheQ.hand, s.evictable.Load())
	}
	checkAccounts(t, s)
}

// Writers of both kinds, readers and deleters at once on a full store:
// no held entry is lost, no held write refused while cache is left, and
// the accounts add up afterwards (run with -race).
func TestEvictionConcurrent(t *testing.T) {
	s := newTestStore(t, Config{MemoryLimit: 512 << 10, CompressMin: -1, SweepInterval: time.Hour})
	const workers, rounds = 4, 3000
	var wg sync.WaitGroup
	var mu sync.Mutex
	held := map[string]bool{}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			value, buf := make([]byte, 900), make([]byte, 1000)
			for i := range rounds {
				key := fmt.Sprintf("c%d:%d", w, i%700)
				switch i % 10 {
				case 0:
					// A held entry now and then; a few stay for good.
					hk := fmt.Sprintf("h%d:%d", w, i)
					// Held data stays far below the limit: never refused.
					if err := s.Set(hk, []byte("held"), 0); err != nil {
						t.Errorf("held Set: %v", err)
						continue
					}
					mu.Lock()
					held[hk] = true
					mu.Unlock()
				case 1:
					s.Del(key)
				case 2, 3, 4:
					s.Get(fmt.Sprintf("c%d:%d", (w+1)%workers, i%700), buf)
				case 5:
					s.SetEvictable(key, value[:10], time.Millisecond)
				case 6:
					// Overwrites of the other kind.
					s.Set(key, value[:100], 0)
					s.SetEvictable(key, value, 0)
				default:
					if err := s.SetEvictable(key, value, 0); err != nil {
						t.Errorf("SetEvictable: %v", err)
					}
				}
			}
		}()
	}
	wg.Wait()
	for hk := range held {
		if v, ok := get(t, s, hk); !ok || v != "held" {
			t.Fatalf("held %s lost", hk)
		}
	}
	checkAccounts(t, s)
	if s.Counters().Evicted == 0 {
		t.Error("nothing evicted")
	}
}
