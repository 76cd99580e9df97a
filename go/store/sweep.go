package store

import (
	"time"

	"github.com/puzpuzpuz/xsync/v4"
)

// sweepLoop reclaims expired entries nobody reads again. It walks the map
// without locks and pauses every SweepBatch entries, so each tick does
// bounded work and a large map is covered over several ticks.
func (s *Store) sweepLoop() {
	defer close(s.swept)
	tick := time.NewTicker(s.cfg.SweepInterval)
	defer tick.Stop()
	for {
		stopped := false
		seen := 0
		now := nanotime()
		s.m.RangeRelaxed(func(key string, it *item) bool {
			if it.expiredAt(now) {
				s.reapIfExpired(key)
			}
			seen++
			if seen%s.cfg.SweepBatch == 0 {
				select {
				case <-s.stop:
					stopped = true
					return false
				case <-tick.C:
					now = nanotime()
				}
			}
			return true
		})
		if stopped {
			return
		}
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

// reapIfExpired deletes key if it is still expired under its bucket lock (it
// may have been replaced since it was seen).
func (s *Store) reapIfExpired(key string) {
	s.m.Compute(key, func(old *item, loaded bool) (*item, xsync.ComputeOp) {
		if !loaded || !old.expired() {
			return old, xsync.CancelOp
		}
		s.remove(key, old, false)
		return old, xsync.DeleteOp
	})
}

// reclaimExpired removes every expired entry now; a write that would pass
// the memory limit calls it before giving up. A write that waited for
// another's reclaim, begun after it asked, takes that one's.
func (s *Store) reclaimExpired() {
	asked := nanotime()
	s.reclaimMu.Lock()
	defer s.reclaimMu.Unlock()
	if s.lastReclaim.Load() >= asked {
		return
	}
	now := nanotime()
	s.lastReclaim.Store(now)
	s.m.DeleteMatching(func(key string, it *item) (bool, bool) {
		if !it.expiredAt(now) {
			return false, false
		}
		s.remove(key, it, false)
		return true, false
	})
}
