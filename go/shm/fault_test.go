package shm

import (
	"errors"
	"fmt"
	"os"
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
