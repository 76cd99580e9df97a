package lincheck

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ephpm/ephpm-kv/kv"
)

// The reliable queue (kv.Queue*) checked for linearizability. The workload
// keeps every delivery's visibility longer than the run, so the model has
// no clock: a delivered job stays with its token until acknowledged or
// released. What it holds the engine to, per queue: pushes get new ids; a
// pop delivers the ready job of the lowest id (FIFO), with its attempts one
// higher, or none only when no job is ready; an ack or a release succeeds
// exactly for the job's current delivery. A push or pop whose outcome is
// unknown (a fault) may or may not have happened: a job pushed so has an id
// nobody learned, which a later pop may deliver.

// QueueKind is a queue operation.
type QueueKind uint8

const (
	QPush    QueueKind = iota + 1 // QueuePush -> ID
	QPop                          // QueuePop(Token) -> OK (a job), ID, Attempts
	QAck                          // QueueAck(ID, Token) -> OK
	QRelease                      // QueueRelease(ID, Token, 0) -> OK
)

// QInput is one queue call.
type QInput struct {
	Kind  QueueKind
	Queue string
	ID    uint64
	Token string
}

// QOutput is what it returned.
type QOutput struct {
	Unknown  bool
	OK       bool
	ID       uint64
	Attempts int64
}

type qjob struct {
	id       uint64
	token    string // "": ready; "?": delivered to a pop whose outcome is unknown
	attempts int64
}

// qstate is one queue. Never modified: steps return new states.
type qstate struct {
	jobs     []qjob // by id
	phantoms int    // jobs pushed by pushes of unknown outcome, ids unknown
}

func (s qstate) find(id uint64) (int, bool) {
	return slices.BinarySearchFunc(s.jobs, id, func(j qjob, id uint64) int {
		switch {
		case j.id < id:
			return -1
		case j.id > id:
			return 1
		}
		return 0
	})
}

func (s qstate) firstReady() int {
	return slices.IndexFunc(s.jobs, func(j qjob) bool { return j.token == "" })
}

func (s qstate) set(i int, j qjob) qstate {
	n := s
	n.jobs = slices.Clone(s.jobs)
	n.jobs[i] = j
	return n
}

func (s qstate) remove(i int) qstate {
	n := s
	n.jobs = slices.Delete(slices.Clone(s.jobs), i, i+1)
	return n
}

func (s qstate) insert(j qjob) (qstate, bool) {
	i, found := s.find(j.id)
	if found {
		return s, false
	}
	n := s
	n.jobs = slices.Insert(slices.Clone(s.jobs), i, j)
	return n, true
}

// qstep returns the states the call may leave s in.
func qstep(s qstate, in QInput, out QOutput) []qstate {
	switch in.Kind {
	case QPush:
		if out.Unknown {
			n := s
			n.phantoms++
			return []qstate{s, n}
		}
		if n, ok := s.insert(qjob{id: out.ID}); ok {
			return []qstate{n}
		}
		return nil // an id given twice
	case QPop:
		if out.Unknown {
			next := []qstate{s}
			if i := s.firstReady(); i >= 0 {
				j := s.jobs[i]
				j.token, j.attempts = "?", j.attempts+1
				next = append(next, s.set(i, j))
			}
			if s.phantoms > 0 {
				n := s
				n.phantoms-- // delivered to nobody who knows: invisible for the run
				next = append(next, n)
			}
			return next
		}
		first := s.firstReady()
		if !out.OK {
			if first >= 0 {
				return nil // a ready job was there
			}
			return []qstate{s}
		}
		if first >= 0 && s.jobs[first].id < out.ID {
			return nil // not the oldest ready job
		}
		if i, known := s.find(out.ID); known {
			j := s.jobs[i]
			if j.token != "" || out.Attempts != j.attempts+1 {
				return nil
			}
			j.token, j.attempts = in.Token, out.Attempts
			return []qstate{s.set(i, j)}
		}
		if s.phantoms == 0 || out.Attempts != 1 {
			return nil // a job nobody pushed
		}
		n, _ := s.insert(qjob{id: out.ID, token: in.Token, attempts: 1})
		n.phantoms--
		return []qstate{n}
	case QAck, QRelease:
		i, known := s.find(in.ID)
		mine := known && s.jobs[i].token == in.Token
		if !mine {
			if !out.Unknown && out.OK {
				return nil
			}
			return []qstate{s}
		}
		if !out.Unknown && !out.OK {
			return nil
		}
		var done qstate
		if in.Kind == QAck {
			done = s.remove(i)
		} else {
			j := s.jobs[i]
			j.token = ""
			done = s.set(i, j)
		}
		if out.Unknown {
			return []qstate{s, done}
		}
		return []qstate{done}
	}
	panic(fmt.Sprintf("lincheck: unknown queue operation %d", in.Kind))
}

func queueModel() porcupine.Model {
	m := porcupine.NondeterministicModel{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			by := map[string][]porcupine.Operation{}
			var order []string
			for _, op := range h {
				q := op.Input.(QInput).Queue
				if _, ok := by[q]; !ok {
					order = append(order, q)
				}
				by[q] = append(by[q], op)
			}
			parts := make([][]porcupine.Operation, 0, len(order))
			for _, q := range order {
				parts = append(parts, by[q])
			}
			return parts
		},
		Init: func() []any { return []any{qstate{}} },
		Step: func(st, in, out any) []any {
			var next []any
			for _, n := range qstep(st.(qstate), in.(QInput), out.(QOutput)) {
				next = append(next, n)
			}
			return next
		},
		Equal: func(a, b any) bool {
			x, y := a.(qstate), b.(qstate)
			return x.phantoms == y.phantoms && slices.Equal(x.jobs, y.jobs)
		},
		Hash: func(a any) uint64 {
			s := a.(qstate)
			h := fnv.New64a()
			fmt.Fprint(h, s.phantoms)
			for _, j := range s.jobs {
				fmt.Fprint(h, " ", j.id, j.token, j.attempts)
			}
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string {
			i, o := in.(QInput), out.(QOutput)
			return fmt.Sprintf("%d(%s, id %d, %s) -> %+v", i.Kind, i.Queue, i.ID, i.Token, o)
		},
	}
	return m.ToModel()
}

// recordQueue runs f as client's queue call in and records it into r;
// kv.ErrUnavailable is an unknown outcome, any other error is returned
// unrecorded.
func recordQueue(r *Recorder, client int, in QInput, f func() (QOutput, error)) (QOutput, error) {
	call := r.Now()
	out, err := f()
	ret := r.Now()
	if err != nil {
		if !errors.Is(err, kv.ErrUnavailable) {
			return out, err
		}
		out, ret = QOutput{Unknown: true}, math.MaxInt64
	}
	r.add(porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	return out, nil
}

// CheckQueue checks a queue history: the result, the operations and how
// many of them had an unknown outcome.
func CheckQueue(h []porcupine.Operation, timeout time.Duration) (porcupine.CheckResult, int, int) {
	unknown := 0
	for _, op := range h {
		if op.Output.(QOutput).Unknown {
			unknown++
		}
	}
	return porcupine.CheckOperationsTimeout(queueModel(), h, timeout), len(h), unknown
}

// QueueWorkload is queue traffic: each client pushes or pops a random
// queue, and acknowledges (or now and then releases) what it popped.
type QueueWorkload struct {
	Clients  int
	Queues   []string
	Duration time.Duration
}

// RunQueue runs w until its duration ends, recording into rec.
func RunQueue(ctx context.Context, open Opener, w QueueWorkload, rec *Recorder) error {
	return runClients(ctx, open, w.Clients, w.Duration, func(ctx context.Context, i int, e kv.Engine) error {
		return queueClient(ctx, i, e, w, rec)
	})
}

func queueClient(ctx context.Context, id int, e kv.Engine, w QueueWorkload, rec *Recorder) error {
	const visibility = time.Hour // never runs out in a run: the model has no clock
	for seq := 0; ctx.Err() == nil; seq++ {
		q := w.Queues[rand.IntN(len(w.Queues))]
		if rand.IntN(2) == 0 {
			_, err := recordQueue(rec, id, QInput{Kind: QPush, Queue: q}, func() (QOutput, error) {
				n, err := kv.QueuePush(e, q, []byte(fmt.Sprintf("c%d.%d", id, seq)), 0)
				return QOutput{OK: err == nil, ID: n}, err
			})
			if err != nil {
				return err
			}
			continue
		}
		token := fmt.Sprintf("c%d.%d", id, seq)
		out, err := recordQueue(rec, id, QInput{Kind: QPop, Queue: q, Token: token}, func() (QOutput, error) {
			j, ok, err := kv.QueuePop(e, q, []byte(token), visibility, math.MaxInt32, 0)
			return QOutput{OK: ok, ID: j.ID, Attempts: j.Attempts}, err
		})
		if err != nil {
			return err
		}
		if out.Unknown || !out.OK {
			continue
		}
		kind := QAck
		if rand.IntN(5) == 0 {
			kind = QRelease
		}
		for { // until the answer is known, or the run ends
			r, err := recordQueue(rec, id, QInput{Kind: kind, Queue: q, ID: out.ID, Token: token}, func() (QOutput, error) {
				var ok bool
				var err error
				if kind == QAck {
					ok, err = kv.QueueAck(e, q, out.ID, []byte(token))
				} else {
					ok, err = kv.QueueRelease(e, q, out.ID, []byte(token), 0)
				}
				return QOutput{OK: ok}, err
			})
			if err != nil || !r.Unknown || ctx.Err() != nil {
				if err != nil {
					return err
				}
				break
			}
			sleep(ctx, 100*time.Millisecond)
		}
	}
	return nil
}
