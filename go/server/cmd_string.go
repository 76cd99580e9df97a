package server

import (
	"math"
	"strings"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// Strings and keys: GET, SET, SETNX, SETEX, PSETEX, DEL, EXISTS, the INCR
// family, DELIFEQ, DELEX, MGET, MSET.

func cmdGet(s *Server, c *conn, a [][]byte) {
	ok, err := s.store.View(key(a[1]), c.WriteBulk)
	switch {
	case err != nil:
		writeStoreErr(c, err)
	case !ok:
		c.WriteNull()
	}
}

// SET key value [NX|XX|IFEQ v] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL]
func cmdSet(s *Server, c *conn, a [][]byte) {
	var opt store.SetOptions
	var expiry, past bool
	for i := 3; i < len(a); i++ {
		arg := strings.ToUpper(string(a[i]))
		next := i+1 < len(a)
		switch {
		case arg == "NX" && opt.Cond == store.Always:
			opt.Cond = store.IfAbsent
		case arg == "XX" && opt.Cond == store.Always:
			opt.Cond = store.IfPresent
		case arg == "IFEQ" && opt.Cond == store.Always && next:
			opt.Cond, opt.Equal = store.IfEqual, a[i+1]
			i++
		case arg == "GET" && !opt.GetOld:
			opt.GetOld = true
		case arg == "KEEPTTL" && !expiry:
			opt.KeepTTL, expiry = true, true
		case (arg == "EX" || arg == "PX" || arg == "EXAT" || arg == "PXAT") && !expiry && next:
			ttl, ok := setTTLArg(c, a[i+1], arg, "set")
			if !ok {
				return
			}
			opt.TTL, expiry = ttl, true
			if ttl < 0 { // EXAT/PXAT in the past: set, then gone, as in Redis
				opt.TTL, past = 1, true
			}
			i++
		default:
			c.WriteError(errSyntax)
			return
		}
	}
	res, err := s.store.SetWith(key(a[1]), a[2], opt)
	if err == nil && past && res.Stored {
		_, err = s.store.Del(key(a[1]))
	}
	switch {
	case err != nil:
		writeStoreErr(c, err)
	case opt.GetOld && res.HadOld:
		c.WriteBulk(res.Old)
	case opt.GetOld || !res.Stored:
		c.WriteNull()
	default:
		c.WriteString("OK")
	}
}

func cmdSetNX(s *Server, c *conn, a [][]byte) {
	replyBool(c)(s.store.SetNX(key(a[1]), a[2], 0))
}

// SETEX key seconds value, PSETEX key milliseconds value
func cmdSetEx(s *Server, c *conn, a [][]byte) {
	form := "EX"
	if a[0][0]|0x20 == 'p' {
		form = "PX"
	}
	ttl, ok := setTTLArg(c, a[2], form, cmdName(a))
	if !ok {
		return
	}
	if err := s.store.Set(key(a[1]), a[3], ttl); err != nil {
		writeStoreErr(c, err)
		return
	}
	c.WriteString("OK")
}

// countKeys runs op on every key argument and replies with how many hit.
func countKeys(c *conn, keys [][]byte, op func(string) (bool, error)) {
	n := 0
	for _, k := range keys {
		ok, err := op(key(k))
		if err != nil {
			writeStoreErr(c, err)
			return
		}
		if ok {
			n++
		}
	}
	c.WriteInt(n)
}

func cmdDel(s *Server, c *conn, a [][]byte)    { countKeys(c, a[1:], s.store.Del) }
func cmdExists(s *Server, c *conn, a [][]byte) { countKeys(c, a[1:], s.store.Exists) }

// INCR, DECR, INCRBY, DECRBY
func cmdIncr(s *Server, c *conn, a [][]byte) {
	by := int64(1)
	if len(a) == 3 {
		n, ok := parseInt(a[2])
		if !ok {
			c.WriteError(errNotInt)
			return
		}
		by = n
	}
	if a[0][0]|0x20 == 'd' {
		if by == math.MinInt64 {
			c.WriteError(errDecrOverflow)
			return
		}
		by = -by
	}
	n, err := s.store.Incr(key(a[1]), by, 0)
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	c.WriteInt64(n)
}

// DELIFEQ key value (Valkey 9): 1 when deleted, 0 otherwise.
func cmdDelIfEq(s *Server, c *conn, a [][]byte) {
	replyBool(c)(s.store.DelIfEq(key(a[1]), a[2]))
}

// DELEX key [IFEQ value | IFNE value] (Redis 8.4 / Valkey 9.2).
func cmdDelEx(s *Server, c *conn, a [][]byte) {
	switch {
	case len(a) == 2:
		replyBool(c)(s.store.Del(key(a[1])))
	case len(a) == 4 && strings.EqualFold(string(a[2]), "ifeq"):
		replyBool(c)(s.store.DelIfEq(key(a[1]), a[3]))
	case len(a) == 4 && strings.EqualFold(string(a[2]), "ifne"):
		replyBool(c)(s.store.DelIfNe(key(a[1]), a[3]))
	default:
		c.WriteError(errSyntax)
	}
}

// MGET streams its reply one value at a time, straight from the store, so
// no reply buffer grows with the number or size of the values. Keys are
// checked first so an error comes before the array header; unlike Redis,
// the values are not one point-in-time view.
func cmdMGet(s *Server, c *conn, a [][]byte) {
	for _, k := range a[1:] {
		if len(k) == 0 || len(k) > kv.MaxKeySize {
			_, err := s.store.Exists(key(k))
			writeStoreErr(c, err)
			return
		}
	}
	c.WriteArray(len(a) - 1)
	for _, k := range a[1:] {
		if ok, err := s.store.View(key(k), c.WriteBulk); !ok || err != nil {
			c.WriteNull() // err: the store closed under us; the array must be complete
		}
	}
}

// MSET sets each pair in turn; unlike Redis it is not atomic across keys.
func cmdMSet(s *Server, c *conn, a [][]byte) {
	if len(a)%2 != 1 {
		c.WriteError(errWrongArgs("mset"))
		return
	}
	for i := 1; i < len(a); i += 2 {
		if err := s.store.Set(key(a[i]), a[i+1], 0); err != nil {
			writeStoreErr(c, err)
			return
		}
	}
	c.WriteString("OK")
}
