package server

import (
	"io"
	"net"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

// The reply writer. Replies collect in one buffer that is written out when
// the client's input is drained or the buffer passes flushAt, so a pipeline
// costs one write and no reply, however many elements it has, holds more
// than about flushAt bytes here. A large value is written straight from the
// store's immutable copy (writev), never copied into the buffer. While a
// write is under way, stalledSince says since when (for a large value:
// since its last 64 KiB chunk began): the watchdog closes a client whose
// write has made no progress for too long.

const (
	flushAt        = 64 << 10
	writeBufKeep   = 16 << 10 // a larger buffer is dropped after a flush
	writeDirectMin = 16 << 10 // values at least this large skip the buffer
	writeChunk     = 64 << 10 // the write timeout counts from the last chunk written
)

type writer struct {
	dst          io.Writer
	buf          []byte
	err          error        // the first write error; later writes are dropped
	stalledSince atomic.Int64 // UnixNano when the pending write began, 0 when none
}

// Flush writes out what is buffered.
func (w *writer) Flush() {
	if len(w.buf) == 0 || w.err != nil {
		w.buf = w.buf[:0]
		return
	}
	w.stalledSince.Store(time.Now().UnixNano())
	_, w.err = w.dst.Write(w.buf)
	w.stalledSince.Store(0)
	w.reset()
}

func (w *writer) reset() {
	if cap(w.buf) > writeBufKeep {
		w.buf = nil
	}
	w.buf = w.buf[:0]
}

func (w *writer) maybeFlush() {
	if len(w.buf) >= flushAt {
		w.Flush()
	}
}

// WriteString writes a simple string: +s.
func (w *writer) WriteString(s string) {
	w.buf = append(w.buf, '+')
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\r', '\n')
}

// WriteError writes an error reply: -msg. Errors may quote what a client
// sent, so CR and LF become spaces, as in Redis: a line break would end
// the error early and the rest would be read as the next reply.
func (w *writer) WriteError(msg string) {
	w.buf = append(w.buf, '-')
	start := len(w.buf)
	w.buf = append(w.buf, msg...)
	for i := start; i < len(w.buf); i++ {
		if w.buf[i] == '\r' || w.buf[i] == '\n' {
			w.buf[i] = ' '
		}
	}
	w.buf = append(w.buf, '\r', '\n')
}

// WriteInt64 writes an integer reply: :n.
func (w *writer) WriteInt64(n int64) {
	w.buf = append(w.buf, ':')
	w.buf = strconv.AppendInt(w.buf, n, 10)
	w.buf = append(w.buf, '\r', '\n')
}

// WriteInt writes an integer reply: :n.
func (w *writer) WriteInt(n int) { w.WriteInt64(int64(n)) }

// WriteNull writes the null bulk: $-1.
func (w *writer) WriteNull() {
	w.buf = append(w.buf, "$-1\r\n"...)
	w.maybeFlush() // an MGET of many missing keys is as long a reply as any
}

// WriteArray writes an array header; n elements must follow.
func (w *writer) WriteArray(n int) {
	w.buf = append(w.buf, '*')
	w.buf = strconv.AppendInt(w.buf, int64(n), 10)
	w.buf = append(w.buf, '\r', '\n')
}

func (w *writer) bulkHeader(n int) {
	w.buf = append(w.buf, '$')
	w.buf = strconv.AppendInt(w.buf, int64(n), 10)
	w.buf = append(w.buf, '\r', '\n')
}

// WriteBulk writes a bulk string. b is not kept after the call returns.
func (w *writer) WriteBulk(b []byte) {
	w.bulkHeader(len(b))
	if len(b) >= writeDirectMin {
		w.writeDirect(b)
	} else {
		w.buf = append(w.buf, b...)
	}
	w.buf = append(w.buf, '\r', '\n')
	w.maybeFlush()
}

// WriteBulkString writes a bulk string.
func (w *writer) WriteBulkString(s string) {
	w.bulkHeader(len(s))
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\r', '\n')
	w.maybeFlush()
}

// writeDirect writes the buffer and then b, in one writev on a socket.
func (w *writer) writeDirect(b []byte) {
	if w.err != nil {
		w.buf = w.buf[:0]
		return
	}
	// The value goes out in chunks, each restarting the stall clock, so
	// a client that reads slowly but steadily is not taken for one that
	// does not read at all.
	first := min(len(b), writeChunk)
	w.stalledSince.Store(time.Now().UnixNano())
	if v, ok := w.dst.(interface{ writeBuffers([][]byte) (int, error) }); ok {
		_, w.err = v.writeBuffers([][]byte{w.buf, b[:first]})
	} else {
		bufs := net.Buffers{w.buf, b[:first]}
		_, w.err = bufs.WriteTo(w.dst)
	}
	for b = b[first:]; len(b) > 0 && w.err == nil; {
		n := min(len(b), writeChunk)
		w.stalledSince.Store(time.Now().UnixNano())
		_, w.err = w.dst.Write(b[:n])
		b = b[n:]
	}
	w.stalledSince.Store(0)
	w.reset()
	// A reply of many big values (MGET) yields between them, so it does
	// not hold the server's thread from other clients for long.
	runtime.Gosched()
}
