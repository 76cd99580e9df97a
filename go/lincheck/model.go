package lincheck

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Kind is a lock operation.
type Kind uint8

const (
	Acquire Kind = iota + 1 // SetNXFenced(key, token, ttl) -> OK (acquired), Fence
	Release                 // DelIfEq(key, token) -> OK (deleted)
	Refresh                 // ExpireIfEq(key, token, ttl) -> OK (renewed)
	Get                     // Get(key) -> OK (found), Value
	Owner                   // TTLIfEq(key, token) -> OK (live and holds token)
	Fence                   // Fence(key as the resource, Input.Fence) -> OK (not stale)
	// Current is kv.CurrentLeader(key) -> OK (a leader), Fence (its term).
	// It may report none while a campaign is between its two steps (the
	// insert and the term's stamp), so only what it reports is checked: a
	// live holder with that term.
	Current
)

var kindNames = [...]string{"?", "acquire", "release", "refresh", "get", "owner", "fence", "current"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Input is one call. Call and Return repeat the operation's times (ns on
// the recorder's clock) because the model needs them to place expiry.
type Input struct {
	Kind Kind
	Key  string // the lock's key; Fence: the resource
	// Token is "" on an Acquire whose caller never learned it (Ephpm\Lock
	// makes the token inside acquire(), which threw): a holder no release
	// matches and whose value any read may see.
	Token  string
	TTL    time.Duration // Acquire, Refresh; 0: no expiry
	Fence  int64         // Fence's argument
	Call   int64
	Return int64 // math.MaxInt64 when the outcome is unknown
}

// Output is what the call returned.
type Output struct {
	Unknown bool // kv.ErrUnavailable: may or may not have happened
	OK      bool
	Fence   int64  // Acquire: the fence granted
	Value   string // Get: the value found
}

// Guarantees selects what the model holds the engine to.
type Guarantees struct {
	// Locks checks the locks: one holder per key, only the holder releases or
	// renews, reads see the holder. Off for an engine that may lose its locks
	// (a single server killed without durable state): then only fences are
	// checked and every lock outcome is accepted.
	Locks bool
	// FenceOrder checks that a granted fence is above every fence granted
	// before it (in the same fence domain).
	FenceOrder bool
	// FenceChecks checks that Fence(resource, f) is true exactly when f is at
	// least every fence recorded for resource before.
	FenceChecks bool
}

// All is every guarantee: what a correct engine without faults gives.
var All = Guarantees{Locks: true, FenceOrder: true, FenceChecks: true}

// Config is the engine's promise.
type Config struct {
	// FenceDomain maps a key to the group of keys whose acquisitions
	// share one increasing fence counter; the history is checked one
	// domain at a time. EngineWide (nil) for ephpm-kv's engines, PerKey
	// for etcd-style per-key revisions if only those are promised,
	// HashTag for Redis Cluster (a counter per hash slot's tag).
	FenceDomain func(key string) string
	// Slack is how much later than its call's return an expiry deadline
	// may fall: TTLs rounded up to the engine's unit (1 ms on a server),
	// lease expiry checked periodically (etcd), clocks of other hosts.
	Slack      time.Duration
	Guarantees Guarantees
	// LostUndone says the engine takes back its acquisitions whose outcome
	// was unknown (etcd revokes such an attempt's lease): one that
	// happened may end at any time, not only at its TTL or a release.
	LostUndone bool
}

// EngineWide puts every key in one fence domain.
func EngineWide(string) string { return "" }

// PerKey gives every key its own fence domain.
func PerKey(key string) string { return key }

// HashTag is Redis Cluster's slot rule: the part between the first { and
// the next } when that is not empty, else the whole key.
func HashTag(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			return key[i+1 : i+1+j]
		}
	}
	return key
}

// holder is a held lock. Its deadline lies in [lo, hi]; forever: lo = hi =
// MaxInt64.
type holder struct {
	key, token string
	lo, hi     int64
	fence      int64 // granted with; 0: unknown
}

// seen is the highest fence Fence recorded for a resource.
type seen struct {
	resource string
	fence    int64
}

// state is one fence domain. Never modified: Step returns new states.
type state struct {
	locks []holder // by key
	seen  []seen   // by resource
	fence int64    // a lower bound on the highest fence granted so far
	now   int64    // a lower bound on the time of the last op placed, set by expiry
}

func (c Config) domain(key string) string {
	if c.FenceDomain == nil {
		return ""
	}
	return c.FenceDomain(key)
}

func satAdd(a int64, d time.Duration) int64 {
	if a > math.MaxInt64-int64(d) {
		return math.MaxInt64
	}
	return a + int64(d)
}

// deadline is where a TTL set by a call in [call, ret] ends.
func (c Config) deadline(in Input, ttl time.Duration) (lo, hi int64) {
	if ttl <= 0 {
		return math.MaxInt64, math.MaxInt64
	}
	lo = satAdd(in.Call, ttl)
	if in.Return == math.MaxInt64 {
		return lo, math.MaxInt64
	}
	return lo, satAdd(satAdd(in.Return, ttl), c.Slack)
}

func (s state) find(key string) (int, bool) {
	return slices.BinarySearchFunc(s.locks, key, func(h holder, k string) int { return strings.Compare(h.key, k) })
}

// views returns the states this call may have seen for its key: the lock
// live, expired (removed), or either. The call takes effect at some point
// in [max(now, Call), Return]: no earlier than the calls placed before it,
// whatever its own interval, which for a maybe-happened call runs to the
// end of time. Seeing the lock expired moves now to the deadline's
// earliest when that is past the call, so no call placed later may return
// before it. (Porcupine itself places no call after one that returned
// before it was made: now only records what expiry adds to that.)
func (s state) views(in Input) []state {
	t := max(s.now, in.Call)
	if t > in.Return {
		return nil // placed after an expiry it can only have preceded
	}
	i, ok := s.find(in.Key)
	if !ok {
		return []state{s}
	}
	h := s.locks[i]
	forever := h.lo == math.MaxInt64 && h.hi == math.MaxInt64
	var out []state
	if forever || t < h.hi {
		out = append(out, s)
	}
	if at := max(t, h.lo); !forever && at <= in.Return {
		g := s.without(i)
		if h.lo > in.Call {
			g.now = max(s.now, h.lo)
		}
		out = append(out, g)
	}
	return out
}

func (s state) without(i int) state {
	n := s
	n.locks = slices.Delete(slices.Clone(s.locks), i, i+1)
	return n
}

func (s state) with(h holder) state {
	n := s
	i, ok := s.find(h.key)
	n.locks = slices.Clone(s.locks)
	if ok {
		n.locks[i] = h
	} else {
		n.locks = slices.Insert(n.locks, i, h)
	}
	return n
}

// step applies one call to a state that already reflects expiry at the
// call; ok false: the engine cannot have answered that from this state.
func (c Config) step(s state, in Input, out Output) (state, bool) {
	g := c.Guarantees
	i, held := s.find(in.Key)
	mine := held && in.Token != "" && s.locks[i].token == in.Token
	switch in.Kind {
	case Acquire:
		if g.Locks && held {
			return s, out.Unknown || !out.OK
		}
		if !out.Unknown && !out.OK {
			return s, !g.Locks // a free lock refused: only an engine that lost it
		}
		if !g.Locks && out.Unknown {
			return s, true // granted or refused, unknown: no constraint on later fences
		}
		n := s
		if g.Locks {
			lo, hi := c.deadline(in, in.TTL)
			if out.Unknown && c.LostUndone {
				lo = in.Call // gone whenever it is undone
			}
			fence := out.Fence
			if out.Unknown {
				fence = 0
			}
			n = s.with(holder{in.Key, in.Token, lo, hi, fence})
		}
		if out.Unknown {
			n.fence = s.fence + 1 // granted here: its fence, unknown, is above the last
			return n, true
		}
		if g.FenceOrder && out.Fence <= s.fence {
			return s, false
		}
		n.fence = max(s.fence, out.Fence)
		return n, true
	case Release:
		switch {
		case !g.Locks:
			return s, true
		case !out.Unknown && out.OK != mine:
			return s, false
		case mine:
			return s.without(i), true
		}
		return s, true
	case Refresh:
		switch {
		case !g.Locks:
			return s, true
		case !mine:
			return s, out.Unknown || !out.OK
		case !out.Unknown && !out.OK:
			return s, false
		}
		lo, hi := c.deadline(in, in.TTL)
		return s.with(holder{in.Key, in.Token, lo, hi, s.locks[i].fence}), true
	case Get:
		if !g.Locks || out.Unknown {
			return s, true
		}
		if out.OK != held {
			return s, false
		}
		return s, !held || s.locks[i].token == out.Value || s.locks[i].token == ""
	case Owner:
		return s, !g.Locks || out.Unknown || out.OK == mine
	case Current:
		if !g.Locks || out.Unknown || !out.OK {
			return s, true
		}
		return s, held && (s.locks[i].fence == 0 || s.locks[i].fence == out.Fence)
	case Fence:
		if !g.FenceChecks {
			return s, true
		}
		j, ok := slices.BinarySearchFunc(s.seen, in.Key, func(x seen, r string) int { return strings.Compare(x.resource, r) })
		highest := int64(math.MinInt64)
		if ok {
			highest = s.seen[j].fence
		}
		fresh := in.Fence >= highest
		if !out.Unknown && out.OK != fresh {
			return s, false
		}
		if !fresh {
			return s, true
		}
		n := s
		n.seen = slices.Clone(s.seen)
		if ok {
			n.seen[j].fence = in.Fence
		} else {
			n.seen = slices.Insert(n.seen, j, seen{in.Key, in.Fence})
		}
		return n, true
	}
	panic(fmt.Sprintf("lincheck: unknown operation %v", in.Kind))
}

func (c Config) nondeterministic() porcupine.NondeterministicModel {
	return porcupine.NondeterministicModel{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			byDomain := map[string][]porcupine.Operation{}
			var order []string
			for _, op := range h {
				d := c.domain(op.Input.(Input).Key)
				if _, ok := byDomain[d]; !ok {
					order = append(order, d)
				}
				byDomain[d] = append(byDomain[d], op)
			}
			parts := make([][]porcupine.Operation, 0, len(order))
			for _, d := range order {
				parts = append(parts, byDomain[d])
			}
			return parts
		},
		Init: func() []any { return []any{state{}} },
		Step: func(st, in, out any) []any {
			var next []any
			for _, v := range st.(state).views(in.(Input)) {
				if n, ok := c.step(v, in.(Input), out.(Output)); ok {
					next = append(next, n)
				}
			}
			return next
		},
		Equal: func(a, b any) bool {
			x, y := a.(state), b.(state)
			return x.fence == y.fence && x.now == y.now && slices.Equal(x.locks, y.locks) && slices.Equal(x.seen, y.seen)
		},
		Hash: func(a any) uint64 {
			s := a.(state)
			h := fnv.New64a()
			fmt.Fprint(h, s.fence, " ", s.now)
			for _, l := range s.locks {
				fmt.Fprint(h, l.key, "\x00", l.token, "\x00", l.lo, l.hi)
			}
			for _, f := range s.seen {
				fmt.Fprint(h, f.resource, "\x00", f.fence)
			}
			return h.Sum64()
		},
		DescribeOperation: func(in, out any) string { return describe(in.(Input), out.(Output)) },
		DescribeState: func(a any) string {
			s := a.(state)
			var b strings.Builder
			fmt.Fprintf(&b, "fence>=%d", s.fence)
			for _, l := range s.locks {
				fmt.Fprintf(&b, " %s=%s", l.key, l.token)
			}
			for _, f := range s.seen {
				fmt.Fprintf(&b, " seen[%s]=%d", f.resource, f.fence)
			}
			return b.String()
		},
	}
}

// model is the power-set construction of the nondeterministic model.
func (c Config) model() porcupine.Model {
	m := c.nondeterministic()
	return m.ToModel()
}

func describe(in Input, out Output) string {
	var args string
	switch in.Kind {
	case Acquire, Refresh:
		args = fmt.Sprintf("%s, %s, %v", in.Key, in.Token, in.TTL)
	case Release, Owner:
		args = fmt.Sprintf("%s, %s", in.Key, in.Token)
	case Get, Current:
		args = in.Key
	case Fence:
		args = fmt.Sprintf("%s, %d", in.Key, in.Fence)
	}
	var res string
	switch {
	case out.Unknown:
		res = "unknown"
	case in.Kind == Acquire && out.OK:
		res = fmt.Sprintf("granted, fence %d", out.Fence)
	case in.Kind == Get && out.OK:
		res = out.Value
	case in.Kind == Get:
		res = "absent"
	case in.Kind == Current && out.OK:
		res = fmt.Sprintf("leader, term %d", out.Fence)
	case in.Kind == Current:
		res = "none"
	default:
		res = fmt.Sprint(out.OK)
	}
	return fmt.Sprintf("%s(%s) -> %s", in.Kind, args, res)
}
