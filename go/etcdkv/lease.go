package etcdkv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ephpm/ephpm-kv/kv"
)

// Leases (read/write locks, semaphores) on etcd. A name's lease set is
// several keys, so that each holder expires on its own etcd lease, on the
// server's clock, with nobody's clock compared:
//
//   - the guard, at the name's own key (prefix+"k/"+name), holds leaseMarker:
//     what plain ops see (Get, Exists, TTL, Del, Expire act on it), what
//     marks the name as a lease set (a plain value there is kv.ErrWrongType),
//     and what serializes writers: every lease write compares its mod
//     revision with the one its decision read, and puts it;
//   - each holder is a key base+"h"+token (each intent base+"i"+token, base
//     per name under prefix+"l/") holding its mode, on an etcd lease that
//     covers its ttl (shared with other keys, see leasebook.go): etcd
//     deletes it when the ttl runs out.
//
// A holder belongs to the guard it was created under: one whose create
// revision is below the guard's (or with no guard) is stale, as if gone,
// and is deleted by a later write. So Del (or an Expire that ran out) of the
// name frees every holder at once, as a Del of a store's lease set would,
// without the plain ops knowing about holders. The guard's etcd lease always
// runs out after every entry's (see guardOn), so it never strands a live
// holder.
//
// The fence of a grant is the holder key's create revision, the granting
// transaction's revision: etcd's one revision counter, which SetNXFenced's
// fences come from too. A re-acquire or a renew puts the same key, which
// keeps its create revision: same fence.

var (
	_ kv.Leases      = (*Engine)(nil)
	_ kv.RateLimiter = (*Engine)(nil)
)

// leaseMarker is the guard's value (magic 'L', version 1). A plain value
// with these very bytes passes for a lease set, as in the byte engines.
const leaseMarker = "L\x01"

const (
	holderKind = 'h'
	intentKind = 'i'
	// holderVersion is the first byte of a holder's value, its mode the
	// second.
	holderVersion = 1
	// staleBatch bounds the stale entries one write deletes.
	staleBatch = 64
	// shortName is the length up to which names are spelt out in their holders'
	// keys; longer ones are hashed, so that 1024 holders of a 64 KiB name
	// are not a 64 MiB read.
	shortName = 200
)

// leaseBase is the prefix of name's holder and intent keys. The length
// (two hex digits) or the '~' of a hashed name keeps one name's base from
// being a prefix of another's.
func (e *Engine) leaseBase(name string) string {
	if len(name) <= shortName {
		return fmt.Sprintf("%sl/%02x%s/", e.cfg.Prefix, len(name), name)
	}
	sum := sha256.Sum256([]byte(name))
	return e.cfg.Prefix + "l/~" + hex.EncodeToString(sum[:]) + "/"
}

// leaseEntry is a live holder or intent.
type leaseEntry struct {
	key       string
	mode      kv.LeaseMode
	createRev int64
	lease     clientv3.LeaseID
}

// leaseSet is a name's lease set as read at one revision.
type leaseSet struct {
	guardKey, base string
	guardRev       int64 // the guard's mod revision; 0: no guard
	guardLease     clientv3.LeaseID
	holders        map[string]leaseEntry // by token
	intents        map[string]leaseEntry
	stale          []string // keys of entries from an earlier guard
	entryLeases    map[clientv3.LeaseID]bool
}

// readLeases reads name's guard and entries in one read-only transaction
// (one revision, linearizable). A guard holding anything but leaseMarker
// is kv.ErrWrongType.
func (e *Engine) readLeases(ctx context.Context, cl *clientv3.Client, name string) (*leaseSet, error) {
	s := &leaseSet{guardKey: e.dataKey(name), base: e.leaseBase(name),
		holders: map[string]leaseEntry{}, intents: map[string]leaseEntry{}, entryLeases: map[clientv3.LeaseID]bool{}}
	r, err := cl.Txn(ctx).Then(clientv3.OpGet(s.guardKey), clientv3.OpGet(s.base, clientv3.WithPrefix())).Commit()
	if err != nil {
		return nil, e.fail("lease read", err)
	}
	guardCreated := int64(1<<63 - 1) // no guard: every entry is stale
	if g := r.Responses[0].GetResponseRange().Kvs; len(g) > 0 {
		if string(g[0].Value) != leaseMarker {
			return nil, fmt.Errorf("%w: %q", kv.ErrWrongType, name)
		}
		s.guardRev, s.guardLease, guardCreated = g[0].ModRevision, clientv3.LeaseID(g[0].Lease), g[0].CreateRevision
	}
	for _, item := range r.Responses[1].GetResponseRange().Kvs {
		k := string(item.Key)
		rest := k[len(s.base):]
		if item.CreateRevision < guardCreated {
			s.stale = append(s.stale, k)
			continue
		}
		if len(rest) < 2 || len(item.Value) != 2 || item.Value[0] != holderVersion {
			continue
		}
		ent := leaseEntry{key: k, mode: kv.LeaseMode(item.Value[1]), createRev: item.CreateRevision, lease: clientv3.LeaseID(item.Lease)}
		s.entryLeases[clientv3.LeaseID(item.Lease)] = true
		switch rest[0] {
		case holderKind:
			s.holders[rest[1:]] = ent
		case intentKind:
			s.intents[rest[1:]] = ent
		}
	}
	return s, nil
}

func (s *leaseSet) holderKey(token []byte) string { return s.base + string(holderKind) + string(token) }
func (s *leaseSet) intentKey(token []byte) string { return s.base + string(intentKind) + string(token) }

// staleOwn reports whether one of token's keys is stale. Putting it would keep
// its old create revision (a wrong fence, and stale again to the next read),
// and etcd takes no delete and put of one key in one transaction, so such a
// key is deleted first, by a write of its own (cleanStale).
func (s *leaseSet) staleOwn(token []byte) bool {
	for _, k := range s.stale {
		if k == s.holderKey(token) || k == s.intentKey(token) {
			return true
		}
	}
	return false
}

// unchanged is the compare every lease write makes: the guard is as read
// (a missing key's mod revision compares as 0), so no other lease write
// came in between (each puts the guard), and no plain write either.
func (s *leaseSet) unchanged() clientv3.Cmp {
	return clientv3.Compare(clientv3.ModRevision(s.guardKey), "=", s.guardRev)
}

// same is the comparison that key is still the entry read (it did not expire
// meanwhile), or is still absent.
func same(key string, ent leaseEntry, ok bool) clientv3.Cmp {
	if !ok {
		ent.createRev = 0
	}
	return clientv3.Compare(clientv3.CreateRevision(key), "=", ent.createRev)
}

// staleDeletes deletes stale entries: token's own (nil: none), and up to
// staleBatch others, as etcd refuses a transaction of more than
// --max-txn-ops (128 by default) operations. The others are invisible
// anyway, and expire on their leases.
func (s *leaseSet) staleDeletes(token []byte) []clientv3.Op {
	var ops []clientv3.Op
	for _, k := range s.stale {
		if len(ops) < staleBatch || (token != nil && (k == s.holderKey(token) || k == s.intentKey(token))) {
			ops = append(ops, clientv3.OpDelete(k))
		}
	}
	return ops
}

// cleanStale deletes the stale entries read, token's first, while the
// guard is as read (no entry was recreated since: that takes a lease
// write, which puts the guard).
func (e *Engine) cleanStale(ctx context.Context, cl *clientv3.Client, s *leaseSet, token []byte) error {
	if _, err := cl.Txn(ctx).If(s.unchanged()).Then(s.staleDeletes(token)...).Commit(); err != nil {
		return e.fail("lease cleanup", err)
	}
	return nil
}

// guardOn is how the guard is put so that it lives as long as every entry
// (the others, which it outlived, and the one this write puts, on lease
// ent): its own lease when that surely outlives ent, else ent when that
// surely outlives the guard's, else (the two end within a round trip of
// each other) a lease that outlives both. A leader change renews every
// lease to its whole ttl; the guard then still ends after every entry's
// first expiry, so no holder is lost sooner than its ttl.
func (e *Engine) guardOn(ctx context.Context, cl *clientv3.Client, s *leaseSet, ent sharedLease) (clientv3.OpOption, error) {
	g := s.guardLease
	switch {
	case s.guardRev == 0: // a new guard
		return clientv3.WithLease(ent.id), nil
	case g == ent.id:
		return clientv3.WithIgnoreLease(), nil
	case !isShared(g):
		return e.guardOverAll(ctx, cl, s, ent.hi)
	}
	gs, err := e.spanOf(ctx, cl, g)
	if err != nil {
		return nil, err
	}
	switch {
	case !gs.lo.Before(ent.hi):
		return clientv3.WithIgnoreLease(), nil
	case !ent.lo.Before(gs.hi):
		return clientv3.WithLease(ent.id), nil
	}
	end := gs.hi
	if ent.hi.After(end) {
		end = ent.hi
	}
	both, err := e.sharedFor(ctx, cl, time.Until(end))
	if err != nil {
		return nil, err
	}
	return clientv3.WithLease(both.id), nil
}

// guardShrunk is the guard of a write that shortens token's holder (to
// end at end) or removes it (end zero), its intent too when dropIntent:
// guardOn only ever lengthens the guard's lease, so without this the key
// would outlive its last entry by the longer ttl that entry had, and a
// plain SetNX of the name (a Symfony writer) be refused with nobody
// holding it. The guard keeps its lease (keep) while the other entries
// may need it, else it moves to one that ends after them (the slack keeps
// a renewal of a similar ttl from moving it every time).
func (e *Engine) guardShrunk(ctx context.Context, cl *clientv3.Client, s *leaseSet, token []byte, dropIntent bool, end time.Time, keep clientv3.OpOption) (clientv3.OpOption, error) {
	if s.guardRev == 0 || !isShared(s.guardLease) {
		return keep, nil
	}
	gs, err := e.spanOf(ctx, cl, s.guardLease)
	if err != nil {
		return nil, err
	}
	others := func(m map[string]leaseEntry, skip bool) error {
		for tok, ent := range m {
			if skip && tok == string(token) || ent.lease == clientv3.NoLease {
				continue
			}
			sp, err := e.spanOf(ctx, cl, ent.lease)
			if err != nil {
				return err
			}
			if sp.hi.After(end) {
				end = sp.hi
			}
		}
		return nil
	}
	if err := errors.Join(others(s.holders, true), others(s.intents, dropIntent)); err != nil {
		return nil, err
	}
	left := time.Until(end)
	if left <= 0 || !gs.lo.After(end.Add(left/64+2*time.Second)) {
		return keep, nil
	}
	l, err := e.sharedFor(ctx, cl, left)
	if err != nil {
		return nil, err
	}
	return clientv3.WithLease(l.id), nil
}

// guardOverAll puts a guard whose lease a plain Persist or Expire set (none,
// or one not shared), which may end before the entries or never, on a
// lease that outlives every entry read and end: as on the other engines, a
// lease write makes the key's expiry its latest entry's again. Rare, so
// the entries' leases are looked up (once each, then in the book).
func (e *Engine) guardOverAll(ctx context.Context, cl *clientv3.Client, s *leaseSet, end time.Time) (clientv3.OpOption, error) {
	for id := range s.entryLeases {
		if id == clientv3.NoLease {
			continue
		}
		sp, err := e.spanOf(ctx, cl, id)
		if err != nil {
			return nil, err
		}
		if sp.hi.After(end) {
			end = sp.hi
		}
	}
	if !end.After(time.Now()) {
		return nil, nil // nothing left to cover
	}
	all, err := e.sharedFor(ctx, cl, time.Until(end))
	if err != nil {
		return nil, err
	}
	return clientv3.WithLease(all.id), nil
}

// conflict waits a little before the next try of a write another one beat
// (less contention, without a fixed rhythm), or returns the deadline's
// error: a decision that cannot be made in time is kv.ErrUnavailable,
// never a refusal.
func (e *Engine) conflict(ctx context.Context, what string, try int) error {
	e.conflicts.Add(1)
	d := time.Duration(rand.Int64N(int64(min(try+1, 20)) * int64(time.Millisecond)))
	select {
	case <-ctx.Done():
		return e.fail(what, fmt.Errorf("gave up after %d conflicting writes: %w", try+1, ctx.Err()))
	case <-time.After(d):
		return nil
	}
}

// view is s as token sees it, for kv.DecideLease.
func (s *leaseSet) view(token []byte) kv.LeaseView {
	v := kv.LeaseView{Others: int64(len(s.holders)), OthersIntents: int64(len(s.intents))}
	if me, ok := s.holders[string(token)]; ok {
		v.Held, v.Others = me.mode, v.Others-1
	}
	if _, ok := s.intents[string(token)]; ok {
		v.Intends, v.OthersIntents = true, v.OthersIntents-1
	}
	for t, h := range s.holders {
		v.OtherExclusive = v.OtherExclusive || h.mode == kv.LeaseExclusive && t != string(token)
	}
	return v
}

// LeaseAcquire implements kv.Leases: read the set, decide, then one
// transaction that applies the decision if the guard is still as read;
// tried again when another write came in between, until the timeout
// (kv.ErrUnavailable, never a refusal). A refusal writes nothing, except
// a writer's intent.
func (e *Engine) LeaseAcquire(key string, token []byte, mode kv.LeaseMode, limit int64, ttl, intent time.Duration) (int64, bool, error) {
	if err := errors.Join(kv.CheckKey(key), kv.CheckLease(token, mode, limit, ttl, intent)); err != nil {
		return 0, false, err
	}
	intent = min(intent, ttl)
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return 0, false, err
	}
	defer cancel()
	for try := 0; ; try++ {
		s, err := e.readLeases(ctx, cl, key)
		if err != nil {
			return 0, false, err
		}
		if s.staleOwn(token) {
			if err := e.cleanStale(ctx, cl, s, token); err != nil {
				return 0, false, err
			}
			continue
		}
		hk, ik := s.holderKey(token), s.intentKey(token)
		me, holds := s.holders[string(token)]
		mine, intends := s.intents[string(token)]
		step, err := kv.DecideLease(s.view(token), mode, limit, intent)
		if err != nil {
			return 0, false, err
		}
		var (
			ops     []clientv3.Op
			cmps    = []clientv3.Cmp{s.unchanged()}
			ent     sharedLease
			granted = step != kv.LeaseRefuse && step != kv.LeaseIntend
		)
		switch step {
		case kv.LeaseRenew, kv.LeaseChange, kv.LeaseGrant:
			if ent, err = e.sharedFor(ctx, cl, ttl); err != nil {
				return 0, false, err
			}
			cmps = append(cmps, same(hk, me, holds))
			ops = append(ops, clientv3.OpPut(hk, string([]byte{holderVersion, byte(mode)}), clientv3.WithLease(ent.id)))
			if intends { // the grant replaces the intent
				cmps = append(cmps, same(ik, mine, true))
				ops = append(ops, clientv3.OpDelete(ik))
			}
		case kv.LeaseIntend:
			if ent, err = e.sharedFor(ctx, cl, intent); err != nil {
				return 0, false, err
			}
			cmps = append(cmps, same(ik, mine, intends))
			ops = append(ops, clientv3.OpPut(ik, string([]byte{holderVersion, byte(kv.LeaseExclusive)}), clientv3.WithLease(ent.id)))
		default:
			return 0, false, nil
		}
		guard, err := e.guardOn(ctx, cl, s, ent)
		if err == nil && granted && holds {
			guard, err = e.guardShrunk(ctx, cl, s, token, true, ent.hi, guard)
		}
		if err != nil {
			return 0, false, err
		}
		ops = append(ops, clientv3.OpPut(s.guardKey, leaseMarker, guard))
		ops = append(ops, s.staleDeletes(nil)...)
		r, err := cl.Txn(ctx).If(cmps...).Then(ops...).Commit()
		if e.lostLease(err) {
			continue
		}
		if err != nil {
			return 0, false, e.fail("lease acquire", err)
		}
		switch {
		case !r.Succeeded:
			if err := e.conflict(ctx, "lease acquire", try); err != nil {
				return 0, false, err
			}
		case !granted:
			return 0, false, nil
		case holds:
			return me.createRev, true, nil
		default:
			return r.Header.Revision, true, nil
		}
	}
}

// LeaseRelease implements kv.Leases: token's holder and intent deleted in
// one transaction, with the guard when nothing else is left (else the
// guard is put, as every lease write does, and keeps its lease unless it
// would outlive the entries left by more than a little: guardShrunk).
func (e *Engine) LeaseRelease(key string, token []byte) (bool, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	for try := 0; ; try++ {
		s, err := e.readLeases(ctx, cl, key)
		if err != nil {
			return false, err
		}
		me, holds := s.holders[string(token)]
		mine, intends := s.intents[string(token)]
		if !holds && !intends {
			return false, nil
		}
		cmps := []clientv3.Cmp{s.unchanged()}
		var ops []clientv3.Op
		left := len(s.holders) + len(s.intents)
		if holds {
			cmps = append(cmps, same(me.key, me, true))
			ops = append(ops, clientv3.OpDelete(me.key))
			left--
		}
		if intends {
			cmps = append(cmps, same(mine.key, mine, true))
			ops = append(ops, clientv3.OpDelete(mine.key))
			left--
		}
		if left == 0 {
			ops = append(ops, clientv3.OpDelete(s.guardKey))
		} else {
			guard := clientv3.WithIgnoreLease()
			if !isShared(s.guardLease) {
				if guard, err = e.guardOverAll(ctx, cl, s, time.Time{}); err != nil {
					return false, err
				}
				if guard == nil {
					guard = clientv3.WithIgnoreLease()
				}
			} else if guard, err = e.guardShrunk(ctx, cl, s, token, true, time.Time{}, guard); err != nil {
				return false, err
			}
			ops = append(ops, clientv3.OpPut(s.guardKey, leaseMarker, guard))
		}
		ops = append(ops, s.staleDeletes(nil)...)
		r, err := cl.Txn(ctx).If(cmps...).Then(ops...).Commit()
		if err != nil {
			return false, e.fail("lease release", err)
		}
		if r.Succeeded {
			return holds, nil
		}
		if err := e.conflict(ctx, "lease release", try); err != nil {
			return false, err
		}
	}
}

// LeaseRenew implements kv.Leases: token's holder put again (same mode,
// same create revision, so same fence) on a lease of ttl.
func (e *Engine) LeaseRenew(key string, token []byte, ttl time.Duration) (bool, error) {
	if err := kv.CheckLeaseRenew(key, token, ttl); err != nil {
		return false, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return false, err
	}
	defer cancel()
	for try := 0; ; try++ {
		s, err := e.readLeases(ctx, cl, key)
		if err != nil {
			return false, err
		}
		me, holds := s.holders[string(token)]
		if !holds {
			return false, nil
		}
		ent, err := e.sharedFor(ctx, cl, ttl)
		if err != nil {
			return false, err
		}
		guard, err := e.guardOn(ctx, cl, s, ent)
		if err == nil {
			guard, err = e.guardShrunk(ctx, cl, s, token, false, ent.hi, guard)
		}
		if err != nil {
			return false, err
		}
		r, err := cl.Txn(ctx).
			If(s.unchanged(), same(me.key, me, true)).
			Then(clientv3.OpPut(me.key, string([]byte{holderVersion, byte(me.mode)}), clientv3.WithLease(ent.id)),
				clientv3.OpPut(s.guardKey, leaseMarker, guard)).
			Commit()
		if e.lostLease(err) {
			continue
		}
		if err != nil {
			return false, e.fail("lease renew", err)
		}
		if r.Succeeded {
			return true, nil
		}
		if err := e.conflict(ctx, "lease renew", try); err != nil {
			return false, err
		}
	}
}

// LeaseCount implements kv.Leases: one read.
func (e *Engine) LeaseCount(key string) (int64, error) {
	if err := kv.CheckKey(key); err != nil {
		return 0, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return 0, err
	}
	defer cancel()
	s, err := e.readLeases(ctx, cl, key)
	if err != nil {
		return 0, err
	}
	return int64(len(s.holders)), nil
}

// LeaseTTL implements kv.Leases: reads only, no write (so no consensus
// round): the set, then the TimeToLive of the etcd lease token's holder key
// is on. That is whole seconds (etcd truncates), and a shared lease's
// (leasebook.go), so it may exceed the ttl asked by up to a second or a
// 64th of it, as the holder itself may; its last second reads as 1 ms,
// never 0, as TTL's does.
func (e *Engine) LeaseTTL(key string, token []byte) (time.Duration, error) {
	if err := kv.CheckLeaseHolder(key, token); err != nil {
		return 0, err
	}
	cl, ctx, cancel, err := e.op()
	if err != nil {
		return 0, err
	}
	defer cancel()
	for {
		s, err := e.readLeases(ctx, cl, key)
		if err != nil {
			return 0, err
		}
		me, holds := s.holders[string(token)]
		if !holds {
			return kv.TTLMissing, nil
		}
		if me.lease == clientv3.NoLease {
			// Holders are always put on a lease: this one was not.
			return 0, e.fail("lease ttl", fmt.Errorf("holder %q has no etcd lease", me.key))
		}
		l, err := cl.TimeToLive(ctx, me.lease)
		if err != nil {
			return 0, e.fail("lease ttl", err)
		}
		switch {
		case l.TTL > 0:
			return time.Duration(l.TTL) * time.Second, nil
		case l.TTL == 0 || l.GrantedTTL > 0:
			return time.Millisecond, nil
		}
		// The lease is gone, its holder with it (or put on another lease
		// after the read): read again.
	}
}
