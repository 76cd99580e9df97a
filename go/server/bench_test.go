package server

import (
	"bytes"
	"io"
	"log/slog"
	"testing"
)

// benchPipeline runs b.N commands through a connection's reader, dispatch
// and writer, 16 to a pipeline as redis-benchmark -P 16 sends them.
func benchPipeline(b *testing.B, command string) {
	s, err := New(Config{Unix: "unused", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	defer s.store.Close()
	s.store.Set("key:000000000001", []byte("xxx"), 0)
	batch := bytes.Repeat([]byte(command), 16)
	src := &repeatReader{batch: batch}
	c := &conn{writer: writer{dst: io.Discard}, s: s, authed: true, rd: newReader(src)}
	lim := &s.limits
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; {
		args, err := c.rd.next(lim)
		if err != nil {
			b.Fatal(err)
		}
		if args == nil {
			c.Flush()
			if err := c.rd.fill(lim); err != nil {
				b.Fatal(err)
			}
			continue
		}
		s.dispatch(c, args)
		i++
	}
}

type repeatReader struct{ batch []byte }

func (r *repeatReader) Read(p []byte) (int, error) { return copy(p, r.batch), nil }

func BenchmarkPipelineSet(b *testing.B) {
	benchPipeline(b, "*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000001\r\n$3\r\nxxx\r\n")
}

func BenchmarkPipelineGet(b *testing.B) {
	benchPipeline(b, "*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000001\r\n")
}
