package main

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/shm"
)

// attachShm starts the shared engine on the size bytes at base, a segment
// the caller mapped MAP_SHARED. Whatever the engine refuses (another layout
// or size, a segment too small) is a configuration error: the segment or
// the ini settings must change, retrying will not help.
func attachShm(base unsafe.Pointer, size uint64, cfg shm.Config) (kv.Engine, error) {
	if base == nil || size == 0 {
		return nil, configError{fmt.Errorf("shared segment at %p of %d bytes: no segment", base, size)}
	}
	if size > math.MaxInt {
		return nil, configError{fmt.Errorf("shared segment of %d bytes: larger than this process can address", size)}
	}
	e, err := shm.Attach(unsafe.Slice((*byte)(base), int(size)), cfg)
	if err != nil {
		return nil, configError{fmt.Errorf("shared segment of %d bytes: %w", size, err)}
	}
	return e, nil
}
