package kv

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Leader election, composed of SetNXFenced and SetIfEq so it runs on every
// engine. The election's key holds one leader record for the leader's
// ttl:
//
//	'L' | version | token length (uint16) | 4 bytes zero | term (int64) | token | value
//
// (little-endian). A campaign is SetNXFenced of the record with term 0,
// then SetIfEq of the same record with the fence as its term: the fence
// comes from the engine-wide counter under the insert's lock, so a later
// leadership always has a larger term, and it is stamped before Campaign
// returns. A record with term 0 is a campaign between its two steps (or
// one killed there, which blocks the election for its ttl as a killed
// leader does): nobody leads yet. The stamped record is the leader's
// token: resign is DelIfEq, renewal ExpireIfEq, "still leader" TTLIfEq,
// as for a lock.

// LeaderOverhead is a leader record's size besides its token and value.
const LeaderOverhead = 16

const (
	leaderMagic   = 'L'
	leaderVersion = 1
)

// LeaderRecord encodes a leader record.
func LeaderRecord(term int64, token, value []byte) []byte {
	rec := make([]byte, LeaderOverhead, LeaderOverhead+len(token)+len(value))
	rec[0], rec[1] = leaderMagic, leaderVersion
	binary.LittleEndian.PutUint16(rec[2:], uint16(len(token)))
	binary.LittleEndian.PutUint64(rec[8:], uint64(term))
	return append(append(rec, token...), value...)
}

// ParseLeaderRecord decodes a leader record; false when rec is not one.
func ParseLeaderRecord(rec []byte) (term int64, token, value []byte, ok bool) {
	if len(rec) < LeaderOverhead || rec[0] != leaderMagic || rec[1] != leaderVersion {
		return 0, nil, nil, false
	}
	n := int(binary.LittleEndian.Uint16(rec[2:]))
	if len(rec) < LeaderOverhead+n {
		return 0, nil, nil, false
	}
	term = int64(binary.LittleEndian.Uint64(rec[8:]))
	return term, rec[LeaderOverhead : LeaderOverhead+n], rec[LeaderOverhead+n:], true
}

// Campaign makes token (1 to MaxLeaseToken bytes, new for each campaign)
// the leader of key with value for ttl (> 0) when nobody leads it. Elected,
// it returns the term and the record now stored under key, which the
// leader passes as the token of ExpireIfEq, DelIfEq and TTLIfEq.
func Campaign(e Engine, key string, token, value []byte, ttl time.Duration) (term int64, rec []byte, elected bool, err error) {
	if err := CheckLeaseHolder(key, token); err != nil {
		return 0, nil, false, err
	}
	if err := CheckLeaseTTL(ttl); err != nil {
		return 0, nil, false, err
	}
	pending := LeaderRecord(0, token, value)
	fence, ok, err := e.SetNXFenced(key, pending, ttl)
	if err != nil || !ok {
		return 0, nil, false, err
	}
	rec = LeaderRecord(fence, token, value)
	stamped, err := e.SetIfEq(key, rec, pending, ttl)
	if err != nil {
		// Not stamped, or not known to be: give the election back.
		e.DelIfEq(key, pending)
		return 0, nil, false, err
	}
	if !stamped { // the ttl ran out between the two steps
		return 0, nil, false, nil
	}
	return fence, rec, true, nil
}

// LeaderInfo is who leads an election.
type LeaderInfo struct {
	Value     []byte
	Term      int64
	Remaining time.Duration
}

// CurrentLeader reads key's leader; false when nobody leads (no record,
// or a campaign not stamped yet). ErrWrongType when key holds something
// else.
func CurrentLeader(e Engine, key string) (LeaderInfo, bool, error) {
	rec, found, err := getAll(e, key)
	if err != nil || !found {
		return LeaderInfo{}, false, err
	}
	term, _, value, ok := ParseLeaderRecord(rec)
	if !ok {
		return LeaderInfo{}, false, fmt.Errorf("%w: %q is not a leader election", ErrWrongType, key)
	}
	if term == 0 {
		return LeaderInfo{}, false, nil
	}
	left, err := e.TTLIfEq(key, rec)
	if err != nil || left == TTLMissing {
		return LeaderInfo{}, false, err // resigned or expired since the read
	}
	return LeaderInfo{Value: value, Term: term, Remaining: left}, true, nil
}

// getAll reads key's whole value through Get's buffer protocol.
func getAll(e Engine, key string) ([]byte, bool, error) {
	buf := make([]byte, 512)
	for {
		n, found, err := e.Get(key, buf)
		if err != nil || !found {
			return nil, false, err
		}
		if n <= len(buf) {
			return buf[:n], true, nil
		}
		buf = make([]byte, n)
	}
}
