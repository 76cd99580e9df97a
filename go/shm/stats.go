package shm

import "github.com/ephpm/ephpm-kv/kv"

// Stats implements kv.Engine: the per-stripe counters summed, each stripe
// read under its lock (no global counter is touched on the hot path).
func (e *Engine) Stats() (kv.Stats, error) {
	s := kv.Stats{
		BytesLimit:   int64(e.arenaEnd - e.arenaOff),
		MaxValueSize: min(e.maxValue, maxRecordValue),
		CompressMin:  max(e.compressMin, 0),
	}
	for si := uint64(0); si < e.stripes; si++ {
		st, err := e.lockStripe(si)
		if err != nil {
			return kv.Stats{}, err
		}
		s.Keys += st.keys
		s.BytesUsed += st.bytes
		s.Compressed += st.comp
		s.Hits += st.hits
		s.Misses += st.misses
		s.Expired += st.expired
		s.Rejected += st.reject
		s.Fences += st.fences
		s.Quarantined += st.quarantined
		s.Evicted += st.evicted
		s.BytesEvictable += st.evictBytes
		e.unlock(st, false)
	}
	return s, nil
}
