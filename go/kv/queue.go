package kv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// A reliable queue, at-least-once, composed of Get, SetNX, SetIfEq and Del,
// so it runs on every engine. The queue's key holds its index:
//
//	'Q' | version | spare's length (uint32, queueroom.go) | 2 bytes zero | next id (uint64) | entries, by id
//
// each entry being id (uint64) | visible at (int64, Unix ns; 0: at once) |
// attempts (uint32) | state (byte) | 1 byte zero | the delivery's token's
// fingerprint (uint64, FNV-1a; 0 unless delivered), 30 bytes whatever the
// token, so that a pop or a release never grows the index. A job's
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
	queueVersion = 2
	queueHead    = 16
	queueEntry   = 30
)

// Job states in the index.
const (
	jobReady     = 0 // visible at visibleAt
	jobDelivered = 1 // invisible until visibleAt, held by the token of fingerprint fp
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
	fp        uint64
}

// fingerprint is a delivery token's FNV-1a hash: a token matches an entry
// when their fingerprints do (a random token's chance of another's is
// 2^-64); never 0.
func fingerprint(token []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range token {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h | 1
}

func (q *queueIndex) encode() []byte {
	rec := queueHeader(make([]byte, 0, queueHead+queueEntry*len(q.entries)), q.next)
	for i := range q.entries {
		rec = appendEntry(rec, &q.entries[i])
	}
	return rec
}

func parseQueue(key string, rec []byte) (queueIndex, error) {
	if err := checkIndex(key, rec); err != nil {
		return queueIndex{}, err
	}
	q := queueIndex{next: binary.LittleEndian.Uint64(rec[8:])}
	err := entries(key, rec, func(e entryAt) bool {
		q.entries = append(q.entries, e.jobEntry)
		return true
	})
	return q, err
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
func writeQueue(e Engine, key string, q *queueIndex, old []byte, found bool) (bool, error) {
	return writeIndex(e, key, q.encode(), old, found)
}

// QueuePush queues payload, visible after delay, and returns its id. A
// store that is full refuses it (ErrFull) and keeps every job queued.
func QueuePush(e Engine, key string, payload []byte, delay time.Duration) (uint64, error) {
	if err := errors.Join(CheckQueue(key, 1), checkQueueTime("a delay", delay, true)); err != nil {
		return 0, err
	}
	buf, out := indexBuf(), indexBuf()
	defer putIndexBuf(buf)
	defer putIndexBuf(out)
	rec, found, err := readIndex(e, key, buf)
	if err != nil {
		return 0, err
	}
	id := uint64(1)
	if found {
		id = binary.LittleEndian.Uint64(rec[8:])
	}
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
	j := jobEntry{id: id}
	if delay > 0 {
		j.visibleAt = time.Now().Add(delay).UnixNano()
	}
	for {
		rec, found, err := readIndex(e, key, buf)
		if err == nil {
			if !found {
				rec = queueHeader(nil, 1)
			}
			at := len(rec) // by id: almost always the end
			err = entries(key, rec, func(x entryAt) bool {
				if x.id > id {
					at = x.off
					return false
				}
				return true
			})
			if err == nil {
				*out = applyEdits((*out)[:0], rec, []edit{{start: at, end: at, entry: j}}, id+1)
				// Room for the next pop's index before this one is
				// written: never a queue too full to drain.
				if err = ensureQueueRoom(e, key, *out); err == nil {
					var ok bool
					if ok, err = put(e, key, *out, rec, found, 0); ok {
						return id, nil // not writeIndex: a push never takes the spare
					}
					err = fullIndex(key, err)
				}
			}
		}
		if err != nil {
			e.Del(QueueJobKey(key, id)) // queued nowhere: give its room back
			return 0, err
		}
	}
}

// writeIndex writes rec over old (SetIfEq), or as a new key when there was
// none: false when another writer came first. An index too large for the
// store is ErrFull: the queue holds too much.
func writeIndex(e Engine, key string, rec, old []byte, found bool) (bool, error) {
	ok, err := putIndex(e, key, rec, old, found)
	return ok, fullIndex(key, err)
}

func fullIndex(key string, err error) error {
	if errors.Is(err, ErrValueTooLarge) {
		err = fmt.Errorf("%w: the index of queue %q would outgrow the largest value (%v)", ErrFull, key, err)
	}
	return err
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
	buf, out := indexBuf(), indexBuf()
	defer putIndexBuf(buf)
	defer putIndexBuf(out)
	var edits []edit
	for {
		rec, found, err := readIndex(e, key, buf)
		if err != nil {
			return QueueJob{}, false, err
		}
		now := time.Now().UnixNano()
		var picked jobEntry
		next := int64(0)
		edits = edits[:0]
		if found {
			err = entries(key, rec, func(x entryAt) bool {
				switch {
				case x.state == jobDead:
				case x.visibleAt > now:
					if next == 0 || x.visibleAt < next {
						next = x.visibleAt
					}
				case int64(x.attempts) >= maxAttempts:
					edits = append(edits, edit{start: x.off, end: x.end, entry: jobEntry{id: x.id, attempts: x.attempts, state: jobDead}})
				default:
					picked = jobEntry{id: x.id, visibleAt: now + int64(visibility), attempts: x.attempts + 1, state: jobDelivered, fp: fingerprint(token)}
					edits = append(edits, edit{start: x.off, end: x.end, entry: picked})
					return false
				}
				return true
			})
			if err != nil {
				return QueueJob{}, false, err
			}
		}
		if len(edits) > 0 {
			*out = applyEdits((*out)[:0], rec, edits, 0)
			ok, err := writeIndex(e, key, *out, rec, true)
			if err != nil {
				return QueueJob{}, false, err
			}
			if !ok {
				continue // another worker changed the index: read it again
			}
		}
		if picked.id != 0 {
			payload, ok, err := getAll(e, QueueJobKey(key, picked.id))
			if err != nil {
				return QueueJob{}, false, err
			}
			if !ok { // its payload key was deleted behind the queue's back
				if _, err := settle(e, key, picked.id, token, func(x *entryAt) *jobEntry { return nil }); err != nil {
					return QueueJob{}, false, err
				}
				continue
			}
			return QueueJob{ID: picked.id, Attempts: int64(picked.attempts), Payload: payload}, true, nil
		}
		left := deadline - now
		if left <= 0 {
			return QueueJob{}, false, nil
		}
		if next != 0 {
			left = min(left, next-now)
		}
		if !found { // an index to sleep on (a release wake-up needs a key)
			if _, err := e.SetNX(key, queueHeader(nil, 1), 0); err != nil {
				return QueueJob{}, false, err
			}
			continue
		}
		if err := w.wait(time.Duration(left)); err != nil {
			return QueueJob{}, false, err
		}
	}
}

// settle replaces job id's entry with what fn returns (nil: deletes it)
// while token's delivery of it is still invisible; false when it is not
// (ran out, or gone).
func settle(e Engine, key string, id uint64, token []byte, fn func(x *entryAt) *jobEntry) (bool, error) {
	buf, out := indexBuf(), indexBuf()
	defer putIndexBuf(buf)
	defer putIndexBuf(out)
	for {
		rec, found, err := readIndex(e, key, buf)
		if err != nil || !found {
			return false, err
		}
		now := time.Now().UnixNano()
		var target entryAt
		err = entries(key, rec, func(x entryAt) bool {
			if x.id == id {
				target = x
			}
			return x.id < id
		})
		if err != nil || target.id != id {
			return false, err
		}
		if target.state != jobDelivered || target.visibleAt <= now || target.fp != fingerprint(token) {
			return false, nil
		}
		ed := edit{start: target.off, end: target.end, drop: true}
		if j := fn(&target); j != nil {
			ed.drop, ed.entry = false, *j
		}
		*out = applyEdits((*out)[:0], rec, []edit{ed}, 0)
		ok, err := writeIndex(e, key, *out, rec, true)
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
	ok, err := settle(e, key, id, token, func(*entryAt) *jobEntry { return nil })
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
	return settle(e, key, id, token, func(x *entryAt) *jobEntry {
		j := jobEntry{id: x.id, attempts: x.attempts, state: jobReady}
		if delay > 0 {
			j.visibleAt = time.Now().Add(delay).UnixNano()
		}
		return &j
	})
}

// QueueTouch extends token's delivery of job id to visibility from now.
func QueueTouch(e Engine, key string, id uint64, token []byte, visibility time.Duration) (bool, error) {
	if err := errors.Join(checkDelivery(key, token), checkQueueTime("a visibility", visibility, false)); err != nil {
		return false, err
	}
	return settle(e, key, id, token, func(x *entryAt) *jobEntry {
		j := x.jobEntry
		j.visibleAt = time.Now().Add(visibility).UnixNano()
		return &j
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
				j.state, j.fp, j.visibleAt, j.attempts = jobReady, 0, 0, 0
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
