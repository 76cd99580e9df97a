package store

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// An export is the store at one instant: every key acknowledged before it
// started is in it, and for each writer what it holds is a prefix of what
// the writer wrote (no holes), even while the map grows under the writes.
// Each writer also overwrites a "last" key after each new key, so a cut
// that is not consistent for overwritten keys shows too.
func TestExportIsPointInTime(t *testing.T) {
	s := newTestStore(t, Config{MemoryLimit: 1 << 30})
	const writers = 4
	var acked [writers]atomic.Int64 // keys 0..acked-1 are acknowledged
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				noErr(t, s.Set(fmt.Sprintf("w%d:%d", w, i), []byte("v"), 0))
				noErr(t, s.Set(fmt.Sprintf("w%d:last", w), []byte(strconv.Itoa(i)), 0))
				acked[w].Store(int64(i + 1))
			}
		}()
	}
	deadline := time.Now().Add(time.Second)
	exports := 0
	for time.Now().Before(deadline) || exports < 5 {
		var before [writers]int64
		for w := range before {
			before[w] = acked[w].Load()
		}
		got := make([]map[int]bool, writers)
		last := make([]int, writers)
		for w := range got {
			got[w], last[w] = map[int]bool{}, -1
		}
		noErr(t, s.Export(func(key string, value []byte, _ time.Duration) error {
			w, _ := strconv.Atoi(key[1:strings.IndexByte(key, ':')])
			rest := key[strings.IndexByte(key, ':')+1:]
			if rest == "last" {
				last[w], _ = strconv.Atoi(string(value))
				return nil
			}
			i, _ := strconv.Atoi(rest)
			got[w][i] = true
			return nil
		}))
		exports++
		for w := range got {
			n := len(got[w])
			for i := range n {
				if !got[w][i] {
					t.Fatalf("export %d, writer %d: %d keys but key %d missing (a hole)", exports, w, n, i)
				}
			}
			if int64(n) < before[w] {
				t.Fatalf("export %d, writer %d: %d keys, but %d were acknowledged before it began", exports, w, n, before[w])
			}
			// At any instant "last" is the newest key or the one before.
			if n > 0 && last[w] != n-1 && last[w] != n-2 {
				t.Fatalf("export %d, writer %d: keys 0..%d but last=%d", exports, w, n-1, last[w])
			}
		}
	}
	close(stop)
	wg.Wait()
	// Kept versions are dropped and marks cleared once the export ends.
	noErr(t, s.Export(func(string, []byte, time.Duration) error { return nil }))
	if s.snap.kept.Load() != nil {
		t.Fatal("old versions still kept after the export")
	}
	s.m.Range(func(k string, it *item) bool {
		if it.export.Load() != 0 {
			t.Fatalf("%s still marked after the export", k)
		}
		return true
	})
}
