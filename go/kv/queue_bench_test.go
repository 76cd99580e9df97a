package kv_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/shm"
	"github.com/ephpm/ephpm-kv/store"
)

// A job's round trip (push, pop, ack) with depth jobs queued ahead of it:
// each operation rewrites the queue's index, so its cost grows with the
// depth. On the shared segment (compression at its default 1 KiB, and
// off) and the map.
func BenchmarkQueueJob(b *testing.B) {
	engines := map[string]func(b *testing.B) kv.Engine{
		"shm": func(b *testing.B) kv.Engine { return benchShm(b, shm.Config{}) },
		"shm-nocompress": func(b *testing.B) kv.Engine {
			return benchShm(b, shm.Config{CompressMin: -1})
		},
		"map": func(b *testing.B) kv.Engine {
			s := store.New(store.Config{})
			b.Cleanup(func() { s.Close() })
			return s
		},
	}
	for _, name := range []string{"shm", "shm-nocompress", "map"} {
		for _, depth := range []int{0, 100, 1000} {
			b.Run(fmt.Sprintf("%s/depth=%d", name, depth), func(b *testing.B) {
				e := engines[name](b)
				for i := range depth {
					if _, err := kv.QueuePush(e, "q", []byte(fmt.Sprint("ahead ", i)), time.Hour); err != nil {
						b.Fatal(err)
					}
				}
				payload := []byte("a job's payload of some forty bytes.....")
				token := []byte("0123456789abcdef0123456789abcdef")
				b.ReportAllocs()
				for b.Loop() {
					id, err := kv.QueuePush(e, "q", payload, 0)
					if err != nil {
						b.Fatal(err)
					}
					j, ok, err := kv.QueuePop(e, "q", token, time.Minute, 5, 0)
					if err != nil || !ok || j.ID != id {
						b.Fatal(j, ok, err)
					}
					if ok, err := kv.QueueAck(e, "q", j.ID, token); !ok || err != nil {
						b.Fatal(ok, err)
					}
				}
			})
		}
	}
}

func benchShm(b *testing.B, cfg shm.Config) kv.Engine {
	mem, err := shm.MapAnonymous(64 << 20)
	if err != nil {
		b.Fatal(err)
	}
	e, err := shm.Attach(mem, cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { shm.Unmap(mem) })
	return e
}
