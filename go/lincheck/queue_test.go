package lincheck

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

var queueWorkload = QueueWorkload{Clients: 6, Queues: []string{"q:a", "q:b", "q:c"}, Duration: 4 * time.Second}

// runQueueFaults runs the queue workload beside faults and checks it.
func runQueueFaults(t *testing.T, open Opener, faults []Fault) {
	t.Helper()
	rec := NewRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), queueWorkload.Duration)
	defer cancel()
	var wg sync.WaitGroup
	for _, f := range faults {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f.Inject(ctx, func(string, ...any) {}); err != nil {
				t.Error(err)
			}
		}()
	}
	if err := RunQueue(context.Background(), open, queueWorkload, rec); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	res, ops, unknown := CheckQueue(rec.History(), 30*time.Second)
	t.Logf("queue: %v, %d operations (%d maybe-happened)", res, ops, unknown)
	if res != porcupine.Ok {
		t.Errorf("the queue under faults: %v", res)
	}
	if unknown == 0 || ops < 500 {
		t.Errorf("the faults did not bite or the workload did not run: %d operations, %d unknown", ops, unknown)
	}
}

// TestServerQueueStoppedIsLinearizable: the ephpm-kv server SIGSTOPped for
// 300 ms every 800 ms.
func TestServerQueueStoppedIsLinearizable(t *testing.T) {
	faultTest(t)
	p, url := ephpmServer(t)
	runQueueFaults(t, openURL(t, url, 100*time.Millisecond), []Fault{Pause(p, 800*time.Millisecond, 300*time.Millisecond)})
}

// TestRedisQueueStoppedIsLinearizable: the same on a Redis.
func TestRedisQueueStoppedIsLinearizable(t *testing.T) {
	faultTest(t)
	bin, _ := redisBinaries(t)
	p, sock, _ := redisProc(t, bin, t.TempDir(), "redis")
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	runQueueFaults(t, openURL(t, "unix://"+sock, 100*time.Millisecond), []Fault{Pause(p, 800*time.Millisecond, 300*time.Millisecond)})
}

// blindSwap's compare-and-swap does not compare: two workers that read
// the same index both write it.
type blindSwap struct{ kv.Engine }

func (b blindSwap) SetIfEq(key string, v, _ []byte, ttl time.Duration) (bool, error) {
	return true, b.Set(key, v, ttl)
}

func checkQueueInProcess(t *testing.T, wrap func(kv.Engine) kv.Engine) porcupine.CheckResult {
	t.Helper()
	s := store.New(store.Config{})
	t.Cleanup(func() { s.Close() })
	rec := NewRecorder()
	w := queueWorkload
	w.Duration = 500 * time.Millisecond
	if err := RunQueue(context.Background(), func(int) (kv.Engine, error) { return wrap(s), nil }, w, rec); err != nil {
		t.Fatal(err)
	}
	res, ops, _ := CheckQueue(rec.History(), time.Minute)
	t.Logf("%v, %d operations", res, ops)
	if ops < 500 {
		t.Fatalf("only %d operations: the workload did not run", ops)
	}
	return res
}

func TestQueueInProcessIsLinearizable(t *testing.T) {
	if res := checkQueueInProcess(t, func(e kv.Engine) kv.Engine { return e }); res != porcupine.Ok {
		t.Errorf("the in-process store's queue: %v", res)
	}
}

func TestQueueCheckerCatchesBlindSwap(t *testing.T) {
	if res := checkQueueInProcess(t, func(e kv.Engine) kv.Engine { return blindSwap{e} }); res == porcupine.Ok {
		t.Errorf("a queue on a compare-and-swap that does not compare passed")
	}
}
