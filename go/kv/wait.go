package kv

import "time"

// changeWaiter sleeps between a composition's reads of a key: on the
// engine's release wake-up where it has one (the segment's futex words
// wake it at any change of the key), else by polling, 2 ms doubling to
// 50 ms.
type changeWaiter struct {
	e    Engine
	key  string
	poll time.Duration
}

func newChangeWaiter(e Engine, key string) *changeWaiter {
	return &changeWaiter{e: e, key: key, poll: 2 * time.Millisecond}
}

// wait returns when the key may have changed, or after at most d.
func (w *changeWaiter) wait(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if rw, ok := w.e.(ReleaseWaiter); ok {
		_, err := rw.WaitRelease(w.key, d)
		return err
	}
	time.Sleep(min(d, w.poll))
	w.poll = min(2*w.poll, 50*time.Millisecond)
	return nil
}
