package lincheck

import (
	"math"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// h builds hand-written histories: times in ns, unknown outcomes with an
// infinite return as the Recorder writes them.
type h []porcupine.Operation

func (x *h) add(client int, call, ret int64, in Input, out Output) {
	in.Call, in.Return = call, ret
	if out.Unknown {
		in.Return = math.MaxInt64
	}
	*x = append(*x, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: in.Return})
}

func acq(key, token string) Input {
	return Input{Kind: Acquire, Key: key, Token: token, TTL: time.Hour}
}
func acqTTL(key, token string, ttl time.Duration) Input {
	return Input{Kind: Acquire, Key: key, Token: token, TTL: ttl}
}
func rel(key, token string) Input     { return Input{Kind: Release, Key: key, Token: token} }
func fence(key string, f int64) Input { return Input{Kind: Fence, Key: key, Fence: f} }
func granted(f int64) Output          { return Output{OK: true, Fence: f} }

var (
	yes     = Output{OK: true}
	no      = Output{}
	unknown = Output{Unknown: true}
)

func expect(t *testing.T, name string, cfg Config, hist h, ok bool) {
	t.Helper()
	r := Check(cfg, hist, 10*time.Second)
	if r.Linearizable() != ok {
		t.Errorf("%s: %v, want linearizable=%v", name, r, ok)
	}
}

var exact = Config{Guarantees: All}

func TestCorrectConcurrentHistoryPasses(t *testing.T) {
	var x h
	x.add(0, 0, 10, acq("k", "a"), granted(100))
	x.add(1, 5, 15, acq("k", "b"), no) // concurrent with a's grant: placed after it
	x.add(0, 11, 12, fence("k", 100), yes)
	x.add(2, 11, 40, Input{Kind: Get, Key: "k"}, Output{OK: true, Value: "a"})
	x.add(0, 13, 20, Input{Kind: Refresh, Key: "k", Token: "a", TTL: time.Hour}, yes)
	x.add(0, 21, 30, rel("k", "a"), yes)
	x.add(1, 25, 35, acq("k", "b"), granted(101)) // overlaps the release: placed after it
	x.add(1, 36, 37, Input{Kind: Owner, Key: "k", Token: "b"}, yes)
	x.add(0, 36, 38, Input{Kind: Owner, Key: "k", Token: "a"}, no)
	x.add(1, 38, 39, fence("k", 101), yes)
	x.add(0, 39, 41, fence("k", 100), no) // stale: b's fence was seen
	x.add(0, 42, 43, rel("k", "a"), no)   // late release of a lost lock deletes nothing
	x.add(1, 44, 45, rel("k", "b"), yes)
	x.add(2, 46, 47, Input{Kind: Get, Key: "k"}, no)
	expect(t, "correct history", exact, x, true)
}

func TestDoubleGrantIsViolation(t *testing.T) {
	var x h
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 20, 30, acq("k", "b"), granted(2))
	expect(t, "two holders", exact, x, false)
	// Concurrent grants are two holders too: no order makes both right.
	x = nil
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 0, 10, acq("k", "b"), granted(2))
	expect(t, "two concurrent holders", exact, x, false)
	// An engine that may lose its locks is only held to its fences.
	x = nil
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 20, 30, acq("k", "b"), granted(2))
	expect(t, "two holders, locks not promised", Config{Guarantees: Guarantees{FenceOrder: true}}, x, true)
}

func TestFenceGoingBackwardsIsViolation(t *testing.T) {
	var x h
	x.add(0, 0, 10, acq("k", "a"), granted(5))
	x.add(0, 11, 12, rel("k", "a"), yes)
	x.add(1, 20, 30, acq("k", "b"), granted(3))
	expect(t, "same key", exact, x, false)
	expect(t, "same key, locks not promised", Config{Guarantees: Guarantees{FenceOrder: true}}, x, false)

	// Two keys: backwards across keys breaks an engine-wide counter,
	// not per-key fences; concurrent acquisitions may come in either order.
	x = nil
	x.add(0, 0, 10, acq("k1", "a"), granted(5))
	x.add(1, 20, 30, acq("k2", "b"), granted(3))
	expect(t, "engine-wide", exact, x, false)
	expect(t, "per key", Config{FenceDomain: PerKey, Guarantees: All}, x, true)
	x = nil
	x.add(0, 0, 10, acq("k1", "a"), granted(5))
	x.add(1, 5, 30, acq("k2", "b"), granted(3))
	expect(t, "engine-wide, concurrent", exact, x, true)

	// Redis Cluster: one counter per hash tag.
	x = nil
	x.add(0, 0, 10, acq("{s1}lock", "a"), granted(5))
	x.add(1, 20, 30, acq("{s1}data", "b"), granted(3))
	expect(t, "same hash tag", Config{FenceDomain: HashTag, Guarantees: All}, x, false)
	x = nil
	x.add(0, 0, 10, acq("{s1}lock", "a"), granted(5))
	x.add(1, 20, 30, acq("{s2}lock", "b"), granted(3))
	expect(t, "other hash tag", Config{FenceDomain: HashTag, Guarantees: All}, x, true)

	// A fence equal to the last one is not "greater".
	x = nil
	x.add(0, 0, 10, acq("k1", "a"), granted(5))
	x.add(1, 20, 30, acq("k2", "b"), granted(5))
	expect(t, "repeated fence", exact, x, false)
}

func TestFenceCheckAcceptingStaleFenceIsViolation(t *testing.T) {
	var x h
	x.add(0, 0, 10, fence("r", 5), yes)
	x.add(1, 20, 30, fence("r", 3), yes)
	expect(t, "stale accepted", exact, x, false)
	x = nil
	x.add(0, 0, 10, fence("r", 5), yes)
	x.add(1, 20, 30, fence("r", 3), no)
	x.add(1, 31, 32, fence("r", 5), yes) // equal to the highest: still current
	expect(t, "stale refused", exact, x, true)
	x = nil
	x.add(0, 0, 10, fence("r", 5), yes)
	x.add(1, 5, 30, fence("r", 3), yes) // concurrent: may have come first
	expect(t, "concurrent", exact, x, true)
}

func TestReleaseOfSomeoneElsesLockIsViolation(t *testing.T) {
	var x h
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 20, 30, rel("k", "b"), yes)
	expect(t, "b deletes a's lock", exact, x, false)

	// The seeds' scenario: a overruns a 100 ns TTL, b takes the expired
	// lock, a's late release must not delete b's.
	x = nil
	x.add(0, 0, 10, acqTTL("k", "a", 100), granted(1))
	x.add(1, 200, 210, acqTTL("k", "b", time.Hour), granted(2))
	x.add(0, 300, 310, rel("k", "a"), yes)
	expect(t, "blind delete after expiry", exact, x, false)
	x[2].Output = no
	expect(t, "compare-and-delete after expiry", exact, x, true)
}

func TestExpiryIsPlacedByTheTimestamps(t *testing.T) {
	// a's 100 ns lock, acquired within [0, 10], ends within [100, 110+slack].
	for _, c := range []struct {
		name      string
		call, ret int64
		ok        bool
	}{
		{"before the window: still live", 50, 60, false},
		{"ends just before it can have expired", 90, 99, false},
		{"overlapping the window: either", 95, 105, true},
		{"after the window", 111, 120, true},
	} {
		var x h
		x.add(0, 0, 10, acqTTL("k", "a", 100), granted(1))
		x.add(1, c.call, c.ret, acq("k", "b"), granted(2))
		expect(t, c.name, exact, x, c.ok)
	}
	// Refused after the window: the lock cannot still be held.
	var x h
	x.add(0, 0, 10, acqTTL("k", "a", 100), granted(1))
	x.add(1, 200, 210, acq("k", "b"), no)
	expect(t, "refused after expiry", exact, x, false)
	// Slack widens the window (the server rounds TTLs up to 1 ms).
	expect(t, "refused within slack", Config{Slack: time.Microsecond, Guarantees: All}, x, true)
	// A refresh moves the deadline.
	x = nil
	x.add(0, 0, 10, acqTTL("k", "a", 100), granted(1))
	x.add(0, 50, 60, Input{Kind: Refresh, Key: "k", Token: "a", TTL: 100}, yes)
	x.add(1, 130, 140, acq("k", "b"), no)
	expect(t, "refreshed", exact, x, true)
	// TTL 0 never expires.
	x = nil
	x.add(0, 0, 10, acqTTL("k", "a", 0), granted(1))
	x.add(1, 1e12, 1e12+10, acq("k", "b"), granted(2))
	expect(t, "no expiry", exact, x, false)
}

// A call that timed out may land after its caller gave up (a request
// waiting in a stopped server's socket runs when it resumes). Only an
// infinite return time lets the checker place it there.
func TestMaybeHappenedNeedsAnInfiniteReturn(t *testing.T) {
	build := func(aReturn int64, aOut Output) h {
		var x h
		x.add(0, 0, 10, acq("k", "a"), aOut) // timed out at 10
		if !aOut.Unknown || aReturn != math.MaxInt64 {
			x[0].Return, x[0].Input = aReturn, Input{Kind: Acquire, Key: "k", Token: "a", TTL: time.Hour, Call: 0, Return: aReturn}
		}
		x.add(1, 20, 30, acq("k", "b"), granted(2))
		x.add(1, 40, 50, rel("k", "b"), yes)
		x.add(2, 60, 70, acq("k", "c"), no) // a's acquisition landed after b's release
		x.add(2, 71, 72, Input{Kind: Get, Key: "k"}, Output{OK: true, Value: "a"})
		return x
	}
	expect(t, "unknown, infinite return", exact, build(math.MaxInt64, unknown), true)
	expect(t, "unknown, return at the timeout", exact, build(10, unknown), false)
	expect(t, "timeout taken for a refusal", exact, build(10, no), false)

	// The maybe-happened call may also never happen: placed last.
	var x h
	x.add(0, 0, 10, acq("k", "a"), unknown)
	x.add(1, 20, 30, acq("k", "b"), granted(2))
	x.add(1, 40, 50, Input{Kind: Get, Key: "k"}, Output{OK: true, Value: "b"})
	expect(t, "unknown that never happened", exact, x, true)
	// But it cannot make an impossible history possible.
	x = append(x[:0:0], x...)
	x.add(2, 60, 70, acq("k", "c"), granted(3))
	expect(t, "unknown cannot excuse a double grant", exact, x, false)
	// A grant after a maybe-happened grant needs a fence above the one
	// the unknown call would have taken.
	x = nil
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(0, 11, 12, rel("k", "a"), yes)
	x.add(1, 20, 30, acq("k", "b"), unknown)
	x.add(1, 40, 50, rel("k", "b"), yes) // so b's acquisition happened, before this
	x.add(2, 60, 70, acq("k", "c"), granted(2))
	expect(t, "fence 2 after an unknown grant above 1", exact, x, false)
	x[4].Output = granted(3)
	expect(t, "fence 3 after an unknown grant above 1", exact, x, true)
}

// An engine that takes back its lost acquisitions (LostUndone): one seen
// held (by a read, or a refusal) may then be gone long before its TTL,
// and its late release find nothing. Without the flag that is a lock lost.
// Known grants keep their TTL either way.
func TestLostUndone(t *testing.T) {
	undoes := Config{Guarantees: All, LostUndone: true}
	var x h
	x.add(0, 0, 10, acq("k", "a"), unknown)
	x.add(1, 20, 30, acq("k", "b"), no) // refused: a's acquisition happened
	x.add(2, 31, 32, Input{Kind: Get, Key: "k"}, Output{OK: true, Value: "a"})
	x.add(1, 40, 50, acq("k", "b"), granted(2)) // undone by now, long before a's hour
	x.add(0, 60, 70, rel("k", "a"), no)         // the late give-back finds nothing
	expect(t, "undone lost acquisition, held to its TTL", exact, x, false)
	expect(t, "undone lost acquisition", undoes, x, true)
	x = nil
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 20, 30, acq("k", "b"), granted(2))
	expect(t, "a known grant is never undone", undoes, x, false)
}

func TestReadsSeeTheHolder(t *testing.T) {
	var x h
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 20, 30, Input{Kind: Get, Key: "k"}, Output{OK: true, Value: "b"})
	expect(t, "get sees another token", exact, x, false)
	x = nil
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 20, 30, Input{Kind: Owner, Key: "k", Token: "a"}, no)
	expect(t, "holder told it lost the lock", exact, x, false)
	x = nil
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 20, 30, Input{Kind: Refresh, Key: "k", Token: "b", TTL: time.Hour}, yes)
	expect(t, "another token renews", exact, x, false)
}

func TestHashTag(t *testing.T) {
	for in, want := range map[string]string{
		"{user1}:lock": "user1", "a{b}c{d}": "b", "{}x": "{}x", "x{": "x{", "plain": "plain", "a{}{b}": "a{}{b}",
	} {
		if got := HashTag(in); got != want {
			t.Errorf("HashTag(%q) = %q, want %q", in, got, want)
		}
	}
}

// An acquisition whose caller never learned its token (Ephpm\Lock::acquire
// threw) may hold the lock with a value only reads see.
func TestUnknownTokenIsSeenByReadsOnly(t *testing.T) {
	var x h
	x.add(0, 0, 10, acq("k", ""), unknown)
	x.add(1, 20, 30, Input{Kind: Get, Key: "k"}, Output{OK: true, Value: "f00d"})
	x.add(1, 31, 32, acq("k", "b"), no)
	expect(t, "read of the unknown token", exact, x, true)
	x.add(1, 40, 50, rel("k", ""), yes)
	expect(t, "nobody releases it", exact, x, false)
}

// Reads that timed out are left out of the search; the rest of the
// history is still checked.
func TestUnknownReadsAreDropped(t *testing.T) {
	var x h
	x.add(0, 0, 10, acq("k", "a"), granted(1))
	x.add(1, 20, 30, Input{Kind: Get, Key: "k"}, unknown)
	x.add(1, 20, 30, Input{Kind: Owner, Key: "k", Token: "a"}, unknown)
	expect(t, "unknown reads", exact, x, true)
	if n := len(withoutUnknownReads(x)); n != 1 {
		t.Errorf("%d operations kept, want 1", n)
	}
	x.add(1, 40, 50, acq("k", "b"), granted(2))
	expect(t, "unknown reads and a double grant", exact, x, false)
}

// A client retries a release through an outage: of the unknown releases
// of one token only the first-called one is searched, and the verdict is
// the one the whole history gets.
func TestRepeatedUnknownReleasesAreOne(t *testing.T) {
	var x h
	x.add(0, 0, 10, acq("k", "a"), unknown)
	x.add(0, 30, 0, rel("k", "a"), unknown) // the first-called one, recorded last
	x.add(0, 20, 0, rel("k", "a"), unknown)
	x.add(0, 40, 0, rel("k", "a"), unknown)
	x.add(0, 50, 55, rel("k", "a"), no)
	x.add(1, 60, 65, acq("k", "b"), granted(2))
	x.add(2, 70, 75, Input{Kind: Get, Key: "k"}, Output{OK: true, Value: "b"})
	kept := withoutRepeatedReleases(x)
	var calls []int64
	for _, op := range kept {
		if in := op.Input.(Input); in.Kind == Release && op.Output.(Output).Unknown {
			calls = append(calls, op.Call)
		}
	}
	if len(kept) != len(x)-2 || len(calls) != 1 || calls[0] != 20 {
		t.Errorf("kept %d of %d operations, unknown releases called at %v: want the one at 20", len(kept), len(x), calls)
	}
	whole := func(x h) bool { return porcupine.CheckOperations(exact.model(), []porcupine.Operation(x)) }
	expect(t, "retried releases", exact, x, true)
	if !whole(x) {
		t.Error("the whole history is not linearizable")
	}
	x.add(2, 80, 85, acq("k", "c"), granted(3)) // b still holds it
	expect(t, "retried releases and a double grant", exact, x, false)
	if whole(x) {
		t.Error("the whole history with a double grant is linearizable")
	}
}

// A maybe-happened call may take effect at any time after its call, but
// not before the calls placed ahead of it: placed between two grants, it
// cannot see the first one's lock expired an hour later and so explain the
// second. (The model once took its view of expiry from the call's own
// interval, which for a maybe-happened call runs to the end of time.)
func TestMaybeHappenedCallDoesNotSeeTheFuture(t *testing.T) {
	var x h
	x.add(0, 20, 0, rel("k", "a"), unknown)
	x.add(1, 60, 65, acq("k", "b"), granted(2))
	x.add(2, 80, 85, acq("k", "c"), granted(3))
	expect(t, "double grant beside a pending release", exact, x, false)
	var y h
	y.add(0, 20, 0, Input{Kind: Refresh, Key: "k", Token: "a", TTL: time.Hour}, unknown)
	y.add(1, 60, 65, acqTTL("k", "b", 100), granted(2))
	y.add(2, 80, 85, Input{Kind: Get, Key: "k"}, Output{})
	expect(t, "b's lock gone 15 ns after its 100 ns TTL", exact, y, false)
	y = y[:2]
	y.add(2, 200, 210, Input{Kind: Get, Key: "k"}, Output{})
	expect(t, "b's lock gone after its TTL", exact, y, true)
}
