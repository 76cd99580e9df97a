package kv

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"testing"
)

// Every engine error survives the trip server -> RESP -> client: its kind
// (errors.Is) and the detail of its message.
func TestRESPErrorsRoundTrip(t *testing.T) {
	for _, r := range RESPErrors {
		for _, detail := range []string{"", "2000 bytes, the limit is 1024"} {
			err := r.Err
			if detail != "" {
				err = fmt.Errorf("%w: %s", r.Err, detail)
			}
			reply := RESPReply(err)
			got, gotDetail, ok := ParseRESPError(reply)
			if !ok || got != r.Err {
				t.Errorf("%q (from %v) parses as %v, %v", reply, err, got, ok)
				continue
			}
			if r.form == respExact {
				detail = "" // Redis's wording, which clients compare whole
			}
			if gotDetail != detail {
				t.Errorf("%q: detail %q, want %q", reply, gotDetail, detail)
			}
		}
		// An error that wraps the sentinel after its own words.
		err := fmt.Errorf("while writing: %w", r.Err)
		if got, _, ok := ParseRESPError(RESPReply(err)); !ok || got != r.Err {
			t.Errorf("%q parses as %v, %v", RESPReply(err), got, ok)
		}
	}
	other := errors.New("snapshot unreadable")
	if reply := RESPReply(other); reply != "ERR snapshot unreadable" {
		t.Errorf("an error outside the table: %q", reply)
	}
	if got, _, ok := ParseRESPError("ERR snapshot unreadable"); ok {
		t.Errorf("an error outside the table parses as %v", got)
	}
}

// The replies Redis clients and the server's tests know, word for word.
func TestRESPRepliesKeepTheirWording(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: writing 10 bytes would pass memory_limit of 5 bytes (3 used)", ErrFull),
			"OOM command not allowed when used memory > 'maxmemory' (store full: writing 10 bytes would pass memory_limit of 5 bytes (3 used))"},
		{fmt.Errorf("%w: 2000 bytes, max_value_size is 1024", ErrValueTooLarge), "TOOLARGE value is too large: 2000 bytes, max_value_size is 1024"},
		{ErrNotInteger, "ERR value is not an integer or out of range"},
		{fmt.Errorf("%w: 9223372036854775807 + 1", ErrOverflow), "ERR increment or decrement would overflow"},
		{fmt.Errorf("%w: 65537 bytes, the limit is 65536", ErrKeyTooLarge), "ERR key is too large: 65537 bytes, the limit is 65536"},
		{ErrEmptyKey, "ERR key must not be empty"},
		{fmt.Errorf("%w: token must be 1 to 64 bytes, got 0", ErrBadArgument), "ERR bad lease or rate-limit argument: token must be 1 to 64 bytes, got 0"},
		{ErrWrongType, "WRONGTYPE Operation against a key holding the wrong kind of value"},
	}
	for _, c := range cases {
		if got := RESPReply(c.err); got != c.want {
			t.Errorf("RESPReply(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	// Redis's own WRONGTYPE reply (a script's HGET on a string) is the
	// same refusal.
	if got, _, ok := ParseRESPError("WRONGTYPE Operation against a key holding the wrong kind of value"); got != ErrWrongType || !ok {
		t.Errorf("Redis's WRONGTYPE: %v, %v", got, ok)
	}
	// Redis's own OOM reply, without the engine's detail.
	if got, detail, ok := ParseRESPError("OOM command not allowed when used memory > 'maxmemory'."); got != ErrFull || detail != "" || !ok {
		t.Errorf("Redis's OOM: %v, %q, %v", got, detail, ok)
	}
}

// Every engine error declared in engine.go and lease.go is in Errors, and
// crosses RESP with its kind unless only a client meets it.
func TestRESPErrorsCoverEngineErrors(t *testing.T) {
	var declared [][]string
	for _, file := range []string{"engine.go", "lease.go"} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		declared = append(declared, regexp.MustCompile(`(?m)^\s*(Err\w+)\s*= errors\.New`).FindAllStringSubmatch(string(src), -1)...)
	}
	seen := map[error]bool{}
	for _, e := range Errors {
		if seen[e] {
			t.Errorf("%v twice in Errors", e)
		}
		seen[e] = true
	}
	if len(declared) != len(seen) {
		t.Errorf("engine.go declares %d errors, Errors lists %d", len(declared), len(seen))
	}
	for _, e := range Errors {
		if ClientSide(e) {
			continue
		}
		if got, _, ok := ParseRESPError(RESPReply(e)); !ok || got != e {
			t.Errorf("%v has no RESP reply of its own (%q)", e, RESPReply(e))
		}
	}
}
