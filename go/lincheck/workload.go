package lincheck

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Opener returns client i's engine: its own connection to the backend, as
// each PHP process has its own. How a backend plugs into the harness.
type Opener func(client int) (kv.Engine, error)

// Workload is lock traffic: each client takes a random key, checks its
// fence, maybe reads and renews, holds it a while and releases it.
type Workload struct {
	Clients  int
	Keys     []string
	Duration time.Duration
	TTL      time.Duration // of every acquisition and refresh
	Hold     time.Duration // a holder keeps the lock up to this long
	// Overrun is the share of holders that keep the lock past its TTL
	// before releasing (a paused or slow holder): handover by expiry.
	Overrun float64
	// Idle is the most a client waits after a refusal before trying again.
	Idle time.Duration
	// Leader runs leader elections instead of locks: kv.Campaign for the
	// acquisition, kv.CurrentLeader for the read.
	Leader bool
}

func (w Workload) withDefaults() Workload {
	if w.Clients == 0 {
		w.Clients = 8
	}
	if len(w.Keys) == 0 {
		w.Keys = []string{"lock:a", "lock:b", "lock:c"}
	}
	if w.Duration == 0 {
		w.Duration = 2 * time.Second
	}
	if w.TTL == 0 {
		w.TTL = time.Hour // never reached: exact lock safety
	}
	if w.Hold == 0 {
		w.Hold = 2 * time.Millisecond
	}
	if w.Idle == 0 {
		w.Idle = time.Millisecond
	}
	return w
}

// Run runs the workload until its duration or ctx ends, recording into
// rec. Unknown outcomes are expected (faults); any other error ends the
// run and is returned.
func Run(ctx context.Context, open Opener, w Workload, rec *Recorder) error {
	w = w.withDefaults()
	return runClients(ctx, open, w.Clients, w.Duration, func(ctx context.Context, i int, e kv.Engine) error {
		return w.client(ctx, &Client{ID: i, E: e, Rec: rec})
	})
}

// runClients runs n clients, each on its own engine from open, for d or
// until ctx ends; the first error ends them all.
func runClients(ctx context.Context, open Opener, n int, d time.Duration, client func(ctx context.Context, i int, e kv.Engine) error) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		e, err := open(i)
		if err != nil {
			return fmt.Errorf("client %d: %w", i, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer closeEngine(e)
			errs[i] = client(ctx, i, e)
			if errs[i] != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func closeEngine(e kv.Engine) {
	if c, ok := e.(interface{ Close() error }); ok {
		c.Close()
	}
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d)) + 1)
}

func (w Workload) client(ctx context.Context, c *Client) error {
	for seq := 0; ctx.Err() == nil; seq++ {
		key := w.Keys[rand.IntN(len(w.Keys))]
		token := fmt.Sprintf("c%d.%d", c.ID, seq)
		var (
			out Output
			err error
		)
		if w.Leader {
			out, token, err = c.Campaign(key, token, w.TTL)
		} else {
			out, err = c.Acquire(key, token, w.TTL)
		}
		switch {
		case err != nil:
			return err
		case out.Unknown && w.Leader:
			continue // its record is unknown: it runs out with its ttl
		case out.Unknown:
			// It may have been granted: give it back by its token,
			// which deletes nothing of anyone else's.
			if err := w.giveBack(ctx, c, key, token); err != nil {
				return err
			}
			continue
		case !out.OK:
			if rand.IntN(4) == 0 {
				read := c.Get
				if w.Leader {
					read = c.Current
				}
				if _, err := read(key); err != nil {
					return err
				}
			}
			sleep(ctx, jitter(w.Idle))
			continue
		}
		if _, err := c.Fence(key, out.Fence); err != nil {
			return err
		}
		if rand.IntN(2) == 0 {
			if _, err := c.Owner(key, token); err != nil {
				return err
			}
		}
		hold := jitter(w.Hold)
		if rand.Float64() < w.Overrun {
			hold = w.TTL + jitter(w.TTL)
		}
		sleep(ctx, hold)
		if rand.IntN(3) == 0 {
			if _, err := c.Refresh(key, token, w.TTL); err != nil {
				return err
			}
		}
		if err := w.giveBack(ctx, c, key, token); err != nil {
			return err
		}
	}
	return nil
}

// giveBack releases until the answer is known, or the run ends.
func (w Workload) giveBack(ctx context.Context, c *Client, key, token string) error {
	for {
		out, err := c.Release(key, token)
		if err != nil || !out.Unknown {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		sleep(ctx, 100*time.Millisecond) // each unknown try widens the checker's search
	}
}
