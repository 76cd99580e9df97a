package server

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// Enumeration: SCAN and TYPE as Redis has them (so redis-cli --scan and
// the tools built on TYPE work), and EPHPM.SCAN, a page with each key's
// kind, time left and size in one reply (the remote client's kv.Scanner).
// All three go by the store's kv.Scanner (store/scan.go).

const (
	errInvalidCursor = "ERR invalid cursor"

	// scanDefaultCount is SCAN's COUNT when none is given, as Redis's.
	scanDefaultCount = 10
	// scanMinVisit is the fewest keys one SCAN visits, whatever its COUNT
	// (a hint, in Redis as here): each call of the store's Scan ranges
	// over the whole map, so redis-cli's 10 a call would cost a pass over
	// the map per 10 keys.
	scanMinVisit = 1000
)

// Type names for TYPE and SCAN's TYPE filter: a held or an evictable value
// is a Redis string; a lease set and a rate log are types of ours.
const (
	typeString  = "string"
	typeLeases  = "ephpm-leases"
	typeRateLog = "ephpm-ratelog"
)

func typeName(k kv.KeyKind) string {
	switch k {
	case kv.KindLeases:
		return typeLeases
	case kv.KindRateLog:
		return typeRateLog
	}
	return typeString
}

// The store's cursor is 16 hex digits, a position in its walk (the hash it
// stopped at). On the wire it is that number in decimal, as a Redis
// cursor is: redis-cli reads a cursor with strtoull and sends it back as a
// number, so a hex one would not survive it. "0" starts a walk and ends
// it ("" to the store). A walk whose page ends at the hash 0 would read
// as ended: one chance in 2^64 per page.

// scanCursorIn is the store's cursor for a client's; false when it is not
// a decimal uint64.
func scanCursorIn(b []byte) (string, bool) {
	n, err := strconv.ParseUint(key(b), 10, 64)
	if err != nil {
		return "", false
	}
	if n == 0 {
		return "", true
	}
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], n)
	return hex.EncodeToString(raw[:]), true
}

// scanCursorOut is the client's cursor for the store's.
func scanCursorOut(next string) (string, error) {
	if next == "" {
		return "0", nil
	}
	n, err := strconv.ParseUint(next, 16, 64)
	if err != nil || len(next) != 16 {
		return "", errors.New("ERR internal error: the store returned the cursor " + strconv.Quote(next) + ", not 16 hex digits")
	}
	return strconv.FormatUint(n, 10), nil
}

// SCAN cursor [MATCH pattern] [COUNT n] [TYPE t]: Redis's reply, the next
// cursor and a page of keys. COUNT is a hint: at least scanMinVisit keys
// are visited (at most kv.MaxScanCount), and a page holds those of them
// that are live and match. COUNT below 1 is Redis 7's syntax error; an
// unknown TYPE matches nothing, as in Redis 7.
func cmdScan(s *Server, c *conn, a [][]byte) {
	cursor, ok := scanCursorIn(a[1])
	if !ok {
		c.WriteError(errInvalidCursor)
		return
	}
	match, count, typ := "", scanDefaultCount, ""
	for i := 2; i < len(a); i += 2 {
		if i+1 == len(a) {
			c.WriteError(errSyntax)
			return
		}
		switch v := a[i+1]; strings.ToLower(string(a[i])) {
		case "match":
			match = key(v)
		case "count":
			n, ok := parseInt(v)
			switch {
			case !ok:
				c.WriteError(errNotInt)
				return
			case n < 1:
				c.WriteError(errSyntax)
				return
			}
			count = int(min(n, kv.MaxScanCount))
		case "type":
			typ = strings.ToLower(string(v))
		default:
			c.WriteError(errSyntax)
			return
		}
	}
	if match == "*" {
		match = ""
	}
	var keys []string
	next, err := s.store.Scan(cursor, match, min(max(count, scanMinVisit), kv.MaxScanCount), func(k kv.KeyInfo) {
		if typ == "" || typeName(k.Kind) == typ {
			keys = append(keys, k.Key)
		}
	})
	if err != nil {
		writeStoreErr(c, err) // a pattern over kv.MaxKeySize
		return
	}
	out, err := scanCursorOut(next)
	if err != nil {
		c.WriteError(err.Error())
		return
	}
	c.WriteArray(2)
	c.WriteBulkString(out)
	c.WriteArray(len(keys))
	for _, k := range keys {
		c.WriteBulkString(k)
	}
}

// EPHPM.SCAN cursor count [MATCH pattern]: one page of kv.Scanner's walk,
// count keys visited (1 to kv.MaxScanCount, exactly: not a hint), with
// each key's kind, time left and size, so a client lists a store with
// one round trip a page. The reply is [cursor, [key, kind, ttl, size,
// fence, key, kind, ...]]: cursor as SCAN's ("0" once the walk is
// done), kind a name of kv.KeyKind ("value", "evictable", "leases",
// "ratelog"), ttl in milliseconds (rounded up, -1 for none), size in
// bytes (a value's length before compression; what a lease set or rate
// log keeps), fence as kv.KeyInfo's (0: none).
func cmdEphpmScan(s *Server, c *conn, a [][]byte) {
	cursor, ok := scanCursorIn(a[1])
	if !ok {
		c.WriteError(errInvalidCursor)
		return
	}
	n, ok := parseInt(a[2])
	if !ok {
		c.WriteError(errNotInt)
		return
	}
	match := ""
	switch {
	case len(a) == 5 && strings.EqualFold(string(a[3]), "match"):
		match = key(a[4])
	case len(a) != 3:
		c.WriteError(errSyntax)
		return
	}
	count := int(max(min(n, kv.MaxScanCount+1), 0)) // out of range either way: CheckScan words it
	if err := kv.CheckScan(match, count); err != nil {
		writeStoreErr(c, err)
		return
	}
	var infos []kv.KeyInfo
	next, err := s.store.Scan(cursor, match, count, func(k kv.KeyInfo) { infos = append(infos, k) })
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	out, err := scanCursorOut(next)
	if err != nil {
		c.WriteError(err.Error())
		return
	}
	c.WriteArray(2)
	c.WriteBulkString(out)
	c.WriteArray(scanFields * len(infos))
	for _, k := range infos {
		c.WriteBulkString(k.Key)
		c.WriteBulkString(k.Kind.String())
		ttl := int64(-1)
		if k.TTL != kv.TTLPersistent {
			ttl = max(int64((k.TTL+time.Millisecond-1)/time.Millisecond), 1)
		}
		c.WriteInt64(ttl)
		c.WriteInt64(k.Size)
		c.WriteInt64(k.Fence)
	}
}

// scanFields is the elements of one key in EPHPM.SCAN's reply.
const scanFields = 5

// TYPE key: "string", "ephpm-leases", "ephpm-ratelog" or "none".
func cmdType(s *Server, c *conn, a [][]byte) {
	kind, found, err := s.keyKind(key(a[1]))
	switch {
	case err != nil:
		writeStoreErr(c, err)
	case !found:
		c.WriteString("none")
	default:
		c.WriteString(typeName(kind))
	}
}

// keyKind is the kind of key's live value; false when there is none.
func (s *Server) keyKind(k string) (kv.KeyKind, bool, error) {
	info, found, err := s.store.KeyInfo(k)
	return info.Kind, found, err
}
