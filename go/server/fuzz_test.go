package server

import (
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/tidwall/redcon"

	"github.com/ephpm/ephpm-kv/store"
)

// fakeConn lets commands run without a socket.
type fakeConn struct {
	*redcon.Writer
	ctx any
}

func (c *fakeConn) RemoteAddr() string             { return "fuzz" }
func (c *fakeConn) Close() error                   { return nil }
func (c *fakeConn) Context() any                   { return c.ctx }
func (c *fakeConn) SetContext(v any)               { c.ctx = v }
func (c *fakeConn) SetReadBuffer(int)              {}
func (c *fakeConn) Detach() redcon.DetachedConn    { return nil }
func (c *fakeConn) ReadPipeline() []redcon.Command { return nil }
func (c *fakeConn) PeekPipeline() []redcon.Command { return nil }
func (c *fakeConn) NetConn() net.Conn              { return nil }
func (c *fakeConn) WriteBulkFrom(int64, io.Reader) {}

// FuzzServe feeds client bytes through everything that parses them: the
// limits guard, redcon's parser and the command handlers. None may panic,
// and the guard must not let a frame over the limits through.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		"*1\r\n$4\r\nPING\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"*6\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n$2\r\nPX\r\n$3\r\n100\r\n",
		"*3\r\n$7\r\nDELIFEQ\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"*4\r\n$5\r\nDELEX\r\n$1\r\nk\r\n$4\r\nIFNE\r\n$1\r\nv\r\n",
		"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n",
		"*4\r\n$17\r\nEPHPM.SETNXFENCED\r\n$1\r\nk\r\n$1\r\nt\r\n$4\r\n1000\r\n",
		"SET k \"quoted value\"\r\n",
		"*2147483647\r\n",
		"*1\r\n$-1\r\n",
	} {
		f.Add([]byte(seed))
	}
	s, err := New(Config{Unix: "unused", Store: store.Config{MemoryLimit: 1 << 20, MaxValueSize: 4096}, MaxArgs: 64, MaxBulk: 4096,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	defer s.store.Close()
	f.Fuzz(func(t *testing.T, raw []byte) {
		g := guard{limits: limits{maxArgs: 64, maxBulk: 4096, maxInline: 1024}}
		if g.scan(raw) != nil {
			return
		}
		cmd, err := redcon.Parse(raw)
		if err != nil || len(cmd.Args) == 0 {
			return
		}
		if len(cmd.Args) > 64 {
			t.Fatalf("guard let %d arguments through", len(cmd.Args))
		}
		for _, a := range cmd.Args {
			if len(a) > 4096 && raw[0] == '*' {
				t.Fatalf("guard let a %d-byte bulk through", len(a))
			}
		}
		c := &fakeConn{Writer: redcon.NewWriter(io.Discard), ctx: &client{authed: true}}
		s.serveRESP(c, cmd)
	})
}
