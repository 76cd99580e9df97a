package lincheck

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ephpm/ephpm-kv/kv"
)

// Recorder collects operations from many goroutines, timed on one
// monotonic clock.
type Recorder struct {
	base time.Time
	mu   sync.Mutex
	ops  []porcupine.Operation
}

// NewRecorder starts the clock.
func NewRecorder() *Recorder { return &Recorder{base: time.Now()} }

// Now is the recorder's clock in ns.
func (r *Recorder) Now() int64 { return int64(time.Since(r.base)) }

// Add records a finished operation; an unknown outcome gets return time
// MaxInt64 whatever Return says, since its effect may land later.
func (r *Recorder) Add(client int, in Input, out Output) {
	if out.Unknown {
		in.Return = math.MaxInt64
	}
	r.add(porcupine.Operation{ClientId: client, Input: in, Call: in.Call, Output: out, Return: in.Return})
}

func (r *Recorder) add(op porcupine.Operation) {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
}

// History returns the operations in call order.
func (r *Recorder) History() []porcupine.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := slices.Clone(r.ops)
	sort.SliceStable(h, func(i, j int) bool { return h[i].Call < h[j].Call })
	return h
}

// Client runs lock operations on one engine (one connection) and records
// them. An error other than kv.ErrUnavailable is returned as it is and not
// recorded: it is a bug or a misconfiguration, not an outcome.
type Client struct {
	ID  int
	E   kv.Engine
	Rec *Recorder
}

func (c *Client) run(in Input, f func() (Output, error)) (Output, error) {
	in.Call = c.Rec.Now()
	out, err := f()
	in.Return = c.Rec.Now()
	if err != nil {
		if !errors.Is(err, kv.ErrUnavailable) {
			return out, fmt.Errorf("%s: %w", describe(in, Output{Unknown: true}), err)
		}
		out = Output{Unknown: true}
	}
	c.Rec.Add(c.ID, in, out)
	return out, nil
}

// Acquire is SetNXFenced.
func (c *Client) Acquire(key, token string, ttl time.Duration) (Output, error) {
	return c.run(Input{Kind: Acquire, Key: key, Token: token, TTL: ttl}, func() (Output, error) {
		f, ok, err := c.E.SetNXFenced(key, []byte(token), ttl)
		return Output{OK: ok, Fence: f}, err
	})
}

// Release is DelIfEq.
func (c *Client) Release(key, token string) (Output, error) {
	return c.run(Input{Kind: Release, Key: key, Token: token}, func() (Output, error) {
		ok, err := c.E.DelIfEq(key, []byte(token))
		return Output{OK: ok}, err
	})
}

// Refresh is ExpireIfEq.
func (c *Client) Refresh(key, token string, ttl time.Duration) (Output, error) {
	return c.run(Input{Kind: Refresh, Key: key, Token: token, TTL: ttl}, func() (Output, error) {
		ok, err := c.E.ExpireIfEq(key, []byte(token), ttl)
		return Output{OK: ok}, err
	})
}

// Get reads the holder's token.
func (c *Client) Get(key string) (Output, error) {
	return c.run(Input{Kind: Get, Key: key}, func() (Output, error) {
		buf := make([]byte, 64)
		n, found, err := c.E.Get(key, buf)
		if err == nil && n > len(buf) {
			return Output{}, fmt.Errorf("value of %d bytes: not a token", n)
		}
		return Output{OK: found, Value: string(buf[:n])}, err
	})
}

// Owner is TTLIfEq: is the lock still ours.
func (c *Client) Owner(key, token string) (Output, error) {
	return c.run(Input{Kind: Owner, Key: key, Token: token}, func() (Output, error) {
		ttl, err := c.E.TTLIfEq(key, []byte(token))
		return Output{OK: ttl != kv.TTLMissing}, err
	})
}

// Fence is the fence check on resource.
func (c *Client) Fence(resource string, fence int64) (Output, error) {
	return c.run(Input{Kind: Fence, Key: resource, Fence: fence}, func() (Output, error) {
		ok, err := c.E.Fence(resource, fence)
		return Output{OK: ok}, err
	})
}

// Campaign is kv.Campaign for a leader whose campaign token is id,
// recorded as an Acquire whose token is the record it stored (term
// included): the token its resignation (Release), renewal (Refresh) and
// "still leader" (Owner) pass. An unknown outcome is recorded with no
// token: a holder nothing of this client's matches.
func (c *Client) Campaign(key, id string, ttl time.Duration) (Output, string, error) {
	in := Input{Kind: Acquire, Key: key, TTL: ttl, Call: c.Rec.Now()}
	term, rec, ok, err := kv.Campaign(c.E, key, []byte(id), []byte("leader "+id), ttl)
	in.Return = c.Rec.Now()
	out := Output{OK: ok, Fence: term}
	if err != nil {
		if !errors.Is(err, kv.ErrUnavailable) {
			return out, "", fmt.Errorf("%s: %w", describe(in, Output{Unknown: true}), err)
		}
		out = Output{Unknown: true}
	}
	in.Token = string(rec)
	c.Rec.Add(c.ID, in, out)
	return out, in.Token, nil
}

// Current is kv.CurrentLeader.
func (c *Client) Current(key string) (Output, error) {
	return c.run(Input{Kind: Current, Key: key}, func() (Output, error) {
		info, ok, err := kv.CurrentLeader(c.E, key)
		return Output{OK: ok, Fence: info.Term}, err
	})
}

// Result is a checked history.
type Result struct {
	Ops     int // operations checked
	Unknown int // of which maybe-happened
	Granted int // acquisitions granted
	Result  porcupine.CheckResult
	Info    porcupine.LinearizationInfo
	Took    time.Duration
}

// Linearizable reports whether the history passed.
func (r Result) Linearizable() bool { return r.Result == porcupine.Ok }

// Illegal reports a violation found (not a timeout).
func (r Result) Illegal() bool { return r.Result == porcupine.Illegal }

func (r Result) String() string {
	return fmt.Sprintf("%s: %d operations (%d maybe-happened, %d grants) checked in %v",
		r.Result, r.Ops, r.Unknown, r.Granted, r.Took.Round(time.Millisecond))
}

// Check checks history against the engine's promise; timeout 0 waits for
// the answer.
func Check(cfg Config, history []porcupine.Operation, timeout time.Duration) Result {
	r := Result{Ops: len(history)}
	for _, op := range history {
		out := op.Output.(Output)
		if out.Unknown {
			r.Unknown++
		} else if op.Input.(Input).Kind == Acquire && out.OK {
			r.Granted++
		}
	}
	m := cfg.model()
	start := time.Now()
	r.Result, r.Info = porcupine.CheckOperationsVerbose(m, withoutRepeatedReleases(withoutUnknownReads(history)), timeout)
	r.Took = time.Since(start)
	return r
}

// Verdict is a history checked in two parts that porcupine can search
// fast even with many maybe-happened calls: every guarantee with each key
// on its own (lock safety, per-key fence order, fence checks), and the
// fence order across each fence domain with the locks left out. One
// search over a whole engine-wide domain is exact too, but with tens of
// maybe-happened calls among thousands it can run for minutes. What the
// split gives up: that one order explains both parts at once.
type Verdict struct {
	Locks, Fences Result
}

// Linearizable reports whether both parts passed.
func (v Verdict) Linearizable() bool { return v.Locks.Linearizable() && v.Fences.Linearizable() }

// Illegal reports whether either part found a violation (not a timeout).
func (v Verdict) Illegal() bool {
	return v.Locks.Illegal() || v.Fences.Illegal()
}

func (v Verdict) String() string {
	return fmt.Sprintf("locks per key %v; fence order per domain %v", v.Locks, v.Fences)
}

// Parts returns the configurations Verify checks.
func (c Config) Parts() (locks, fences Config) {
	locks, fences = c, c
	locks.FenceDomain = PerKey
	fences.Guarantees = Guarantees{FenceOrder: c.Guarantees.FenceOrder}
	return locks, fences
}

// Verify checks history in the two parts of a Verdict.
func Verify(cfg Config, history []porcupine.Operation, timeout time.Duration) Verdict {
	locks, fences := cfg.Parts()
	return Verdict{Locks: Check(locks, history, timeout), Fences: Check(fences, history, timeout)}
}

// withoutUnknownReads drops reads whose outcome is unknown: they change
// nothing and accept any answer, so any history is linearizable with them
// exactly when it is without them, and each one left in, pending forever,
// would multiply porcupine's search.
func withoutUnknownReads(h []porcupine.Operation) []porcupine.Operation {
	out := make([]porcupine.Operation, 0, len(h))
	for _, op := range h {
		k := op.Input.(Input).Kind
		if op.Output.(Output).Unknown && (k == Get || k == Owner) {
			continue
		}
		out = append(out, op)
	}
	return out
}

// withoutRepeatedReleases keeps, of the releases of one token whose
// outcome is unknown, only the one called first. A token is one
// acquisition's, so its lock exists at most once and at most one release
// of it deletes anything: a history with them all is linearizable exactly
// when it is with the first alone (placed where the one that deleted was,
// since it was called no later). Each unknown release pends until the end
// of the history, and the retries a client makes through an outage (one
// every 100 ms) would multiply porcupine's search.
func withoutRepeatedReleases(h []porcupine.Operation) []porcupine.Operation {
	type lock struct{ key, token string }
	first := map[lock]int{} // index in h of the first-called unknown release
	for i, op := range h {
		in := op.Input.(Input)
		if in.Kind != Release || in.Token == "" || !op.Output.(Output).Unknown {
			continue
		}
		l := lock{in.Key, in.Token}
		if j, ok := first[l]; !ok || op.Call < h[j].Call {
			first[l] = i
		}
	}
	out := make([]porcupine.Operation, 0, len(h))
	for i, op := range h {
		in := op.Input.(Input)
		if in.Kind == Release && in.Token != "" && op.Output.(Output).Unknown && first[lock{in.Key, in.Token}] != i {
			continue
		}
		out = append(out, op)
	}
	return out
}

// Visualize writes porcupine's HTML view of a checked history (the longest
// partial linearizations and where they fail) to dir/name.html.
func Visualize(cfg Config, r Result, dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".html")
	return path, porcupine.VisualizePath(cfg.model(), r.Info, path)
}
