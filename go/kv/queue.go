package kv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// A reliable queue, at-least-once, composed of Get, SetNX, SetIfEq and Del,
// so it runs on every engine. The queue's key holds its index:
//
//	'Q' | version | 6 bytes zero | next id (uint64) | entries, by id
//
// each entry being id (uint64) | visible at (int64, Unix ns; 0: at once) |
// attempts (uint32) | state (byte) | token length (byte) | token. A job's
// payload is its own key, key + ":job:" + id, written (SetNX, which claims
// the id) before the index names it and deleted after the index lets it go.
// Every change of the index is one SetIfEq, so a worker killed at any point
// leaves each job queued, delivered or gone, never half: a delivered job
// whose visibility ran out is visible again. What a kill can leave is a
// payload key no index names (a push killed before its index write, an ack
// killed after it): memory, never a job.
//
// Times are Unix ns on the callers' clocks: across hosts, visibility is
// as good as their clocks agree (as Laravel's and Symfony's queues have it).

const (
	queueMagic   = 'Q'
	queueVersion = 1
	queueHead    = 16
	queueEntry   = 22 // without the token
)

// Job states in the index.
const (
	jobReady     = 0 // visible at visibleAt
	jobDelivered = 1 // invisible until visibleAt, held by token
	jobDead      = 2
)

type queueIndex struct {
	next    uint64
	entries []jobEntry
}

type jobEntry struct {
	id        uint64
	visibleAt int64
	attempts  uint32
	state     byte
	token     []byte
}

func (q *queueIndex) encode() []byte {
	n := queueHead
	for _, j := range q.entries {
		n += queueEntry + len(j.token)
	}
	rec := make([]byte, queueHead, n)
	rec[0], rec[1] = queueMagic, queueVersion
	binary.LittleEndian.PutUint64(rec[8:], q.next)
	for _, j := range q.entries {
		rec = binary.LittleEndian.AppendUint64(rec, j.id)
		rec = binary.LittleEndian.AppendUint64(rec, uint64(j.visibleAt))
		rec = binary.LittleEndian.AppendUint32(rec, j.attempts)
		rec = append(rec, j.state, byte(len(j.token)))
		rec = append(rec, j.token...)
	}
	return rec
}

func parseQueue(key string, rec []byte) (queueIndex, error) {
	bad := fmt.Errorf("%w: %q is not a queue", ErrWrongType, key)
	if len(rec) < queueHead || rec[0] != queueMagic || rec[1] != queueVersion {
		return queueIndex{}, bad
	}
	q := queueIndex{next: binary.LittleEndian.Uint64(rec[8:])}
	for p := rec[queueHead:]; len(p) > 0; {
		if len(p) < queueEntry || len(p) < queueEntry+int(p[21]) {
			return queueIndex{}, bad
		}
		n := int(p[21])
		q.entries = append(q.entries, jobEntry{
			id:        binary.LittleEndian.Uint64(p),
			visibleAt: int64(binary.LittleEndian.Uint64(p[8:])),
			attempts:  binary.LittleEndian.Uint32(p[16:]),
			state:     p[20],
			token:     p[queueEntry : queueEntry+n],
		})
		p = p[queueEntry+n:]
	}
	return q, nil
}

// dead reports whether j is dead at now: marked so, or delivered
// maxAttempts times with its last visibility run out.
func (j *jobEntry) dead(now int64, maxAttempts int64) bool {
	return j.state == jobDead || (int64(j.attempts) >= maxAttempts && j.visibleAt <= now)
}

// QueueJobKey is the key of job id's payload in the queue at key.
func QueueJobKey(key string, id uint64) string {
	return key + ":job:" + strconv.FormatUint(id, 10)
}

// QueueJob is one delivery of a job.
type QueueJob struct {
	ID       uint64
	Attempts int64
	Payload  []byte
}

// CheckQueue validates a queue's name and attempts.
func CheckQueue(key string, maxAttempts int64) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if maxAttempts < 1 {
		return fmt.Errorf("%w: max attempts must be at least 1, got %d", ErrBadArgument, maxAttempts)
	}
	return CheckKey(QueueJobKey(key, 1<<63))
}

func checkQueueTime(what string, d time.Duration, zeroOK bool) error {
	if d < 0 || d > MaxTTL || (d == 0 && !zeroOK) {
		return fmt.Errorf("%w: %s must be %s and at most %d seconds, got %d ns", ErrBadTTL, what,
			map[bool]string{true: "0 or more", false: "above 0"}[zeroOK], MaxTTLSeconds, int64(d))
	}
	return nil
}

// readQueue reads the index: empty (next id 1) when there is none.
func readQueue(e Engine, key string) (q queueIndex, rec []byte, found bool, err error) {
	rec, found, err = getAll(e, key)
	if err != nil {
		return queueIndex{}, nil, false, err
	}
	if !found {
		return queueIndex{next: 1}, nil, false, nil
	}
	q, err = parseQueue(key, rec)
	return q, rec, true, err
}

// writeQueue replaces the index read as old; false when it changed since.
// An index too large for the store is ErrFull: the queue holds too much.
func writeQueue(e Engine, key string, q *queueIndex, old []byte, found bool) (bool, error) {
	ok, err := put(e, key, q.encode(), old, found, 0)
	if errors.Is(err, ErrValueTooLarge) {
		err = fmt.Errorf("%w: the index of queue %q would outgrow the largest value (%v)", ErrFull, key, err)
	}
	return ok, err
}

// QueuePush queues payload, visible after delay, and returns its id. A
// store that is full refuses it (ErrFull) and keeps every job queued.
func QueuePush(e Engine, key string, payload []byte, delay time.Duration) (uint64, error) {
	if err := errors.Join(CheckQueue(key, 1), checkQueueTime("a delay", delay, true)); err != nil {
		return 0, err
	}
	q, _, _, err := readQueue(e, key)
	if err != nil {
		return 0, err
	}
	id := q.next
	for { // claim an id: its payload key, new
		ok, err := e.SetNX(QueueJobKey(key, id), payload, 0)
		if err != nil {
			return 0, err
		}
		if ok {
			break
		}
		id++
	}
	visible := int64(0)
	if delay > 0 {
		visible = time.Now().Add(delay).UnixNano()
	}
	for {
		q, rec, found, err := readQueue(e, key)
		if err == nil {
			q.next = max(q.next, id+1)
			i, _ := slices.BinarySearchFunc(q.entries, id, func(j jobEntry, id uint64) int { return cmpU64(j.id, id) })
			q.entries = slices.Insert(q.entries, i, jobEntry{id: id, visibleAt: visible})
			var ok bool
			if ok, err = writeQueue(e, key, &q, rec, found); ok {
				return id, nil
			}
		}
		if err != nil {
			e.Del(QueueJobKey(key, id)) // queued nowhere: give its room back
			return 0, err
		}
	}
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// QueuePop delivers the oldest visible job to token (1 to MaxLeaseToken
// bytes, new for each pop), invisible to other pops for visibility; a
// visible job delivered maxAttempts times already goes dead instead. It
// waits up to wait for one; false when none came.
func QueuePop(e Engine, key string, token []byte, visibility time.Duration, maxAttempts int64, wait time.Duration) (QueueJob, bool, error) {
	if err := errors.Join(CheckQueue(key, maxAttempts), CheckLeaseToken(token),
		checkQueueTime("a visibility", visibility, false), checkQueueTime("a wait", wait, true)); err != nil {
		return QueueJob{}, false, err
	}
	deadline := time.Now().Add(wait).UnixNano()
	w := newChangeWaiter(e, key)
	for {
		q, rec, found, err := readQueue(e, key)
		if err != nil {
			return QueueJob{}, false, err
		}
		now := time.Now().UnixNano()
		picked, changed, next := -1, false, int64(0)
		for i := range q.entries {
			j := &q.entries[i]
			if j.state == jobDead {
				continue
			}
			if j.visibleAt > now {
				if next == 0 || j.visibleAt < next {
					next = j.visibleAt
				}
				continue
			}
			if int64(j.attempts) >= maxAttempts {
				j.state, j.token, changed = jobDead, nil, true
				continue
			}
			j.state, j.token = jobDelivered, token
			j.attempts++
			j.visibleAt = now + int64(visibility)
			picked, changed = i, true
			break
		}
		if changed {
			ok, err := writeQueue(e, key, &q, rec, found)
			if err != nil {
				return QueueJob{}, false, err
			}
			if !ok {
				continue // another worker changed the index: read it again
			}
		}
		if picked >= 0 {
			j := q.entries[picked]
			payload, ok, err := getAll(e, QueueJobKey(key, j.id))
			if err != nil {
				return QueueJob{}, false, err
			}
			if !ok { // its payload key was deleted behind the queue's back
				if _, err := settle(e, key, j.id, token, func(q *queueIndex, i int) { q.entries = slices.Delete(q.entries, i, i+1) }); err != nil {
					return QueueJob{}, false, err
				}
				continue
			}
			return QueueJob{ID: j.id, Attempts: int64(j.attempts), Payload: payload}, true, nil
		}
		left := deadline - now
		if left <= 0 {
			return QueueJob{}, false, nil
		}
		if next != 0 {
			left = min(left, next-now)
		}
		if !found { // an index to sleep on (a release wake-up needs a key)
			if _, err := e.SetNX(key, (&queueIndex{next: 1}).encode(), 0); err != nil {
				return QueueJob{}, false, err
			}
			continue
		}
		if err := w.wait(time.Duration(left)); err != nil {
			return QueueJob{}, false, err
		}
	}
}

// settle applies fn to job id's entry while token's delivery of it is
// still invisible; false when it is not (ran out, or gone).
func settle(e Engine, key string, id uint64, token []byte, fn func(q *queueIndex, i int)) (bool, error) {
	for {
		q, rec, found, err := readQueue(e, key)
		if err != nil || !found {
			return false, err
		}
		now := time.Now().UnixNano()
		i := slices.IndexFunc(q.entries, func(j jobEntry) bool { return j.id == id })
		if i < 0 {
			return false, nil
		}
		if j := q.entries[i]; j.state != jobDelivered || j.visibleAt <= now || string(j.token) != string(token) {
			return false, nil
		}
		fn(&q, i)
		ok, err := writeQueue(e, key, &q, rec, found)
		if err != nil || ok {
			return ok, err
		}
	}
}

func checkDelivery(key string, token []byte) error {
	return errors.Join(CheckQueue(key, 1), CheckLeaseToken(token))
}

// QueueAck deletes job id while token's delivery is still invisible;
// false once its visibility ran out (another worker may have it).
func QueueAck(e Engine, key string, id uint64, token []byte) (bool, error) {
	if err := checkDelivery(key, token); err != nil {
		return false, err
	}
	ok, err := settle(e, key, id, token, func(q *queueIndex, i int) { q.entries = slices.Delete(q.entries, i, i+1) })
	if err != nil || !ok {
		return false, err
	}
	_, err = e.Del(QueueJobKey(key, id))
	return true, err
}

// QueueRelease makes job id visible again after delay, while token's
// delivery is still invisible.
func QueueRelease(e Engine, key string, id uint64, token []byte, delay time.Duration) (bool, error) {
	if err := errors.Join(checkDelivery(key, token), checkQueueTime("a delay", delay, true)); err != nil {
		return false, err
	}
	return settle(e, key, id, token, func(q *queueIndex, i int) {
		j := &q.entries[i]
		j.state, j.token, j.visibleAt = jobReady, nil, 0
		if delay > 0 {
			j.visibleAt = time.Now().Add(delay).UnixNano()
		}
	})
}

// QueueTouch extends token's delivery of job id to visibility from now.
func QueueTouch(e Engine, key string, id uint64, token []byte, visibility time.Duration) (bool, error) {
	if err := errors.Join(checkDelivery(key, token), checkQueueTime("a visibility", visibility, false)); err != nil {
		return false, err
	}
	return settle(e, key, id, token, func(q *queueIndex, i int) {
		q.entries[i].visibleAt = time.Now().Add(visibility).UnixNano()
	})
}

// QueueSize counts the jobs queued, delayed or delivered, the dead ones
// not counted.
func QueueSize(e Engine, key string, maxAttempts int64) (int64, error) {
	if err := CheckQueue(key, maxAttempts); err != nil {
		return 0, err
	}
	q, _, _, err := readQueue(e, key)
	if err != nil {
		return 0, err
	}
	now, n := time.Now().UnixNano(), int64(0)
	for i := range q.entries {
		if !q.entries[i].dead(now, maxAttempts) {
			n++
		}
	}
	return n, nil
}

// QueueDead lists up to limit dead jobs, oldest first.
func QueueDead(e Engine, key string, maxAttempts, limit int64) ([]QueueJob, error) {
	if err := CheckQueue(key, maxAttempts); err != nil {
		return nil, err
	}
	if limit < 1 {
		return nil, fmt.Errorf("%w: limit must be at least 1, got %d", ErrBadArgument, limit)
	}
	q, _, _, err := readQueue(e, key)
	if err != nil {
		return nil, err
	}
	now := time.Now().UnixNano()
	var jobs []QueueJob
	for i := range q.entries {
		j := &q.entries[i]
		if !j.dead(now, maxAttempts) {
			continue
		}
		payload, ok, err := getAll(e, QueueJobKey(key, j.id))
		if err != nil {
			return nil, err
		}
		if ok {
			jobs = append(jobs, QueueJob{ID: j.id, Attempts: int64(j.attempts), Payload: payload})
			if int64(len(jobs)) == limit {
				break
			}
		}
	}
	return jobs, nil
}

// QueueRetry moves dead job id (0: every dead job) back to the queue,
// visible at once with no attempts, and reports how many moved.
func QueueRetry(e Engine, key string, maxAttempts int64, id uint64) (int64, error) {
	if err := CheckQueue(key, maxAttempts); err != nil {
		return 0, err
	}
	for {
		q, rec, found, err := readQueue(e, key)
		if err != nil || !found {
			return 0, err
		}
		now, n := time.Now().UnixNano(), int64(0)
		for i := range q.entries {
			j := &q.entries[i]
			if (id == 0 || j.id == id) && j.dead(now, maxAttempts) {
				j.state, j.token, j.visibleAt, j.attempts = jobReady, nil, 0, 0
				n++
			}
		}
		if n == 0 {
			return 0, nil
		}
		ok, err := writeQueue(e, key, &q, rec, found)
		if err != nil || ok {
			return n, err
		}
	}
}
