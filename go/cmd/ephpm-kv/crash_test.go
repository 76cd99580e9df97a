package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fenceLog checks that every fence seen is above every fence seen before
// the last restart, and that each client's fences increase.
type fenceLog struct {
	t       *testing.T
	mu      sync.Mutex
	highest int64 // over everything seen so far
	floor   int64 // highest seen before the current server started
	errors  int
}

func (l *fenceLog) saw(f int64, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f <= l.floor {
		if l.errors++; l.errors <= 5 {
			l.t.Errorf("%s: fence %d, but %d was issued before the restart", what, f, l.floor)
		}
	}
	l.highest = max(l.highest, f)
}

func (l *fenceLog) restarted() {
	l.mu.Lock()
	l.floor = l.highest
	l.mu.Unlock()
}

func acquire(t *testing.T, c *client, key string) (int64, error) {
	r, err := c.do("EPHPM.SETNXFENCED", key, "tok", "60000")
	if err != nil {
		return 0, err
	}
	f, perr := strconv.ParseInt(r, 10, 64)
	if perr != nil || f <= 0 {
		t.Errorf("acquire %s: %q", key, r)
		return 0, fmt.Errorf("bad reply %q", r)
	}
	_, err = c.do("DEL", key)
	return f, err
}

// Every fence the server issues is above every fence it issued before, over
// SIGTERM restarts and kill -9 under fenced load. Today's failure was
// 1 2 3 / 4 5 6 / 4 5 6: after kill -9 the counter came back from the last
// snapshot. Small fence blocks make the durable reservation run (and block)
// often.
func TestFencesNeverGoBackwards(t *testing.T) {
	t.Setenv("EPHPM_KV_FENCE_BLOCK", "256")
	dir := t.TempDir()
	sock, snap := filepath.Join(dir, "kv.sock"), filepath.Join(dir, "kv.snap")
	log := &fenceLog{t: t}
	three := func(s *proc, what string) {
		c := mustDial(t, sock)
		last := int64(0)
		for i := range 3 {
			f, err := acquire(t, c, "job")
			if err != nil {
				t.Fatalf("%s: %v\n%s", what, err, s.out)
			}
			if f <= last {
				t.Errorf("%s: fence %d after %d", what, f, last)
			}
			last = f
			log.saw(f, fmt.Sprintf("%s, acquisition %d", what, i+1))
		}
		log.restarted()
	}
	s := start(t, sock, "--snapshot", snap)
	three(s, "first start")
	if err := s.stop(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s = start(t, sock, "--snapshot", snap)
	three(s, "after SIGTERM")
	s.stop(syscall.SIGKILL)
	s = start(t, sock, "--snapshot", snap)
	three(s, "after kill -9")

	for round := range 3 {
		var wg sync.WaitGroup
		var acquired atomic.Int64
		for g := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := dial(sock)
				if err != nil {
					return
				}
				defer c.c.Close()
				last := int64(0)
				for i := 0; ; i++ {
					f, err := acquire(t, c, fmt.Sprintf("lock-%d-%d", g, i%8))
					if err != nil {
						return // killed
					}
					if f <= last {
						t.Errorf("client %d: fence %d after %d", g, f, last)
					}
					last = f
					acquired.Add(1)
					log.saw(f, fmt.Sprintf("round %d client %d", round, g))
				}
			}()
		}
		time.Sleep(time.Duration(200+rand.IntN(300)) * time.Millisecond)
		s.stop(syscall.SIGKILL)
		wg.Wait()
		if acquired.Load() < 20 {
			t.Fatalf("round %d: only %d acquisitions before the kill", round, acquired.Load())
		}
		t.Logf("round %d: %d fenced acquisitions, highest fence %d", round, acquired.Load(), log.highest)
		log.restarted()
		s = start(t, sock, "--snapshot", snap)
		three(s, fmt.Sprintf("round %d, after kill -9 under load", round))
	}
	s.stop(syscall.SIGTERM)

	// Without --snapshot only the wall clock carries fences over a restart.
	s = start(t, sock)
	three(s, "no snapshot")
	s.stop(syscall.SIGKILL)
	s = start(t, sock)
	three(s, "no snapshot, after kill -9")
}

// Writers store sequential keys while snapshots are taken every few
// milliseconds; the server is killed at a random moment. What comes back
// must be, for each writer, a prefix of what it was acknowledged: no
// holes. No temp file may be left behind.
func TestSnapshotAfterKill9HasNoHoles(t *testing.T) {
	dir := t.TempDir()
	sock, snap := filepath.Join(dir, "kv.sock"), filepath.Join(dir, "kv.snap")
	const writers = 4
	value := strings.Repeat("v", 64)
	for round := range 2 {
		os.Remove(snap)
		s := start(t, sock, "--snapshot", snap, "--snapshot-every", "15ms", "--memory-limit", "1G")
		var acked [writers]atomic.Int64
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := dial(sock)
				if err != nil {
					return
				}
				defer c.c.Close()
				for i := 0; ; i++ {
					if r, err := c.do("SET", fmt.Sprintf("w%d:%07d", w, i), value); err != nil || r != "OK" {
						return
					}
					acked[w].Store(int64(i + 1))
				}
			}()
		}
		kill := time.Duration(300+rand.IntN(600)) * time.Millisecond
		time.Sleep(kill)
		s.stop(syscall.SIGKILL)
		wg.Wait()

		s = start(t, sock, "--snapshot", snap)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".ephpm-kv-snapshot-") {
				t.Errorf("temp file %s left after the restart", e.Name())
			}
		}
		c := mustDial(t, sock)
		total := int64(0)
		for w := range writers {
			n := present(t, c, w, acked[w].Load()+1)
			total += n
			t.Logf("round %d (killed after %v): writer %d restored %d of %d acknowledged keys", round, kill, w, n, acked[w].Load())
		}
		if total == 0 {
			t.Fatalf("round %d: no snapshot was taken before the kill", round)
		}
		if db := mustDo(t, c, "DBSIZE"); db != strconv.FormatInt(total, 10) {
			t.Errorf("round %d: DBSIZE %s, the writers' prefixes hold %d", round, db, total)
		}
		s.stop(syscall.SIGTERM)
	}
}

// present checks that writer w's keys in the store are 0..n-1 for some n
// (a prefix, no holes) with n <= upTo, and returns n.
func present(t *testing.T, c *client, w int, upTo int64) int64 {
	t.Helper()
	n, holeAt := int64(-1), int64(-1)
	const batch = 500
	for from := int64(0); from <= upTo; from += batch {
		args := []string{"MGET"}
		for i := from; i < min(from+batch, upTo+1); i++ {
			args = append(args, fmt.Sprintf("w%d:%07d", w, i))
		}
		r := mustDo(t, c, args...)
		for j, v := range strings.Split(r, "\n") {
			i := from + int64(j)
			switch {
			case v == "(nil)" && n < 0:
				n = i
			case v != "(nil)" && n >= 0:
				if holeAt < 0 {
					holeAt = i
				}
			}
		}
	}
	if holeAt >= 0 {
		t.Errorf("writer %d: keys 0..%d restored, %d missing, but key %d is there (a hole)", w, n-1, n, holeAt)
	}
	if n < 0 {
		t.Errorf("writer %d: key %d restored, which was never written", w, upTo)
		n = upTo + 1
	}
	return n
}
