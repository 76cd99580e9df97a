package kv

import (
	"errors"
	"strings"
)

// How engine errors read as RESP error replies: the server writes them with
// RESPReply, the remote client reads them back with ParseRESPError, so an
// error keeps its kind (errors.Is) across the socket. Redis's wording where
// Redis has the same refusal, so Redis clients recognise it.
const (
	RESPNotInteger = "ERR value is not an integer or out of range"
	RESPOverflow   = "ERR increment or decrement would overflow"
	RESPFull       = "OOM command not allowed when used memory > 'maxmemory'"
	RESPTooLarge   = "TOOLARGE"
	// RESPWrongType is Redis's refusal of a command on a key of another
	// type, word for word: a lease or rate-limit operation on a plain
	// value (or the other family's), as Redis refuses HSET on a string.
	RESPWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
)

// respForm is how a reply carries the engine's message.
type respForm uint8

const (
	respExact  respForm = iota // the prefix alone (Redis's exact wording)
	respParen                  // prefix (message)
	respAppend                 // prefix message
)

// RESPErrors maps each engine error to its reply; resp_test.go round-trips
// every entry.
var RESPErrors = []struct {
	Err    error
	Prefix string
	form   respForm
}{
	{ErrFull, RESPFull, respParen},
	{ErrValueTooLarge, RESPTooLarge, respAppend},
	{ErrNotInteger, RESPNotInteger, respExact},
	{ErrOverflow, RESPOverflow, respExact},
	{ErrKeyTooLarge, "ERR", respAppend},
	{ErrEmptyKey, "ERR", respAppend},
	{ErrBadTTL, "ERR", respAppend},
	{ErrBadArgument, "ERR", respAppend},
	{ErrWrongType, RESPWrongType, respExact},
}

// detailOf is err's message past its sentinel's ("value is too large: 5
// bytes" -> "5 bytes"), or all of it when it does not start with it.
func detailOf(err, sentinel error) string {
	msg, base := err.Error(), sentinel.Error()
	if rest, ok := strings.CutPrefix(msg, base); ok {
		return strings.TrimPrefix(rest, ": ")
	}
	return msg
}

// withDetail is the sentinel's message and detail, as the engine wrote it.
func withDetail(sentinel error, detail string) string {
	if detail == "" {
		return sentinel.Error()
	}
	return sentinel.Error() + ": " + detail
}

// RESPReply is the error reply for err: its table entry's, or "ERR " and
// its message for an error not in the table.
func RESPReply(err error) string {
	for _, r := range RESPErrors {
		if !errors.Is(err, r.Err) {
			continue
		}
		msg := withDetail(r.Err, detailOf(err, r.Err))
		switch r.form {
		case respParen:
			return r.Prefix + " (" + msg + ")"
		case respAppend:
			return r.Prefix + " " + msg
		}
		return r.Prefix
	}
	return "ERR " + err.Error()
}

// ParseRESPError gives an error reply its engine error and the detail the
// server's message carried past the error's own text ("" for none), or ok
// false for a reply not in the table.
func ParseRESPError(reply string) (err error, detail string, ok bool) {
	for _, r := range RESPErrors {
		switch r.form {
		case respExact:
			if strings.HasPrefix(reply, r.Prefix) {
				return r.Err, "", true
			}
		case respParen:
			rest, found := strings.CutPrefix(reply, r.Prefix)
			if !found {
				continue
			}
			// Redis's own has no parenthesis (and a full stop).
			if inner, found := strings.CutPrefix(rest, " ("); found {
				return r.Err, detailOf(errors.New(strings.TrimSuffix(inner, ")")), r.Err), true
			}
			return r.Err, "", true
		case respAppend:
			if rest, found := strings.CutPrefix(reply, r.Prefix+" "+r.Err.Error()); found {
				return r.Err, strings.TrimPrefix(rest, ": "), true
			}
		}
	}
	return nil, "", false
}
