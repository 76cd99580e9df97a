package store

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Fences must never go backwards, not even across a crash. Two things see
// to it:
//
//   - The counter starts at the wall clock in nanoseconds (or higher), so
//     a restarted store, even one that kept no state, starts above what it
//     issued before as long as the clock did not step back and it issued
//     fewer than a billion fences a second on average: more than one
//     atomic counter can count (microseconds were passed by one process
//     taking 1.5 M fenced locks a second). Int64 holds them until 2262.
//   - With DurableFences (the server with --snapshot), no fence above a
//     durable high-water mark is ever issued: the next block of fences is
//     reserved, durably, in the background once half of the current block
//     is used, and issuing waits only if a block runs out before the next
//     reservation landed. A restart starts above the mark, whatever the
//     clock says.
//
// The hot path (an acquisition inside its Compute) is one atomic add and
// one atomic compare against the soft mark.

// DefaultFenceBlock is how many fences one durable reservation covers.
const DefaultFenceBlock = 1 << 20

// fenceMarks is the state of durable fences; its zero value (with soft and
// limit at MaxInt64) means "not durable".
type fenceMarks struct {
	counter atomic.Int64 // the last fence issued
	soft    atomic.Int64 // past this, reserve the next block in the background
	limit   atomic.Int64 // no fence above this is issued: the durable mark

	persist func(mark int64) error // nil: fences are not durable
	block   int64
	kick    chan struct{} // wakes the reserver; capacity 1
	stopped chan struct{} // closed when the reserver exits; nil: none runs

	mu     sync.Mutex
	cond   sync.Cond
	tries  uint64 // reservation attempts started
	done   uint64 // the attempt whose result err is
	err    error
	closed bool
}

var errStoreClosed = errors.New("the store is closed")

// wallNanos seeds the counter; tests step it back.
var wallNanos = func() int64 { return time.Now().UnixNano() }

func (f *fenceMarks) init() {
	f.counter.Store(wallNanos())
	f.soft.Store(math.MaxInt64)
	f.limit.Store(math.MaxInt64)
	f.cond.L = &f.mu
	f.kick = make(chan struct{}, 1)
}

// issueFence takes the next fence; it runs under the acquisition's bucket
// lock. It fails only when the fence cannot be made durable.
func (s *Store) issueFence() (int64, error) {
	f := s.fm.counter.Add(1)
	if f <= s.fm.soft.Load() {
		return f, nil
	}
	s.kickReserver()
	if f <= s.fm.limit.Load() {
		return f, nil
	}
	return f, s.awaitFence(f) // the block ran out: rare, see fenceHeadroom
}

// fenceHeadroom waits, before any lock is taken, while the reserved block
// is used up, so that issueFence seldom has to wait under a bucket lock.
func (s *Store) fenceHeadroom() error {
	if next := s.fm.counter.Load() + 1; next > s.fm.limit.Load() {
		return s.awaitFence(next)
	}
	return nil
}

func (s *Store) kickReserver() {
	select {
	case s.fm.kick <- struct{}{}:
	default:
	}
}

// awaitFence waits until fence f is covered by a durable mark, or a
// reservation started after f was taken failed.
func (s *Store) awaitFence(f int64) error {
	fm := &s.fm
	fm.mu.Lock()
	defer fm.mu.Unlock()
	start := fm.tries
	s.kickReserver()
	for f > fm.limit.Load() {
		switch {
		case fm.closed:
			return errStoreClosed
		case fm.done > start && fm.err != nil:
			return fm.err
		}
		fm.cond.Wait()
	}
	return nil
}

// DurableFences makes fences survive crashes: persist must store mark
// durably (fsync) before returning nil, and the store then issues fences up
// to mark. It is called from one goroutine at a time, a block (default
// DefaultFenceBlock) ahead of the counter. Call it before the store is used,
// after RestoreFences; it reserves the first block now and returns its error.
func (s *Store) DurableFences(persist func(mark int64) error, block int64) error {
	if block <= 0 {
		block = DefaultFenceBlock
	}
	fm := &s.fm
	fm.persist, fm.block = persist, block
	fm.limit.Store(fm.counter.Load())
	fm.soft.Store(fm.counter.Load())
	if err := s.reserveFences(); err != nil {
		return err
	}
	fm.stopped = make(chan struct{})
	go s.fenceReserver()
	return nil
}

func (s *Store) fenceReserver() {
	defer close(s.fm.stopped)
	for {
		select {
		case <-s.stop:
			return
		case <-s.fm.kick:
			if err := s.reserveFences(); err != nil {
				s.rejected.Inc()
			}
		}
	}
}

// reserveFences persists a mark a block ahead of the counter, until the
// counter is below the soft mark again.
func (s *Store) reserveFences() error {
	fm := &s.fm
	for {
		fm.mu.Lock()
		fm.tries++
		try := fm.tries
		fm.mu.Unlock()
		mark := fm.counter.Load() + fm.block
		err := fm.persist(mark)
		if err != nil {
			err = fmt.Errorf("cannot issue a fence: persisting the fence mark failed: %w", err)
		}
		fm.mu.Lock()
		fm.done, fm.err = try, err
		if err == nil && mark > fm.limit.Load() {
			fm.limit.Store(mark) // before soft: whoever sees the new soft sees this
			fm.soft.Store(mark - fm.block/2)
		}
		fm.cond.Broadcast()
		fm.mu.Unlock()
		if err != nil || fm.counter.Load() <= fm.soft.Load() {
			return err
		}
	}
}

// closeFences waits for a reservation in progress, so the mark is not
// written after Close, and fails the acquisitions still waiting.
func (s *Store) closeFences() {
	if s.fm.stopped != nil {
		<-s.fm.stopped
	}
	s.fm.mu.Lock()
	s.fm.closed = true
	s.fm.cond.Broadcast()
	s.fm.mu.Unlock()
}

// DurableFenceMark is the mark DurableFences last persisted: no fence above
// it has been issued (MaxInt64 when fences are not durable).
func (s *Store) DurableFenceMark() int64 { return s.fm.limit.Load() }

// LastFence is the last fence issued (or the counter's start): the next
// one issued is above it.
func (s *Store) LastFence() int64 { return s.fm.counter.Load() }
