package etcdkv

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ephpm/ephpm-kv/kv"
)

var _ kv.Scanner = (*Engine)(nil)

// What one Scan call may cost, whatever its count: a call does a bounded
// amount of work and hands back a cursor (as kv.Scanner allows: fewer
// than count keys while the walk goes on), so it fits in the timeout.
const (
	// scanBytes bounds one range's reply: its limit is this over the
	// largest value (64 keys at the default 1 MiB, 1024 at 64 KiB).
	scanBytes = 64 << 20
	// scanPages bounds the ranges of one call.
	scanPages = 16
	// scanLeases bounds the distinct etcd leases one call looks up (a
	// TimeToLive each: etcd has no batch form); the walk stops before
	// the key that would need one more.
	scanLeases = 256
	// scanParallel lookups are in flight at once, on the one connection.
	scanParallel = 16
)

// cursorCoding is the cursor: the last key visited, in URL-safe base64
// without padding (strict: one spelling per key), so any byte string
// survives RESP and a shell, and text that is no such encoding is
// refused.
var cursorCoding = base64.RawURLEncoding.Strict()

// scanned is a key the range read, before its ttl is known.
type scanned struct {
	key   string // without the data prefix
	kind  kv.KeyKind
	size  int64
	lease clientv3.LeaseID
	// created is its create revision: the fence of the SetNX that made it
	created int64
}

// Scan implements kv.Scanner: a range over the data prefix (the keys
// only: fence records, lease holders and the floor live outside it),
// in etcd's order (bytewise), from the key after the cursor, which is the
// last key visited. A key there for the whole walk is visited, since the
// walk only moves forward past keys it has seen. A pattern's literal head
// (up to its first *, ?, [ or \) narrows the range; the rest is matched
// here. The kind is read from the value (the guard of a lease set holds
// leaseMarker, a rate log starts with rateMagic: what the lease and rate
// operations themselves go by), the size is the value's length (a lease
// set's guard only: its holders are keys of their own, outside the data
// prefix), the ttl its lease's TimeToLive, whole seconds, truncated, its
// last second 1 ms, as TTL reports it. Each call is one operation
// (Config.Timeout): up to scanPages ranges and scanLeases lookups,
// scanParallel at a time.
func (e *Engine) Scan(cursor, match string, count int, fn func(kv.KeyInfo)) (string, error) {
	if err := kv.CheckScan(match, count); err != nil {
		return "", err
	}
	from := e.dataPrefix
	if cursor != "" {
		last, err := cursorCoding.DecodeString(cursor)
		if err != nil || len(last) == 0 || len(last) > kv.MaxKeySize {
			return "", kv.ErrBadCursor
		}
		from = e.dataPrefix + string(last) + "\x00" // the first key after it
	}
	end := clientv3.GetPrefixRangeEnd(e.dataPrefix)
	if head := literalHead(match); head != "" {
		start := e.dataPrefix + head
		from = max(from, start)
		end = clientv3.GetPrefixRangeEnd(start)
	}
	if from >= end {
		return "", nil
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return "", err
	}
	defer cancel()

	page := int64(max(1, scanBytes/max(e.cfg.MaxValueSize, 1)))
	var (
		keys   []scanned
		leases = map[clientv3.LeaseID]bool{}
		next   string // the last key visited; "" once the range is done
		done   bool
	)
walk:
	for pages := 0; pages < scanPages && len(keys) < count; pages++ {
		r, err := cl.Get(ctx, from, clientv3.WithRange(end), clientv3.WithLimit(min(page, int64(count-len(keys)))))
		if err != nil {
			return "", e.fail("scan", err)
		}
		for _, item := range r.Kvs {
			id := clientv3.LeaseID(item.Lease)
			if id != clientv3.NoLease && !leases[id] {
				if len(leases) == scanLeases {
					break walk // next stays the last key taken
				}
				leases[id] = true
			}
			k := string(item.Key[len(e.dataPrefix):])
			next = k
			keys = append(keys, scanned{key: k, kind: kindOf(item.Value), size: int64(len(item.Value)), lease: id, created: item.CreateRevision})
		}
		if !r.More || len(r.Kvs) == 0 {
			done = true
			break
		}
		from = e.dataPrefix + next + "\x00"
	}

	left, err := e.leasesLeft(ctx, cl, leases)
	if err != nil {
		return "", err
	}
	var found []kv.KeyInfo
	for _, k := range keys {
		if !kv.Match(match, k.key) {
			continue
		}
		info := kv.KeyInfo{Key: k.key, Kind: k.kind, TTL: kv.TTLPersistent, Size: k.size, Fence: k.created}
		if k.lease != clientv3.NoLease {
			d, ok := left[k.lease]
			if !ok {
				// The lease went after the range: the key with it, or the
				// key was put on another one since. Read it again.
				var live bool
				if info, live, err = e.rescan(ctx, cl, k.key); err != nil {
					return "", err
				}
				if !live {
					continue
				}
			} else {
				info.TTL = d
			}
		}
		if info.Kind == kv.KindLeases {
			if info.Fence, err = e.highestHolder(ctx, cl, k.key); err != nil {
				return "", err
			}
		}
		found = append(found, info)
	}
	for _, k := range found {
		fn(k)
	}
	if done {
		return "", nil
	}
	return cursorCoding.EncodeToString([]byte(next)), nil
}

// literalHead is the part of a Redis glob before its first special byte:
// every key it matches starts with it.
func literalHead(match string) string {
	if i := strings.IndexAny(match, "*?[\\"); i >= 0 {
		return match[:i]
	}
	return match
}

// kindOf tells a lease set's guard and a rate log from a plain value, as
// their operations do (a plain value of those very bytes passes for
// one, as in the byte engines).
func kindOf(v []byte) kv.KeyKind {
	switch {
	case string(v) == leaseMarker:
		return kv.KindLeases
	case len(v) >= len(rateMagic) && string(v[:len(rateMagic)]) == rateMagic && (len(v)-len(rateMagic))%8 == 0:
		return kv.KindRateLog
	}
	return kv.KindValue
}

// leaseLeft is what TTL makes of a TimeToLive reply; gone: the lease is
// no more.
func leaseLeft(l *clientv3.LeaseTimeToLiveResponse) (left time.Duration, gone bool) {
	switch {
	case l.TTL > 0:
		return time.Duration(l.TTL) * time.Second, false
	case l.TTL == 0 || l.GrantedTTL > 0:
		// Its last second (etcd truncates), or expired and not yet
		// revoked: still there, never 0 (which means no expiry).
		return time.Millisecond, false
	}
	return 0, true
}

// leasesLeft looks up ids' time left, scanParallel at a time; a lease that
// is gone is left out.
func (e *Engine) leasesLeft(ctx context.Context, cl *clientv3.Client, ids map[clientv3.LeaseID]bool) (map[clientv3.LeaseID]time.Duration, error) {
	var (
		mu    sync.Mutex
		left  = make(map[clientv3.LeaseID]time.Duration, len(ids))
		first error
		wg    sync.WaitGroup
		slots = make(chan struct{}, scanParallel)
	)
	for id := range ids {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			l, err := cl.TimeToLive(ctx, id)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = e.fail("scan: lease ttl", err)
				}
				return
			}
			if d, gone := leaseLeft(l); !gone {
				left[id] = d
			}
		}()
	}
	wg.Wait()
	return left, first
}

// rescan reads key and its lease's time left again, as TTL does, for a key
// whose lease went between the range and the lookup; live false: the key
// is gone.
func (e *Engine) rescan(ctx context.Context, cl *clientv3.Client, key string) (kv.KeyInfo, bool, error) {
	for {
		g, err := cl.Get(ctx, e.dataKey(key))
		if err != nil {
			return kv.KeyInfo{}, false, e.fail("scan", err)
		}
		if len(g.Kvs) == 0 {
			return kv.KeyInfo{}, false, nil
		}
		v := g.Kvs[0]
		info := kv.KeyInfo{Key: key, Kind: kindOf(v.Value), TTL: kv.TTLPersistent, Size: int64(len(v.Value)), Fence: v.CreateRevision}
		id := clientv3.LeaseID(v.Lease)
		if id == clientv3.NoLease {
			return info, true, nil
		}
		l, err := cl.TimeToLive(ctx, id)
		if err != nil {
			return kv.KeyInfo{}, false, e.fail("scan: lease ttl", err)
		}
		var gone bool
		if info.TTL, gone = leaseLeft(l); !gone {
			return info, true, nil
		}
	}
}

// highestHolder is the fence of a lease set's newest live holder (the
// highest create revision among its holders; intents hold nothing), 0 when
// it has none or is no longer a lease set.
func (e *Engine) highestHolder(ctx context.Context, cl *clientv3.Client, name string) (int64, error) {
	s, err := e.readLeases(ctx, cl, name)
	if errors.Is(err, kv.ErrWrongType) {
		return 0, nil // written over since the range
	}
	if err != nil {
		return 0, err
	}
	var highest int64
	for _, h := range s.holders {
		highest = max(highest, h.createRev)
	}
	return highest, nil
}
