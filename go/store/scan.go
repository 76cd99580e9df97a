package store

import (
	"encoding/hex"
	"hash/maphash"
	"slices"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Scan implements kv.Scanner. The map has no order to resume from, so the
// walk goes in the order of a hash of the keys (seeded per store): the
// cursor is the last hash reported, and each call ranges over the whole
// map for the count keys of the next hashes. O(keys) a call: enough for a
// status page or a CLI over a store of a few hundred thousand keys.
func (s *Store) Scan(cursor, match string, count int, fn func(kv.KeyInfo)) (string, error) {
	if err := kv.CheckScan(match, count); err != nil {
		return "", err
	}
	var after uint64
	if cursor != "" {
		b, err := hex.DecodeString(cursor)
		if err != nil || len(b) != 8 {
			return "", kv.ErrBadCursor
		}
		for _, c := range b {
			after = after<<8 | uint64(c)
		}
	}
	type found struct {
		h   uint64
		key string
		it  *item
	}
	// The count smallest hashes above the cursor, kept sorted.
	next := make([]found, 0, count)
	s.m.Range(func(key string, it *item) bool {
		h := maphash.String(s.scanSeed, key)
		if cursor != "" && h <= after {
			return true
		}
		if len(next) == count && h >= next[count-1].h {
			return true
		}
		i, _ := slices.BinarySearchFunc(next, h, func(f found, h uint64) int {
			switch {
			case f.h < h:
				return -1
			case f.h > h:
				return 1
			}
			return 0
		})
		if len(next) == count {
			next = next[:count-1]
		}
		next = slices.Insert(next, i, found{h, key, it})
		return true
	})
	now := nanotime()
	for _, f := range next {
		if f.it.expiredAt(now) || !kv.Match(match, f.key) {
			continue
		}
		fn(s.infoOf(f.key, f.it, now))
	}
	if len(next) < count {
		return "", nil
	}
	h := next[len(next)-1].h
	var b [8]byte
	for i := range b {
		b[i] = byte(h >> (56 - 8*i))
	}
	return hex.EncodeToString(b[:]), nil
}

// KeyInfo is one key as Scan reports it; false when it is absent or
// expired. A read that counts no hit (the server's TYPE).
func (s *Store) KeyInfo(key string) (kv.KeyInfo, bool, error) {
	if err := kv.CheckKey(key); err != nil {
		return kv.KeyInfo{}, false, err
	}
	it, ok := s.m.Load(key)
	now := nanotime()
	if !ok || it.expiredAt(now) {
		return kv.KeyInfo{}, false, nil
	}
	return s.infoOf(key, it, now), true, nil
}

// infoOf describes key's item it; a lease set's or rate log's length
// changes in place, so it is read under the bucket lock.
func (s *Store) infoOf(key string, it *item, now int64) kv.KeyInfo {
	info := kv.KeyInfo{Key: key, Kind: kv.KindValue, TTL: kv.TTLPersistent}
	switch {
	case it.kind == kindLease:
		info.Kind = kv.KindLeases
	case it.kind == kindRate:
		info.Kind = kv.KindRateLog
	case it.evictable:
		info.Kind = kv.KindEvictable
	}
	if it.inPlace() {
		s.underLock(key, func() { info.Size = int64(it.plainLen) })
	} else {
		info.Size = int64(it.plainLen)
	}
	if d := it.deadline.Load(); d != 0 {
		info.TTL = time.Duration(d - now)
	}
	if it.kind == kindLease {
		s.underLock(key, func() { info.Fence = highestLiveFence(it, now) })
	} else {
		info.Fence = it.fenceOf()
	}
	return info
}
