package shm

import (
	"testing"
)

// newTestEngine attaches a fresh anonymous segment of size bytes and
// checks with Verify at the end of the test that it is consistent.
func newTestEngine(t testing.TB, size int, cfg Config) *Engine {
	t.Helper()
	mem, err := MapAnonymous(size)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Attach(mem, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Verify(); err != nil {
			t.Errorf("at the end of the test: %v", err)
		}
		Unmap(mem)
	})
	return e
}

func mustVerify(t testing.TB, e *Engine) {
	t.Helper()
	if err := e.Verify(); err != nil {
		t.Fatal(err)
	}
}
