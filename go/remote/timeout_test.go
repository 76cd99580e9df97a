package remote

import (
	"io"
	"math"
	"net"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/server"
)

func TestSockTimeoutRoundsUpAndNeverWraps(t *testing.T) {
	cases := []struct {
		in   time.Duration
		want syscall.Timeval
	}{
		{1, syscall.Timeval{Sec: 0, Usec: 1}}, // never {0, 0}: that blocks forever
		{time.Microsecond, syscall.Timeval{Sec: 0, Usec: 1}},
		{time.Second - 1, syscall.Timeval{Sec: 1, Usec: 0}},
		{1500 * time.Millisecond, syscall.Timeval{Sec: 1, Usec: 500000}},
		{math.MaxInt64, syscall.Timeval{Sec: 9223372036, Usec: 854776}},
	}
	for _, c := range cases {
		if got := sockTimeout(c.in); got != c.want {
			t.Errorf("sockTimeout(%d) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// ephpm.server_timeout past ~292 years saturates at MaxInt64 ns: that must
// wait for a slow answer, not time out every call at once.
func TestHugeTimeoutWaits(t *testing.T) {
	backend := strings.TrimPrefix(startServer(t, server.Config{}), "unix://")
	path := filepath.Join(t.TempDir(), "slow.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // a proxy that answers 50 ms late
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b, err := net.Dial("unix", backend)
		if err != nil {
			return
		}
		defer b.Close()
		go io.Copy(b, c)
		buf := make([]byte, 4096)
		for {
			n, err := b.Read(buf)
			if err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
			c.Write(buf[:n])
		}
	}()
	e := newEngine(t, "unix://"+path, "", math.MaxInt64)
	if ok, err := e.SetNX("k", []byte("v"), time.Minute); !ok || err != nil {
		t.Fatalf("setnx with a MaxInt64 timeout = %v, %v", ok, err)
	}
}
