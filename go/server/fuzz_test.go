package server

import (
	"bytes"
	"io"
	"log/slog"
	"testing"
	"testing/iotest"

	"github.com/ephpm/ephpm-kv/store"
)

// FuzzServe feeds client bytes through everything that parses them: the
// RESP reader with its limits, before and after AUTH, and the command
// handlers. None may panic, and no command over the limits may get through.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		"*1\r\n$4\r\nPING\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"*6\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n$2\r\nNX\r\n$2\r\nPX\r\n$3\r\n100\r\n",
		"*3\r\n$7\r\nDELIFEQ\r\n$1\r\nk\r\n$1\r\nv\r\n",
		"*4\r\n$5\r\nDELEX\r\n$1\r\nk\r\n$4\r\nIFNE\r\n$1\r\nv\r\n",
		"*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n",
		"*4\r\n$17\r\nEPHPM.SETNXFENCED\r\n$1\r\nk\r\n$1\r\nt\r\n$4\r\n1000\r\n",
		"*7\r\n$18\r\nEPHPM.LEASEACQUIRE\r\n$1\r\nk\r\n$1\r\nt\r\n$6\r\nSHARED\r\n$1\r\n0\r\n$4\r\n1000\r\n$1\r\n0\r\n",
		"*7\r\n$18\r\nEPHPM.LEASEACQUIRE\r\n$1\r\nk\r\n$1\r\nw\r\n$9\r\nEXCLUSIVE\r\n$1\r\n0\r\n$4\r\n1000\r\n$3\r\n500\r\n",
		"*7\r\n$18\r\nEPHPM.LEASEACQUIRE\r\n$1\r\nk\r\n$1\r\np\r\n$6\r\nPERMIT\r\n$1\r\n3\r\n$4\r\n1000\r\n$1\r\n0\r\n",
		"*4\r\n$16\r\nEPHPM.LEASERENEW\r\n$1\r\nk\r\n$1\r\nt\r\n$4\r\n1000\r\n",
		"*3\r\n$18\r\nEPHPM.LEASERELEASE\r\n$1\r\nk\r\n$1\r\nt\r\n",
		"*2\r\n$16\r\nEPHPM.LEASECOUNT\r\n$1\r\nk\r\n",
		"*3\r\n$14\r\nEPHPM.LEASETTL\r\n$1\r\nk\r\n$1\r\nt\r\n",
		"*4\r\n$15\r\nEPHPM.RATELIMIT\r\n$1\r\nr\r\n$1\r\n5\r\n$4\r\n1000\r\n",
		"SET k \"quoted value\"\r\n",
		"SET 'k\\'' \"\\x41\\n\" EX 9223372036\r\nMGET k k k\r\n",
		"*2147483647\r\n",
		"*1\r\n$-1\r\n",
		"*0\r\n*-1\r\n\r\nPING\n",
		"AUTH x\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$20000\r\n",
		"SET k v\r\nSCAN 0 MATCH k* COUNT 5 TYPE string\r\nEPHPM.SCAN 0 10 MATCH *\r\nTYPE k\r\n",
		"CLIENT SETNAME n\r\nCLIENT LIST\r\nCLIENT INFO\r\nCLIENT GETNAME\r\nCLIENT ID\r\n",
	} {
		f.Add([]byte(seed))
	}
	s, err := New(Config{Unix: "unused", Store: store.Config{MemoryLimit: 1 << 20, MaxValueSize: 4096}, MaxArgs: 64, MaxBulk: 4096,
		MaxCommandSize: 16 << 10, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	defer s.store.Close()
	s.limits.maxInline = 1024 // below maxBulk, so one bound holds for every argument
	s.preAuth = preAuthLimits(s.limits)
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, authed := range []bool{true, false} {
			// one byte a time (every resumption of a half-parsed command),
			// then as much as the buffer takes (the fast path)
			var src io.Reader = bytes.NewReader(raw)
			if authed {
				src = iotest.OneByteReader(src)
			}
			c := &conn{writer: writer{dst: io.Discard}, s: s, authed: authed, rd: newReader(src)}
			for {
				lim := *c.limits()
				args, err := c.rd.next(&lim)
				if err != nil {
					break
				}
				if args == nil {
					if c.rd.fill(&lim) != nil {
						break
					}
					continue
				}
				if len(args) > lim.maxArgs {
					t.Fatalf("%d arguments got through, the limit is %d", len(args), lim.maxArgs)
				}
				total := 0
				for _, a := range args {
					total += len(a)
					if int64(len(a)) > lim.maxBulk {
						t.Fatalf("a %d-byte argument got through, the limit is %d", len(a), lim.maxBulk)
					}
				}
				if int64(total) > lim.maxCommand {
					t.Fatalf("a %d-byte command got through", total)
				}
				s.dispatch(c, args)
			}
		}
	})
}
