package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// writeFenceMark writes a fence mark file (version 2, not clean) holding
// mark, as the server writes it (go/server/fencefile.go).
func writeFenceMark(t *testing.T, path string, mark int64) {
	t.Helper()
	b := binary.LittleEndian.AppendUint32([]byte("EPHPMKVF"), 2)
	b = binary.LittleEndian.AppendUint64(b, uint64(mark))
	b = binary.LittleEndian.AppendUint64(b, 0)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// leaseAcquire returns the fence of a granted lease, 0 when refused.
func leaseAcquire(c *client, key, token, mode string) (int64, error) {
	r, err := c.do("EPHPM.LEASEACQUIRE", key, token, mode, "3", "60000", "0")
	if err != nil {
		return 0, err
	}
	f, perr := strconv.ParseInt(r, 10, 64)
	if perr != nil || f < 0 {
		return 0, fmt.Errorf("EPHPM.LEASEACQUIRE %s: reply %q", key, r)
	}
	return f, nil
}

// Lease fences come from the counter whose durable mark a kill -9 leaves
// behind: after one, under lease load with periodic snapshots, a restarted
// server issues lease fences above every one issued before. The mark file
// starts fences far above the clock, so the clock a fresh counter starts
// from cannot hide a lease fence issued past the mark. A holder the last
// periodic snapshot kept is still a holder, with its fence, which the
// fence floor now refuses.
func TestLeaseFencesAfterKill9(t *testing.T) {
	t.Setenv("EPHPM_KV_FENCE_BLOCK", "64")
	dir := t.TempDir()
	sock, snap := filepath.Join(dir, "kv.sock"), filepath.Join(dir, "kv.snap")
	mark := time.Now().UnixNano() + 1e15
	writeFenceMark(t, snap+".fence", mark)
	log := &fenceLog{t: t}
	s := start(t, sock, "--snapshot", snap, "--snapshot-every", "20ms")
	c := mustDial(t, sock)
	held, err := leaseAcquire(c, "held", "keeper", "PERMIT")
	if err != nil || held <= mark {
		t.Fatalf("first lease fence %d (%v), the mark file said %d", held, err, mark)
	}
	log.saw(held, "the kept holder")
	time.Sleep(60 * time.Millisecond) // in a periodic snapshot

	modes := []string{"SHARED", "EXCLUSIVE", "PERMIT"}
	var wg sync.WaitGroup
	var granted atomic.Int64
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dial(sock)
			if err != nil {
				return
			}
			defer c.c.Close()
			token := fmt.Sprint("c", g)
			for i := 0; ; i++ {
				key := fmt.Sprint("rw", i%3)
				f, err := leaseAcquire(c, key, token, modes[(g+i)%3])
				if err != nil {
					return // killed
				}
				if f == 0 {
					continue
				}
				granted.Add(1)
				log.saw(f, fmt.Sprintf("client %d", g))
				if _, err := c.do("EPHPM.LEASERELEASE", key, token); err != nil {
					return
				}
			}
		}()
	}
	time.Sleep(time.Duration(200+rand.IntN(300)) * time.Millisecond)
	s.stop(syscall.SIGKILL)
	wg.Wait()
	if granted.Load() < 200 {
		t.Fatalf("only %d leases granted before the kill", granted.Load())
	}
	t.Logf("%d leases granted before the kill, highest fence %d", granted.Load(), log.highest)
	log.restarted()

	s = start(t, sock, "--snapshot", snap)
	c = mustDial(t, sock)
	for i := range 3 {
		f, err := leaseAcquire(c, fmt.Sprint("new", i), "t", modes[i])
		if err != nil || f == 0 {
			t.Fatalf("a lease after the kill: %d, %v\n%s", f, err, s.out)
		}
		log.saw(f, fmt.Sprintf("after kill -9, lease %d", i))
	}
	if f, err := leaseAcquire(c, "held", "keeper", "PERMIT"); err != nil || f != held {
		t.Fatalf("the kept holder's renewal: fence %d (%v), want its fence %d", f, err, held)
	}
	if r := mustDo(t, c, "EPHPM.FENCE", "res", strconv.FormatInt(held, 10)); r != "0" {
		t.Fatalf("a fence issued before the kill passed the check: %s", r)
	}
	s.stop(syscall.SIGTERM)
}
