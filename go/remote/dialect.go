package remote

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The client speaks to an ephpm-kv server or to a plain Valkey or Redis
// behind the same address forms. Which one answers is learned once per
// connection, and costs an ephpm-kv server nothing: its commands are sent
// first (a connection starts as dialectUnknown), and only a server that
// answers "unknown command" is asked what it offers. That answer was not a
// run of the command, so the operation is then sent again in the server's
// dialect: the one retry that is safe (see do).

type dialectKind uint8

const (
	dialectUnknown dialectKind = iota // nothing learned: ephpm-kv's commands are tried
	dialectEphpm                      // an ephpm-kv server (EPHPM.STATS answered)
	dialectRedis                      // a Valkey or Redis: Lua scripts where it has no command
)

// dialect is what the server at the other end of one connection offers.
type dialect struct {
	kind dialectKind
	// Native compare-and-delete, used instead of a script when present:
	// DELIFEQ key value (Valkey 9), DELEX key IFEQ value (Redis 8.4).
	// (Their SET ... IFEQ is not used for ExpireIfEq: a SET is refused
	// over maxmemory, the script's PEXPIRE is not.)
	delIfEq, delEx bool
	// evictable is set for an ephpm-kv server that takes EPHPM.SETEVICTABLE
	// (its EPHPM.STATS reports bytes_evictable); an older one is sent a SET.
	evictable bool
}

func (d dialect) redis() bool { return d.kind == dialectRedis }

// defaultMaxBulk is Redis's proto-max-bulk-len when CONFIG GET is not
// allowed (a managed Redis often renames CONFIG).
const defaultMaxBulk = 512 << 20

// learnRedis asks a server that is not an ephpm-kv server what it offers,
// in one round trip: COMMAND INFO for the native compare commands, and its
// bulk limit (the largest value it takes) and its maxmemory-policy from
// CONFIG GET. A policy that evicts keys is refused (ErrEvicting), on every
// call: it may evict a live lock, which is then granted twice. A server
// that does not allow CONFIG (renamed) is taken as it is.
func (e *Engine) learnRedis() error {
	d := dialect{kind: dialectRedis}
	limit := int64(defaultMaxBulk)
	policy := ""
	err := e.trip(func(c *client) {
		c.command(4)
		c.arg("COMMAND")
		c.arg("INFO")
		c.arg("DELIFEQ")
		c.arg("DELEX")
		c.command(4)
		c.arg("CONFIG")
		c.arg("GET")
		c.arg("proto-max-bulk-len")
		c.arg("maxmemory-policy")
	}, func(i int, r *reply, c *client) error {
		// An error reply (a command not allowed here) leaves the defaults:
		// no native commands, the default limit.
		if r.kind != '-' {
			if err := readFeatures(c, r, i, &d, &limit, &policy); err != nil {
				return err
			}
		}
		if i == 1 && evicts(policy) {
			return nil // the dialect stays unknown: the next call asks again
		}
		if i == 1 {
			// Set with the dialect, on the connection that learned it.
			c.dialect = d
			e.maxValue.Store(limit)
			e.isRedis.Store(true)
		}
		return nil
	}, true)
	if err == nil && evicts(policy) {
		e.isRedis.Store(true) // for kind(): no ephpm-kv server has a policy
		return fmt.Errorf("%w: the %s at %s has maxmemory-policy %s, which may evict a live lock (granted twice then); set it to noeviction",
			ErrEvicting, e.kind(), e.addr, policy)
	}
	return err
}

func evicts(policy string) bool { return policy != "" && policy != "noeviction" }

// readFeatures reads COMMAND INFO's reply (i 0) or CONFIG GET's (i 1,
// name and value pairs in any order).
func readFeatures(c *client, r *reply, i int, d *dialect, limit *int64, policy *string) error {
	if r.kind != '*' {
		return errUnexpected(r)
	}
	name := ""
	for j := int64(0); j < r.n; j++ {
		el, err := c.read()
		if err != nil {
			return err
		}
		switch {
		case i == 1 && j%2 == 0 && el.kind == '$':
			name = string(el.data)
		case i == 1 && name == "maxmemory-policy" && el.kind == '$':
			*policy = string(el.data)
		case i == 0 && el.kind == '*' && el.n > 0:
			// A command's entry (an unknown command's is nil).
			if j == 0 {
				d.delIfEq = true
			} else {
				d.delEx = true
			}
		case i == 1 && name == "proto-max-bulk-len" && el.kind == '$':
			if n, err := strconv.ParseInt(string(el.data), 10, 64); err == nil && n > 0 {
				*limit = n
			}
		}
		if err := discard(c, &el); err != nil {
			return err
		}
	}
	return nil
}

// do is roundTrip for an operation whose command depends on the dialect
// (build reads c.dialect). It sends the operation again, at most twice,
// when the server did not run it: an ephpm-kv command that a Valkey or
// Redis does not know (its dialect is learned first), or an EVALSHA of a
// script the server no longer has (NOSCRIPT: flushed, restarted, or a
// replica promoted since; the retry loads it again).
func (e *Engine) do(build func(c *client), handle func(i int, r *reply, c *client) error) error {
	for retries := 0; ; retries++ {
		err := e.roundTrip(build, handle)
		var again *notRun
		if err == nil || !errors.As(err, &again) {
			return err
		}
		if retries == 2 {
			return again.err
		}
		if again.unknownCommand {
			if err := e.learnRedis(); err != nil {
				return err
			}
		} else {
			e.forgetScripts()
		}
	}
}

// notRun is an error reply that says the command did not run and can be
// sent again in another form: see do.
type notRun struct {
	unknownCommand bool // else NOSCRIPT
	err            error
}

func (e *notRun) Error() string { return e.err.Error() }
func (e *notRun) Unwrap() error { return e.err }

// retryable classifies a round trip's first error, marking the ones do
// may send again. An unknown command counts only while the dialect was
// unknown: once learned, it is a real error.
func (e *Engine) retryable(err error, used dialect) error {
	classified := e.classify(err)
	var reply replyError
	if !errors.As(err, &reply) {
		return classified
	}
	switch msg := string(reply); {
	case strings.HasPrefix(msg, "NOSCRIPT"):
		return &notRun{err: classified}
	case strings.HasPrefix(msg, "ERR unknown command") && used.kind == dialectUnknown:
		return &notRun{unknownCommand: true, err: classified}
	}
	return classified
}

// forgetScripts marks every script as not loaded on this connection (a
// SCRIPT FLUSH drops them all), so the next use loads it again.
func (e *Engine) forgetScripts() {
	e.mu.Lock()
	if e.cl != nil {
		e.cl.loaded = 0
	}
	e.mu.Unlock()
}

// discard reads what is left of r: the elements of an array, nested ones
// included.
func discard(c *client, r *reply) error {
	if r.kind != '*' {
		return nil
	}
	for i := int64(0); i < r.n; i++ {
		el, err := c.read()
		if err != nil {
			return err
		}
		if err := discard(c, &el); err != nil {
			return err
		}
	}
	return nil
}
