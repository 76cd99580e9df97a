package kv

import "time"

// LeaseIntent marks a writer's intent where a lease set's entry keeps its
// mode, in the engines that keep a set in one record (the map, so the
// server's snapshots, and the shared segment). It is not a mode
// LeaseAcquire accepts.
const LeaseIntent LeaseMode = 4

// LeaseView is a lease set as one token sees it, its expired entries left
// out: what LeaseAcquire's decision depends on.
type LeaseView struct {
	Held           LeaseMode // token's live lease; 0: none (an intent is not a lease)
	Intends        bool      // token has a live writer's intent
	Others         int64     // live leases of other tokens
	OthersIntents  int64     // live intents of other tokens
	OtherExclusive bool      // another token holds the key exclusively
}

// LeaseStep is what LeaseAcquire does to a set.
type LeaseStep uint8

const (
	LeaseRefuse LeaseStep = iota // change nothing; not granted
	LeaseRenew                   // token holds in mode: new expiry, same fence
	LeaseChange                  // promotion or demotion: new mode and expiry, same fence
	LeaseGrant                   // a new lease with a new fence, replacing token's intent
	LeaseIntend                  // not granted; record (or refresh) token's intent
)

// DecideLease is LeaseAcquire's rule, one for every engine that decides in
// Go (Redis decides in its Lua, pinned to the same behaviour by kvtest).
// The arguments are checked (CheckLease). The error is ErrTooManyHolders,
// never a refusal: no wait would end it.
func DecideLease(v LeaseView, mode LeaseMode, limit int64, intent time.Duration) (LeaseStep, error) {
	var ok bool
	switch {
	case v.Held == mode:
		return LeaseRenew, nil // whatever the others hold
	case mode == LeaseExclusive:
		ok = v.Others == 0
	case mode == LeaseShared:
		// Another token's intent keeps new readers out (writer
		// preference); a holder may demote.
		ok = !v.OtherExclusive && (v.Held != 0 || v.OthersIntents == 0)
	case mode == LeasePermit:
		ok = !v.OtherExclusive && v.Others < limit // never beside another's writer
	}
	switch {
	case ok && v.Held != 0:
		return LeaseChange, nil
	case ok && v.Others >= MaxLeaseHolders:
		return LeaseRefuse, ErrTooManyHolders
	case ok:
		return LeaseGrant, nil
	case mode != LeaseExclusive || intent <= 0 || v.Held != 0:
		// A refused promotion records no intent: one entry per token.
		return LeaseRefuse, nil
	case !v.Intends && v.OthersIntents >= MaxLeaseHolders:
		return LeaseRefuse, ErrTooManyHolders
	}
	return LeaseIntend, nil
}
