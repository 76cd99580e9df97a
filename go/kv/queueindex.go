package kv

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// A queue's index as bytes: the hot operations (push, pop, ack, release,
// touch) read it into a pooled buffer, find their entries in place and
// write it back as edits of the old bytes, so an operation costs a few
// copies of the index and no allocation per entry.

// entryAt is the entry of rec at off, which ends at end.
type entryAt struct {
	off, end int
	jobEntry
}

// readEntry decodes the entry at off; false when rec is cut there.
func readEntry(rec []byte, off int) (entryAt, bool) {
	p := rec[off:]
	if len(p) < queueEntry {
		return entryAt{}, false
	}
	return entryAt{off: off, end: off + queueEntry, jobEntry: jobEntry{
		id:        binary.LittleEndian.Uint64(p),
		visibleAt: int64(binary.LittleEndian.Uint64(p[8:])),
		attempts:  binary.LittleEndian.Uint32(p[16:]),
		state:     p[20],
		fp:        binary.LittleEndian.Uint64(p[22:]),
	}}, true
}

func appendEntry(dst []byte, j *jobEntry) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, j.id)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(j.visibleAt))
	dst = binary.LittleEndian.AppendUint32(dst, j.attempts)
	dst = append(dst, j.state, 0)
	return binary.LittleEndian.AppendUint64(dst, j.fp)
}

func queueHeader(dst []byte, next uint64) []byte {
	dst = append(dst, queueMagic, queueVersion, 0, 0, 0, 0, 0, 0)
	return binary.LittleEndian.AppendUint64(dst, next)
}

// checkIndex validates rec's header and length (a whole number of entries).
func checkIndex(key string, rec []byte) error {
	if len(rec) < queueHead || rec[0] != queueMagic || rec[1] != queueVersion || (len(rec)-queueHead)%queueEntry != 0 {
		return errNotQueue(key)
	}
	return nil
}

func errNotQueue(key string) error { return fmt.Errorf("%w: %q is not a queue", ErrWrongType, key) }

// entries calls fn for each entry of rec in order until it returns false.
func entries(key string, rec []byte, fn func(e entryAt) bool) error {
	for off := queueHead; off < len(rec); {
		e, ok := readEntry(rec, off)
		if !ok {
			return errNotQueue(key)
		}
		if !fn(e) {
			return nil
		}
		off = e.end
	}
	return nil
}

// edit replaces rec[start:end] with entry (none when drop).
type edit struct {
	start, end int
	drop       bool
	entry      jobEntry
}

// applyEdits writes rec with edits (in order, not overlapping) into dst,
// and sets its next id to at least next.
func applyEdits(dst, rec []byte, edits []edit, next uint64) []byte {
	at := 0
	for i := range edits {
		ed := &edits[i]
		dst = append(dst, rec[at:ed.start]...)
		if !ed.drop {
			dst = appendEntry(dst, &ed.entry)
		}
		at = ed.end
	}
	dst = append(dst, rec[at:]...)
	if cur := binary.LittleEndian.Uint64(dst[8:]); next > cur {
		binary.LittleEndian.PutUint64(dst[8:], next)
	}
	return dst
}

var indexBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// indexBuf is a pooled buffer; give it back with putIndexBuf once nothing
// refers to it.
func indexBuf() *[]byte { return indexBufs.Get().(*[]byte) }

func putIndexBuf(b *[]byte) {
	if cap(*b) <= 1<<20 {
		indexBufs.Put(b)
	}
}

// readIndex reads key's index into *buf (grown to fit): nil and false when
// there is none.
func readIndex(e Engine, key string, buf *[]byte) ([]byte, bool, error) {
	for {
		b := (*buf)[:cap(*buf)]
		n, found, err := e.Get(key, b)
		if err != nil || !found {
			return nil, false, err
		}
		if n <= len(b) {
			rec := b[:n]
			return rec, true, checkIndex(key, rec)
		}
		*buf = make([]byte, 0, n+n/4)
	}
}
