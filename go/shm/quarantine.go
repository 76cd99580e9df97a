package shm

import (
	"errors"
	"fmt"
)

// A record whose checksum fails was changed after it was written: no
// death does that (a record is complete before it is published), only a
// stray write of a process attached to the segment. Its lengths are
// already held to its block (find passes by one that does not fit), so
// what a read checks is the checksum, which covers the lengths too.
//
// Such a record is quarantined where it is: flagged, kept in its chain
// and counted, never read again. It still holds its key until it expires
// or a write replaces it, so a corrupt lock record gives no second holder
// before its TTL, and a release by its holder fails loudly. Verify reports
// it; repair keeps it.

// ErrCorrupt means a stored record failed its checksum and was quarantined.
var ErrCorrupt = errors.New("shm: a stored record is corrupt")

// flagQuarantined marks a record a read found corrupt. Set in place, so
// the checksum no longer matches it either way.
const flagQuarantined = 0x40

// intact reports whether the record at off may be read: not quarantined,
// and its checksum good. On a corrupt one it quarantines it (the caller
// holds its stripe) and returns the error naming key.
func (e *Engine) intact(st *stripe, off uint64, r *record, key string) error {
	if r.flags&flagQuarantined == 0 && r.sum == e.checksum(off, r) {
		return nil
	}
	e.quarantine(st, r)
	return corruptError(key)
}

// quarantine flags r (in stripe st's chains) as corrupt, once.
func (e *Engine) quarantine(st *stripe, r *record) {
	if r.flags&flagQuarantined == 0 {
		r.flags |= flagQuarantined
		st.quarantined++
	}
}

func corruptError(key string) error {
	return fmt.Errorf("%w: the record of key %q fails its checksum (something wrote into the segment); "+
		"it is quarantined: unreadable, holding its key until it expires, is overwritten or deleted", ErrCorrupt, key)
}

// matches compares token with the record's value, as equal does. Only a
// mismatch pays for the checksum: a match is the holder's own token, and
// what it goes on to do (delete, renew) reads nothing else; a mismatch
// may be the corruption, which must not pass for "someone else holds it".
func (e *Engine) matches(st *stripe, off uint64, r *record, key string, token []byte) (bool, error) {
	if r.flags&flagQuarantined == 0 && e.equal(off, r, token) {
		return true, nil
	}
	return false, e.intact(st, off, r, key)
}
