package kv

import (
	"errors"
	"testing"
	"time"
)

// The rule as the three Go engines applied it before it was one function:
// kvtest's lease tests pin each engine to it, this pins its corners.
func TestDecideLease(t *testing.T) {
	const limit = 3
	for _, c := range []struct {
		name   string
		v      LeaseView
		mode   LeaseMode
		intent time.Duration
		want   LeaseStep
		err    error
	}{
		{"free writer", LeaseView{}, LeaseExclusive, 0, LeaseGrant, nil},
		{"writer beside a reader", LeaseView{Others: 1}, LeaseExclusive, 0, LeaseRefuse, nil},
		{"writer records its intent", LeaseView{Others: 1}, LeaseExclusive, time.Second, LeaseIntend, nil},
		{"writer refreshes its intent", LeaseView{Others: 1, Intends: true}, LeaseExclusive, time.Second, LeaseIntend, nil},
		{"writer whose intent waited", LeaseView{Intends: true}, LeaseExclusive, time.Second, LeaseGrant, nil},
		{"renewal beside another's writer", LeaseView{Held: LeaseShared, Others: 1, OtherExclusive: true}, LeaseShared, 0, LeaseRenew, nil},
		{"sole reader promotes", LeaseView{Held: LeaseShared}, LeaseExclusive, time.Second, LeaseChange, nil},
		{"refused promotion records no intent", LeaseView{Held: LeaseShared, Others: 1}, LeaseExclusive, time.Second, LeaseRefuse, nil},
		{"writer demotes past an intent", LeaseView{Held: LeaseExclusive, OthersIntents: 1}, LeaseShared, 0, LeaseChange, nil},
		{"new reader waits for an intent", LeaseView{Others: 1, OthersIntents: 1}, LeaseShared, 0, LeaseRefuse, nil},
		{"new reader beside readers", LeaseView{Others: 5}, LeaseShared, 0, LeaseGrant, nil},
		{"reader never beside a writer", LeaseView{Others: 1, OtherExclusive: true}, LeaseShared, 0, LeaseRefuse, nil},
		{"permit under the limit", LeaseView{Others: limit - 1, OthersIntents: 1}, LeasePermit, 0, LeaseGrant, nil},
		{"permit at the limit", LeaseView{Others: limit}, LeasePermit, 0, LeaseRefuse, nil},
		{"permit never beside a writer", LeaseView{Others: 1, OtherExclusive: true}, LeasePermit, 0, LeaseRefuse, nil},
		{"a permit holder stays under a lowered limit", LeaseView{Held: LeasePermit, Others: limit + 1}, LeasePermit, 0, LeaseRenew, nil},
		{"holders full", LeaseView{Others: MaxLeaseHolders}, LeaseShared, 0, LeaseRefuse, ErrTooManyHolders},
		{"intents full", LeaseView{Others: 1, OthersIntents: MaxLeaseHolders}, LeaseExclusive, time.Second, LeaseRefuse, ErrTooManyHolders},
		{"own intent refreshed when intents are full", LeaseView{Others: 1, Intends: true, OthersIntents: MaxLeaseHolders}, LeaseExclusive, time.Second, LeaseIntend, nil},
	} {
		got, err := DecideLease(c.v, c.mode, limit, c.intent)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: DecideLease(%+v, %d) = %d, %v; want %d, %v", c.name, c.v, c.mode, got, err, c.want, c.err)
		}
	}
}
