package main

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/ephpm/ephpm-kv/shm"
)

func mapShared(t *testing.T, size int) []byte {
	t.Helper()
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return mem
}

// Whatever the engine refuses is EPHPM_KV_E_CONFIG, with the engine's reason.
func TestAttachShmRefusalsAreConfigErrors(t *testing.T) {
	_, err := attachShm(nil, 1<<20, shm.Config{})
	if !errors.Is(err, errConfig) {
		t.Errorf("nil base: %v, want a config error", err)
	}
	mem := mapShared(t, 1<<20)
	if _, err := attachShm(unsafe.Pointer(&mem[0]), 0, shm.Config{}); !errors.Is(err, errConfig) {
		t.Errorf("size 0: %v, want a config error", err)
	}
	// Not an ephpm-kv segment: non-zero bytes without the magic.
	for i := range mem {
		mem[i] = 0x5a
	}
	_, err = attachShm(unsafe.Pointer(&mem[0]), uint64(len(mem)), shm.Config{})
	if !errors.Is(err, errConfig) || !errors.Is(err, shm.ErrIncompatible) || codeOf(err) != codeOf(errConfig) {
		t.Errorf("foreign segment: %v, want a config error wrapping shm.ErrIncompatible", err)
	}
}

// A segment formatted for one size is refused at another, by a message
// that says both.
func TestAttachShmOtherSize(t *testing.T) {
	mem := mapShared(t, 4<<20)
	if _, err := attachShm(unsafe.Pointer(&mem[0]), uint64(len(mem)), shm.Config{}); err != nil {
		t.Fatal(err)
	}
	_, err := attachShm(unsafe.Pointer(&mem[0]), uint64(len(mem)/2), shm.Config{})
	if !errors.Is(err, errConfig) || !strings.Contains(err.Error(), "2097152") {
		t.Errorf("half the size: %v, want a config error naming the size", err)
	}
}
