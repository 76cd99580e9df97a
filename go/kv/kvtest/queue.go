package kvtest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// queueHarness runs the queue ops on one key, failing on errors.
type queueHarness struct {
	h   *harness
	key string
	max int64
	seq int
}

func (q *queueHarness) push(payload string, delay time.Duration) uint64 {
	q.h.t.Helper()
	id, err := kv.QueuePush(q.h.e, q.key, []byte(payload), delay)
	q.h.noErr("QueuePush", err)
	return id
}

// pop returns the job and its delivery's token.
func (q *queueHarness) pop(visibility, wait time.Duration) (kv.QueueJob, []byte, bool) {
	q.h.t.Helper()
	q.seq++
	token := []byte(fmt.Sprintf("tok-%d", q.seq))
	j, ok, err := kv.QueuePop(q.h.e, q.key, token, visibility, q.max, wait)
	q.h.noErr("QueuePop", err)
	return j, token, ok
}

func (q *queueHarness) size() int64 {
	q.h.t.Helper()
	n, err := kv.QueueSize(q.h.e, q.key, q.max)
	q.h.noErr("QueueSize", err)
	return n
}

// kv.Queue*: FIFO among visible jobs, invisibility while delivered,
// redelivery once it runs out (the old delivery can no longer ack), release,
// touch, delayed jobs, the dead list and retry.
func checkQueue(h *harness) {
	t := h.t
	q := &queueHarness{h: h, key: "q:jobs", max: 2}
	if _, _, ok := q.pop(time.Minute, 0); ok {
		t.Errorf("pop of an empty queue delivered")
	}
	a, b, c := q.push("a", 0), q.push("b", 0), q.push("c\x00binary", 0)
	if a == b || b == c || q.size() != 3 {
		t.Errorf("ids %d %d %d, size %d", a, b, c, q.size())
	}
	const bVisible = 100 * time.Millisecond
	ja, ta, _ := q.pop(time.Minute, 0)
	bAt := time.Now()
	jb, tb, _ := q.pop(bVisible, 0)
	jc, tc, _ := q.pop(time.Minute, 0)
	if string(ja.Payload) != "a" || string(jb.Payload) != "b" || string(jc.Payload) != "c\x00binary" || ja.ID != a || ja.Attempts != 1 {
		t.Fatalf("FIFO: %+v %+v %+v", ja, jb, jc)
	}
	// None while every job is delivered: unless b's visibility ran out
	// already (an engine whose every call is a round of consensus, busy),
	// and then b is what comes, its redelivery.
	early, earlyTok, ok := q.pop(time.Minute, 0)
	if ok && (early.ID != b || time.Since(bAt) < bVisible) {
		t.Errorf("pop while every job is delivered: %+v came", early)
	}
	if ok, err := kv.QueueAck(h.e, q.key, a, ta); !ok || err != nil {
		t.Errorf("ack: %v, %v", ok, err)
	}
	if ok, _ := kv.QueueAck(h.e, q.key, a, ta); ok {
		t.Errorf("a second ack of the same delivery: true")
	}
	if ok, _ := kv.QueueAck(h.e, q.key, c, tb); ok {
		t.Errorf("ack with another delivery's token: true")
	}
	if h.exists(kv.QueueJobKey(q.key, a)) {
		t.Errorf("an acknowledged job's payload is still stored")
	}
	if ok, err := kv.QueueTouch(h.e, q.key, c, tc, time.Minute); !ok || err != nil {
		t.Errorf("touch: %v, %v", ok, err)
	}
	// b's visibility runs out: it comes back, its old delivery is stale.
	jb2, tb2 := early, earlyTok
	if !ok {
		jb2, tb2, ok = q.pop(time.Minute, 5*time.Second)
	}
	if !ok || jb2.ID != b || jb2.Attempts != 2 {
		t.Fatalf("redelivery after the visibility ran out: %v %+v", ok, jb2)
	}
	for name, op := range map[string]func() (bool, error){
		"ack":     func() (bool, error) { return kv.QueueAck(h.e, q.key, b, tb) },
		"release": func() (bool, error) { return kv.QueueRelease(h.e, q.key, b, tb, 0) },
		"touch":   func() (bool, error) { return kv.QueueTouch(h.e, q.key, b, tb, time.Minute) },
	} {
		if ok, err := op(); ok || err != nil {
			t.Errorf("%s by the delivery whose visibility ran out: %v, %v", name, ok, err)
		}
	}
	// Released with 2 attempts of 2: the next pop sends it to the dead list.
	if ok, err := kv.QueueRelease(h.e, q.key, b, tb2, 0); !ok || err != nil {
		t.Errorf("release: %v, %v", ok, err)
	}
	if _, _, ok := q.pop(time.Minute, 0); ok {
		t.Errorf("a job past its attempts was delivered")
	}
	dead, err := kv.QueueDead(h.e, q.key, q.max, 10)
	h.noErr("QueueDead", err)
	if len(dead) != 1 || dead[0].ID != b || string(dead[0].Payload) != "b" || dead[0].Attempts != 2 || q.size() != 1 {
		t.Errorf("dead list %+v, size %d", dead, q.size())
	}
	if n, err := kv.QueueRetry(h.e, q.key, q.max, 0); n != 1 || err != nil {
		t.Errorf("retry: %d, %v", n, err)
	}
	if j, _, ok := q.pop(time.Minute, 0); !ok || j.ID != b || j.Attempts != 1 {
		t.Errorf("pop after retry: %v %+v", ok, j)
	}
	// Delayed: invisible until its delay passes; a waiting pop gets it then.
	const delay = 300 * time.Millisecond
	pushed := time.Now() // before the push: its delay runs from a moment after this
	d := q.push("later", delay)
	if j, _, ok := q.pop(time.Minute, 0); ok && (j.ID != d || time.Since(pushed) < delay) {
		t.Errorf("a delayed job was delivered before its delay: %+v", j)
	} else if !ok {
		if j, _, ok := q.pop(time.Minute, 5*time.Second); !ok || j.ID != d || time.Since(pushed) < delay {
			t.Errorf("waiting pop of a delayed job: %v %+v after %v", ok, j, time.Since(pushed))
		}
	}
	// A waiting pop wakes for a push.
	done := make(chan kv.QueueJob)
	go func() {
		j, _, _ := kv.QueuePop(h.peer(), "q:wake", []byte("w"), time.Minute, 5, 5*time.Second)
		done <- j
	}()
	time.Sleep(50 * time.Millisecond)
	if _, err := kv.QueuePush(h.e, "q:wake", []byte("hello"), 0); err != nil {
		t.Fatal(err)
	}
	select {
	case j := <-done:
		if string(j.Payload) != "hello" {
			t.Errorf("waiting pop got %+v", j)
		}
	case <-time.After(6 * time.Second):
		t.Errorf("a waiting pop never woke for a push")
	}

	h.set("q:plain", "x", 0)
	if _, err := kv.QueuePush(h.e, "q:plain", []byte("x"), 0); !errors.Is(err, kv.ErrWrongType) {
		t.Errorf("push onto a plain value: %v", err)
	}
	tooBig := []byte(strings.Repeat("p", int(h.cfg.MaxValueSize)+1))
	if _, err := kv.QueuePush(h.e, q.key, tooBig, 0); !errors.Is(err, kv.ErrValueTooLarge) {
		t.Errorf("push of a payload over the value limit: %v", err)
	}
	for name, err := range map[string]error{
		"empty name":      errors.Join(ignore(kv.QueuePush(h.e, "", []byte("x"), 0))),
		"negative delay":  errors.Join(ignore(kv.QueuePush(h.e, q.key, []byte("x"), -time.Second))),
		"zero visibility": errors.Join(ignore3(kv.QueuePop(h.e, q.key, []byte("t"), 0, 5, 0))),
		"no attempts":     errors.Join(ignore3(kv.QueuePop(h.e, q.key, []byte("t"), time.Second, 0, 0))),
		"empty token":     errors.Join(ignore3(kv.QueuePop(h.e, q.key, nil, time.Second, 5, 0))),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func ignore[T any](_ T, err error) error { return err }

func ignore3[A, B any](_ A, _ B, err error) error { return err }

// Workers popping one queue at once: each job is delivered once while its
// visibility lasts, and every job is acknowledged once.
func checkQueueConcurrent(h *harness) {
	t := h.t
	const jobs, workers = 60, 4
	for i := range jobs {
		if _, err := kv.QueuePush(h.e, "q:c", []byte(fmt.Sprint(i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		seen = map[uint64]int{}
	)
	for w := range workers {
		e := h.peer()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ; n++ {
				token := []byte(fmt.Sprintf("w%d-%d", w, n))
				j, ok, err := kv.QueuePop(e, "q:c", token, time.Minute, 5, 0)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				mu.Lock()
				seen[j.ID]++
				mu.Unlock()
				if ok, err := kv.QueueAck(e, "q:c", j.ID, token); !ok || err != nil {
					t.Errorf("ack of job %d: %v, %v", j.ID, ok, err)
				}
			}
		}()
	}
	wg.Wait()
	if len(seen) != jobs {
		t.Errorf("%d jobs delivered, want %d", len(seen), jobs)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("job %d delivered %d times inside its visibility", id, n)
		}
	}
	if n, err := kv.QueueSize(h.e, "q:c", 5); n != 0 || err != nil {
		t.Errorf("size after every job was acknowledged: %d, %v", n, err)
	}
}

// A full store refuses a push with ErrFull and keeps every job queued
// before it, each whole; and it can be drained (the queue's spare room,
// kv/queueroom.go), but where the engine's memory accounting moves by
// MemorySlack besides its entries (a Redis's client buffers): there a pop
// over the limit may be refused too, and the jobs are checked by reading.
func checkQueueFull(h *harness) {
	t := h.t
	key := h.target.fullName("q:full")
	pushed := map[uint64]string{}
	var err error
	for i := 0; i < 100000; i++ {
		payload := fmt.Sprintf("%06d:%s", i, strings.Repeat("p", 1000))
		var id uint64
		if id, err = kv.QueuePush(h.e, key, []byte(payload), 0); err != nil {
			break
		}
		pushed[id] = payload
	}
	if !errors.Is(err, kv.ErrFull) || len(pushed) == 0 {
		t.Fatalf("pushes until the store is full: %d, then %v, want kv.ErrFull", len(pushed), err)
	}
	if n, err := kv.QueueSize(h.e, key, 5); n != int64(len(pushed)) || err != nil {
		t.Errorf("size of the full queue: %d, %v; %d pushed", n, err, len(pushed))
	}
	for id, payload := range pushed {
		if v, ok := h.get(kv.QueueJobKey(key, id)); !ok || v != payload {
			t.Errorf("job %d's payload on the full store: %.10q, %v", id, v, ok)
		}
	}
	got := 0
	for {
		j, ok, err := kv.QueuePop(h.e, key, []byte("drain"), time.Hour, 5, 0)
		if errors.Is(err, kv.ErrFull) && h.target.MemorySlack > 0 {
			t.Logf("pop refused over the limit after %d jobs: %v", got, err)
			return
		}
		if err != nil {
			t.Fatalf("pop from a full store after %d jobs: %v", got, err)
		}
		if !ok {
			break
		}
		if pushed[j.ID] != string(j.Payload) {
			t.Errorf("job %d: %.10q, pushed %.10q", j.ID, j.Payload, pushed[j.ID])
		}
		delete(pushed, j.ID)
		got++
	}
	if len(pushed) != 0 {
		t.Errorf("%d jobs queued before the store filled were lost (%d came out)", len(pushed), got)
	}
}
