package server

import (
	"sync"
	"time"
)

// rateLog counts events and logs at most one line per interval: the first
// event of a quiet spell at once, the rest as a count when the interval has
// passed, so a flood (password guesses, clients closed for the memory
// budget) costs one log line a second.
type rateLog struct {
	write func(n int, remote string) // writes the line for n events

	mu      sync.Mutex
	last    time.Time // when the last line was written
	pending int       // events since then
	remote  string    // the latest event's client
	timer   *time.Timer
}

const logInterval = time.Second

func (r *rateLog) event(remote string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending++
	r.remote = remote
	if wait := logInterval - time.Since(r.last); wait > 0 {
		if r.timer == nil {
			r.timer = time.AfterFunc(wait, func() {
				r.mu.Lock()
				defer r.mu.Unlock()
				r.timer = nil
				r.flush()
			})
		}
		return
	}
	r.flush()
}

// flush writes the line; r.mu is held.
func (r *rateLog) flush() {
	if r.pending == 0 {
		return
	}
	r.write(r.pending, r.remote)
	r.pending, r.last = 0, time.Now()
}
