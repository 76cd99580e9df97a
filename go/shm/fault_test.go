package shm

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// A segment file truncated under the process: the next operation that
// touches a lost page fails with ErrShrunk (the caller's recover hands the
// fault to Fault), the process lives, and every later operation fails the
// same way without touching the segment.
func TestShrunkSegmentIsAnErrorNotACrash(t *testing.T) {
	path := testSegPath(t)
	e, err := Attach(mapTestFile(t, path, 1<<20), Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := e.Set(fmt.Sprint("k", i), []byte("v"), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Truncate(path, 8<<10); err != nil { // the header and stripes stay, the index and arena go
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	call := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				if err = e.Fault(r); err == nil {
					panic(r)
				}
			}
		}()
		for i := range 200 {
			if _, _, err := e.Get(fmt.Sprint("k", i), buf); err != nil {
				return err
			}
		}
		return nil
	}
	if err := call(); !errors.Is(err, ErrShrunk) {
		t.Fatalf("reading a truncated segment: %v", err)
	}
	// The stripe the fault came under is left as a dead owner's: the next
	// process to want it repairs it at once (the stripes are in the 8 KB
	// kept), rather than waiting out the lock timeout on a live pid.
	for si := range e.stripes {
		if w := e.stripe(si).mu.word; w != 0 && ownerAlive(w) {
			t.Fatalf("stripe %d still held by a live owner (%#x) after the fault", si, w)
		}
	}
	if _, _, err := e.Get("k1", buf); !errors.Is(err, ErrShrunk) {
		t.Fatalf("after the fault: %v", err)
	}
	if _, err := e.SetNX("lock", []byte("t"), 0); !errors.Is(err, ErrShrunk) {
		t.Fatalf("setnx after the fault: %v", err)
	}
	if err := e.Verify(); !errors.Is(err, ErrShrunk) {
		t.Fatalf("Verify after the fault: %v", err)
	}
}

// guardedEngine attaches a 1 MiB segment followed by a page nobody may
// touch: a read past the segment faults instead of reading a neighbour.
func guardedEngine(t *testing.T) *Engine {
	const size = 1 << 20
	m, err := syscall.Mmap(-1, 0, size+4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mprotect(m[size:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	e, err := Attach(m[:size:size], Config{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// noFault runs f with faults turned into panics, and fails on one.
func noFault(t *testing.T, what string, f func()) {
	t.Helper()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s read past the segment: %v", what, r)
		}
	}()
	f()
}

// A record whose lengths run past its block and the segment (a corrupt
// segment) is not read past the segment's end by the operations that meet
// it; Verify reports it.
func TestRecordPastSegmentDoesNotFault(t *testing.T) {
	for _, name := range []string{"get", "incr", "key-at-the-end"} {
		t.Run(name, func(t *testing.T) {
			e := guardedEngine(t)
			e.Set("victim", []byte("12345"), 0)
			b, h := e.locate("victim")
			_, off := e.find(b, h, "victim", kindUser)
			key := "victim"
			switch name {
			case "get", "incr":
				r := e.rec(off)
				r.storedLen, r.plainLen = 1<<20, 1<<20
			case "key-at-the-end":
				// A forged record 48 bytes before the end, heading the
				// bucket of a 64-byte key whose hash it carries: its key
				// runs past the segment.
				key = strings.Repeat("k", 64)
				b, h = e.locate(key)
				end := e.arenaEnd - 48
				r := e.rec(end)
				r.hash, r.kind, r.keyLen = h, kindUser, uint32(len(key))
				atomic.StoreUint64(e.bucket(b), end)
			}
			noFault(t, name, func() {
				switch name {
				case "get", "key-at-the-end":
					e.Get(key, make([]byte, 2<<20))
				case "incr":
					e.Incr(key, 1, 0)
				}
			})
			if err := e.Verify(); err == nil {
				t.Fatal("Verify found nothing")
			}
		})
	}
}
