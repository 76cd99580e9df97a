package shm

import (
	"bytes"
	"fmt"
	"math"
	"sync"

	"github.com/klauspost/compress/s2"

	"github.com/ephpm/ephpm-kv/kv"
)

// prepared is a value ready to be written: compressed (into a pooled
// buffer) when that saves at least 20%, before any lock is taken.
type prepared struct {
	stored     []byte
	plainLen   int
	compressed bool
	buf        *[]byte
	old        []byte // SetIfEq's expected value
}

var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxRecordValue is the longest value a record can hold: its lengths are
// 32-bit words (a longer one would be stored with its length wrapped).
const maxRecordValue = math.MaxUint32 - recHeader - kv.MaxKeySize

func (e *Engine) prepare(value []byte) (prepared, error) {
	if int64(len(value)) > e.maxValue || len(value) > maxRecordValue {
		return prepared{}, e.tooLarge(len(value))
	}
	if e.compressMin > 0 && int64(len(value)) >= e.compressMin {
		return e.compress(value), nil
	}
	return prepared{stored: value, plainLen: len(value)}, nil
}

func (e *Engine) tooLarge(n int) error {
	return fmt.Errorf("%w: %d bytes, max_value_size is %d", kv.ErrValueTooLarge, n, min(e.maxValue, maxRecordValue))
}

func (e *Engine) compress(value []byte) prepared {
	p := prepared{stored: value, plainLen: len(value)}
	p.buf = encodeBufs.Get().(*[]byte)
	if need := s2.MaxEncodedLen(len(value)); cap(*p.buf) < need {
		*p.buf = make([]byte, need)
	}
	if enc := s2.Encode((*p.buf)[:cap(*p.buf)], value); len(enc) <= len(value)-len(value)/5 {
		p.stored, p.compressed = enc, true
	}
	return p
}

func (p *prepared) release() {
	if p.buf != nil {
		encodeBufs.Put(p.buf)
		p.buf = nil
	}
}

// equal compares token with the value as the user stored it, decompressing
// when needed: turning compression on must not make every release fail.
func (e *Engine) equal(off uint64, r *record, token []byte) bool {
	if int(r.plainLen) != len(token) {
		return false
	}
	v := e.recValue(off, r)
	if r.flags&flagCompressed == 0 {
		return bytes.Equal(v, token)
	}
	buf := encodeBufs.Get().(*[]byte)
	defer encodeBufs.Put(buf)
	if cap(*buf) < len(token) {
		*buf = make([]byte, len(token))
	}
	plain, err := s2.Decode((*buf)[:cap(*buf)], v)
	return err == nil && bytes.Equal(plain, token)
}

// copyValue writes the user-visible value into dst (plainLen bytes).
func (e *Engine) copyValue(off uint64, r *record, dst []byte) error {
	v := e.recValue(off, r)
	if r.flags&flagCompressed == 0 {
		copy(dst, v)
		return nil
	}
	if n, err := s2.DecodedLen(v); err != nil || n != len(dst) {
		return fmt.Errorf("decoded length %d, want %d (%v)", n, len(dst), err)
	}
	_, err := s2.Decode(dst, v)
	return err
}
