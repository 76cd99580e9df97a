package shm

import (
	"strconv"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Scan implements kv.Scanner: the cursor is the next bucket (hex), and the
// walk takes one bucket's stripe lock at a time, copying out what it
// reports before it lets go, so a writer waits for one bucket's chain at
// most, and a walker killed mid-walk leaves a stripe lock the next taker
// recovers as after any death. The bucket count is fixed for the
// segment's life, so a cursor stays good across calls and processes.
func (e *Engine) Scan(cursor, match string, count int, fn func(kv.KeyInfo)) (string, error) {
	if err := kv.CheckScan(match, count); err != nil {
		return "", err
	}
	b := uint64(0)
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 16, 64)
		if err != nil || n > e.bucketMask {
			return "", kv.ErrBadCursor
		}
		b = n
	}
	var found []kv.KeyInfo
	// At most count records, and count*64 buckets: an empty segment's
	// walk goes on over several calls, as Redis's SCAN does.
	for visited, buckets := 0, 0; visited < count && buckets < count*64; b, buckets = b+1, buckets+1 {
		if b > e.bucketMask {
			return "", report(found, fn)
		}
		st, err := e.lockStripe(b & e.stripeMask)
		if err != nil {
			return "", err
		}
		now := nanotime()
		hops := e.maxChain
		for off := *e.bucket(b); off != 0; off = e.rec(off).next {
			if off < e.arenaOff || off >= e.arenaEnd-recHeader || hops == 0 {
				break // a corrupt chain: repair's to mend, not a walker's
			}
			hops--
			visited++
			r := e.rec(off)
			if r.kind != kindUser || !e.fits(off, r) || r.flags&flagQuarantined != 0 {
				continue
			}
			key := string(e.recKey(off, r))
			if r.deadline != 0 && r.deadline <= now || !kv.Match(match, key) {
				continue
			}
			info := kv.KeyInfo{Key: key, Kind: kv.KindValue, TTL: kv.TTLPersistent, Size: int64(r.plainLen)}
			switch {
			case r.flags&flagLease != 0:
				info.Kind = kv.KindLeases
			case r.flags&flagRate != 0:
				info.Kind = kv.KindRateLog
			case r.flags&flagEvictable != 0:
				info.Kind = kv.KindEvictable
			}
			if r.deadline != 0 {
				info.TTL = time.Duration(r.deadline - now)
			}
			info.Fence = e.recFence(off, r, now)
			found = append(found, info)
		}
		e.unlock(st, false)
	}
	if b > e.bucketMask {
		return "", report(found, fn)
	}
	return strconv.FormatUint(b, 16), report(found, fn)
}

func report(found []kv.KeyInfo, fn func(kv.KeyInfo)) error {
	for _, k := range found {
		fn(k)
	}
	return nil
}
