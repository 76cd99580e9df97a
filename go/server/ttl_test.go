package server

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// timeForm is one RESP way of giving a key a time to live.
type timeForm struct {
	name     string
	unit     time.Duration
	absolute bool // a Unix time (EXAT, PXAT)
	zeroNone bool // 0 means "no expiry" (EPHPM.*)
	delNeg   bool // <= 0 deletes the key (EXPIRE, PEXPIRE)
	cmd      func(n string) []string
}

var timeForms = []timeForm{
	{name: "set", unit: time.Second, cmd: func(n string) []string { return []string{"SET", "k", "new", "EX", n} }},
	{name: "set", unit: time.Millisecond, cmd: func(n string) []string { return []string{"SET", "k", "new", "PX", n} }},
	{name: "set", unit: time.Second, absolute: true, cmd: func(n string) []string { return []string{"SET", "k", "new", "EXAT", n} }},
	{name: "set", unit: time.Millisecond, absolute: true, cmd: func(n string) []string { return []string{"SET", "k", "new", "PXAT", n} }},
	{name: "setex", unit: time.Second, cmd: func(n string) []string { return []string{"SETEX", "k", n, "new"} }},
	{name: "psetex", unit: time.Millisecond, cmd: func(n string) []string { return []string{"PSETEX", "k", n, "new"} }},
	{name: "expire", unit: time.Second, delNeg: true, cmd: func(n string) []string { return []string{"EXPIRE", "k", n} }},
	{name: "pexpire", unit: time.Millisecond, delNeg: true, cmd: func(n string) []string { return []string{"PEXPIRE", "k", n} }},
	{name: "ephpm.pexpire", unit: time.Millisecond, zeroNone: true, cmd: func(n string) []string { return []string{"EPHPM.PEXPIRE", "k", n} }},
	{name: "ephpm.pexpireifeq", unit: time.Millisecond, zeroNone: true, cmd: func(n string) []string { return []string{"EPHPM.PEXPIREIFEQ", "k", "old", n} }},
}

// timeValues returns the edges of each unit's range and of int64, then random
// values of every bit length and both signs.
func timeValues(unit time.Duration, absolute bool) []int64 {
	maxN := int64(kv.MaxTTL / unit)
	vals := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, 2, 999, 1000, 1001,
		maxN - 1, maxN, maxN + 1, math.MaxInt64 / int64(unit), math.MaxInt64/int64(unit) + 1, math.MaxInt64 - 1, math.MaxInt64}
	if absolute {
		now := time.Now().UnixNano() / int64(unit)
		vals = append(vals, now-1, now+2, now+int64(time.Minute/unit), now+maxN-int64(time.Minute/unit), now+maxN+int64(time.Minute/unit))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for bits := 1; bits < 63; bits++ {
		n := r.Int64N(int64(1)<<bits) | int64(1)<<(bits-1)
		vals = append(vals, n, -n)
	}
	return vals
}

// Every RESP time form over the int64 range: either "invalid expire time"
// with the key left as it was, or the key is present with PTTL within the
// clock's resolution (and the time the round trip took) of what was asked.
// EXPIRE/PEXPIRE with 0 or less delete the key, EXAT/PXAT in the past leave
// no key, and the EPHPM.* forms take 0 as "no expiry".
func TestTimeFormsProperty(t *testing.T) {
	_, addr := startServer(t, Config{})
	rc := dial(t, "unix", addr)
	maxTTL := big.NewInt(int64(kv.MaxTTL))
	for _, f := range timeForms {
		for _, n := range timeValues(f.unit, f.absolute) {
			arg := strconv.FormatInt(n, 10)
			args := f.cmd(arg)
			if got := rc.do("SET", "k", "old"); got != "OK" {
				t.Fatal(got)
			}
			start := time.Now()
			reply := rc.do(args...)
			pttl, _ := strconv.ParseInt(rc.do("PTTL", "k"), 10, 64)
			value := rc.do("GET", "k")
			slack := time.Since(start) + time.Millisecond

			// asked is the TTL asked for in ns, exactly
			asked := new(big.Int).Mul(big.NewInt(n), big.NewInt(int64(f.unit)))
			if f.absolute {
				asked.Sub(asked, big.NewInt(start.UnixNano()))
			}
			tooBig := asked.Cmp(new(big.Int).Add(maxTTL, big.NewInt(int64(slack)))) > 0
			inRange := asked.Cmp(new(big.Int).Sub(maxTTL, big.NewInt(int64(slack)))) <= 0
			where := strings.Join(args, " ")

			if strings.HasPrefix(reply, "ERR") {
				want := "ERR invalid expire time in '" + f.name + "' command"
				switch {
				case reply != want:
					t.Errorf("%s: %q, want %q", where, reply, want)
				case value != `"old"` || pttl != -1:
					t.Errorf("%s: refused, yet the key changed: %s, pttl %d", where, value, pttl)
				case inRange && n > 0:
					t.Errorf("%s: refused a time in range", where)
				}
				continue
			}
			if tooBig {
				t.Errorf("%s: accepted (%s) a TTL over kv.MaxTTL", where, reply)
				continue
			}
			switch {
			case f.zeroNone && n == 0:
				if pttl != -1 || value != `"old"` {
					t.Errorf("%s: pttl %d value %s, want no expiry", where, pttl, value)
				}
			case f.delNeg && n <= 0, f.absolute && asked.Sign() <= 0:
				if value != "(nil)" || pttl != -2 {
					t.Errorf("%s: key still there (pttl %d) after a time in the past", where, pttl)
				}
			case n <= 0 || asked.Sign() <= 0:
				t.Errorf("%s: accepted (%s) a non-positive time", where, reply)
			default:
				want := asked.Int64()
				got := pttl * int64(time.Millisecond)
				if pttl == -2 && time.Duration(want) <= slack {
					continue // a TTL of a millisecond or so may have run out already
				}
				if got > want+int64(time.Millisecond) || got < want-int64(slack) {
					t.Errorf("%s: pttl %d ms, asked %d ms", where, pttl, want/int64(time.Millisecond))
				}
			}
		}
	}
}
