package kv

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// A reusable barrier, composed of Get and SetIfEq (SetNX for its first
// arrival), so it runs on every engine. The key holds
//
//	'B' | version | 2 bytes zero | parties (uint32) | generation (uint64) | arrivals
//
// where each arrival is a random id (uint64) and its deadline (int64, Unix
// ns on the arriver's clock). The last arrival of a round writes the next
// generation with no arrivals: everyone waiting on the old generation
// passes. A waiter that times out takes its arrival out; one that died
// waiting is dropped by the next writer once its deadline passed, so it
// miscounts no later round.

// MaxBarrierParties bounds a barrier's parties.
const MaxBarrierParties = 1024

const (
	barrierMagic   = 'B'
	barrierVersion = 1
	barrierHead    = 16
	barrierArrival = 16
	// barrierLinger keeps a released round's record past the latest
	// waiter's deadline, for the waiters to see the new generation.
	barrierLinger = 10 * time.Second
)

type barrier struct {
	parties  uint32
	gen      uint64
	arrivals []arrival
}

type arrival struct {
	id       uint64
	deadline int64
}

func (b *barrier) encode() []byte {
	rec := make([]byte, barrierHead, barrierHead+barrierArrival*len(b.arrivals))
	rec[0], rec[1] = barrierMagic, barrierVersion
	binary.LittleEndian.PutUint32(rec[4:], b.parties)
	binary.LittleEndian.PutUint64(rec[8:], b.gen)
	for _, a := range b.arrivals {
		rec = binary.LittleEndian.AppendUint64(rec, a.id)
		rec = binary.LittleEndian.AppendUint64(rec, uint64(a.deadline))
	}
	return rec
}

func parseBarrier(key string, rec []byte) (barrier, error) {
	if len(rec) < barrierHead || rec[0] != barrierMagic || rec[1] != barrierVersion || (len(rec)-barrierHead)%barrierArrival != 0 {
		return barrier{}, fmt.Errorf("%w: %q is not a barrier", ErrWrongType, key)
	}
	b := barrier{parties: binary.LittleEndian.Uint32(rec[4:]), gen: binary.LittleEndian.Uint64(rec[8:])}
	for p := rec[barrierHead:]; len(p) > 0; p = p[barrierArrival:] {
		b.arrivals = append(b.arrivals, arrival{binary.LittleEndian.Uint64(p), int64(binary.LittleEndian.Uint64(p[8:]))})
	}
	return b, nil
}

// linger is the ttl of a record whose latest waiter gives up at the
// latest of deadlines.
func (b *barrier) linger(now int64) time.Duration {
	last := now
	for _, a := range b.arrivals {
		last = max(last, a.deadline)
	}
	return time.Duration(last-now) + barrierLinger
}

// CheckBarrier validates BarrierWait's arguments.
func CheckBarrier(key string, parties int64, timeout time.Duration) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if parties < 1 || parties > MaxBarrierParties {
		return fmt.Errorf("%w: parties must be 1 to %d, got %d", ErrBadArgument, MaxBarrierParties, parties)
	}
	if timeout <= 0 || timeout > MaxTTL {
		return fmt.Errorf("%w: a timeout must be above 0 and at most %d seconds, got %d ns", ErrBadTTL, MaxTTLSeconds, int64(timeout))
	}
	return nil
}

// BarrierWait waits at key until parties callers have arrived in this
// round, then all pass (true); or, after timeout, withdraws the caller's
// arrival and returns false. A barrier's callers agree on parties:
// another count is ErrBadArgument while a round is open.
func BarrierWait(e Engine, key string, parties int64, timeout time.Duration) (bool, error) {
	if err := CheckBarrier(key, parties, timeout); err != nil {
		return false, err
	}
	if parties == 1 {
		return true, nil // the caller is every party
	}
	me := arrival{id: rand.Uint64() | 1, deadline: time.Now().Add(timeout).UnixNano()}
	gen, passed, err := arrive(e, key, uint32(parties), me)
	if err != nil || passed {
		return passed, err
	}
	w := newChangeWaiter(e, key)
	for {
		b, found, err := readBarrier(e, key)
		switch {
		case err != nil:
			return false, err
		case !found:
			return false, nil // deleted or flushed: the round is gone
		case b.gen != gen:
			return true, nil
		}
		left := time.Duration(me.deadline - time.Now().UnixNano())
		if left <= 0 {
			return withdraw(e, key, gen, me.id)
		}
		if err := w.wait(min(left, time.Second)); err != nil {
			return false, err
		}
	}
}

func readBarrier(e Engine, key string) (barrier, bool, error) {
	rec, found, err := getAll(e, key)
	if err != nil || !found {
		return barrier{}, found, err
	}
	b, err := parseBarrier(key, rec)
	return b, err == nil, err
}

// arrive adds me to the open round: the round's generation, and true when
// me was its last party (the round is released).
func arrive(e Engine, key string, parties uint32, me arrival) (uint64, bool, error) {
	for {
		rec, found, err := getAll(e, key)
		if err != nil {
			return 0, false, err
		}
		b := barrier{parties: parties, gen: 1}
		if found {
			if b, err = parseBarrier(key, rec); err != nil {
				return 0, false, err
			}
			if len(b.arrivals) > 0 && b.parties != parties {
				return 0, false, fmt.Errorf("%w: barrier %q waits for %d parties, not %d", ErrBadArgument, key, b.parties, parties)
			}
			b.parties = parties
		}
		now := time.Now().UnixNano()
		b.arrivals = slices.DeleteFunc(b.arrivals, func(a arrival) bool { return a.deadline <= now })
		gen, last := b.gen, len(b.arrivals)+1 >= int(parties)
		if last {
			waiting := b.arrivals
			b.arrivals = nil
			b.gen++
			ttl := (&barrier{arrivals: waiting}).linger(now)
			if ok, err := put(e, key, b.encode(), rec, found, ttl); err != nil || ok {
				return gen, ok, err
			}
			continue
		}
		b.arrivals = append(b.arrivals, me)
		if ok, err := put(e, key, b.encode(), rec, found, b.linger(now)); err != nil || ok {
			return gen, false, err
		}
	}
}

// withdraw takes id's arrival out of round gen: false, or true when the
// round was released meanwhile.
func withdraw(e Engine, key string, gen, id uint64) (bool, error) {
	for {
		rec, found, err := getAll(e, key)
		if err != nil || !found {
			return false, err
		}
		b, err := parseBarrier(key, rec)
		if err != nil {
			return false, err
		}
		if b.gen != gen {
			return true, nil
		}
		i := slices.IndexFunc(b.arrivals, func(a arrival) bool { return a.id == id })
		if i < 0 {
			return false, nil // dropped by another arrival as expired
		}
		b.arrivals = slices.Delete(b.arrivals, i, i+1)
		if ok, err := e.SetIfEq(key, b.encode(), rec, b.linger(time.Now().UnixNano())); err != nil || ok {
			return false, err
		}
	}
}

// put writes rec over old (SetIfEq), or as a new key when there was none
// (SetNX): false when another writer came first.
func put(e Engine, key string, rec, old []byte, found bool, ttl time.Duration) (bool, error) {
	if found {
		return e.SetIfEq(key, rec, old, ttl)
	}
	return e.SetNX(key, rec, ttl)
}
