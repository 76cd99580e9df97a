package shm

import (
	"fmt"
	"os"
	"syscall"
)

// MapFile maps the file at path MAP_SHARED, creating it (mode 0600) and
// growing it to size when it is smaller: a segment several OS processes
// can attach (tests, tools). Unmap releases it.
func MapFile(path string, size int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < int64(size) {
		if err := f.Truncate(int64(size)); err != nil {
			return nil, err
		}
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", path, err)
	}
	return mem, nil
}

// MapAnonymous maps size bytes of zeroed shared memory (inherited by
// children a process forks; for single-process tests in Go).
func MapAnonymous(size int) ([]byte, error) {
	return syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_ANON)
}

// Unmap releases a mapping from MapFile or MapAnonymous. No Engine on it
// may be used afterwards.
func Unmap(mem []byte) error { return syscall.Munmap(mem) }
