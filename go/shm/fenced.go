package shm

import "encoding/binary"

// flagFenced marks a record SetNXFenced wrote (a lock's): one tail word
// after its value holds the fence it was issued with, for the status page
// and the CLI (kv.KeyInfo.Fence). The word is outside the checksum, as
// other tail words are: it is written once, before the record is
// published, and only ever read for display. A write that replaces the
// value drops it; a renewal, which changes the deadline in place, keeps it.
const flagFenced = 0x20

// fenceWords is the tail words of a fenced record.
const fenceWords = 1

// setRecFence writes the fence word of a fenced record not yet published.
func (e *Engine) setRecFence(off uint64, fence int64) {
	*(*int64)(e.at(e.tail(off, e.rec(off)))) = fence
}

// recFence is the fence a record was written with: its fence word for a
// fenced record, the highest live holder's for a lease set, else 0. Under
// the record's stripe lock.
func (e *Engine) recFence(off uint64, r *record, now int64) int64 {
	switch {
	case r.flags&flagFenced != 0:
		if e.tail(off, r)+8*fenceWords > off+classSizes[r.class] {
			return 0 // a corrupt record: repair's to mend
		}
		return *(*int64)(e.at(e.tail(off, r)))
	case r.flags&flagLease != 0:
		if !e.tailFits(off, r) {
			return 0
		}
		var highest int64
		v, w := e.recValue(off, r), e.tail(off, r)
		for p := leaseHead; p < len(v); p, w = p+leaseFixed+int(v[p+9]), w+8 {
			if v[p] != modeIntent && *(*int64)(e.at(w)) > now {
				highest = max(highest, int64(binary.LittleEndian.Uint64(v[p+1:])))
			}
		}
		return highest
	}
	return 0
}
