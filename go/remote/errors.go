package remote

// Error classification: a server's reply and a failed connection, as kv errors.

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/ephpm/ephpm-kv/kv"
)

// peer is the server an engine talks to, as its messages name it: the
// Engine and the Cluster word and classify errors alike through it.
type peer struct {
	addr    string      // ephpm.server, for messages
	isRedis atomic.Bool // a Valkey or Redis answered here
}

// kind names the server in messages: "ephpm-kv server" until a Valkey or
// Redis answered at this address, or for a redis:// address that none did
// yet.
func (e *peer) kind() string {
	if e.isRedis.Load() || strings.HasPrefix(e.addr, "redis") {
		return "Valkey/Redis server"
	}
	return "ephpm-kv server"
}

// replyError is an error reply from the server.
type replyError string

func (e replyError) Error() string { return string(e) }

// errUnexpected reports a reply of the wrong type; the stream may be out of
// step.
func errUnexpected(r *reply) error {
	return errProtocolReply{fmt.Sprintf("unexpected reply %c%d %.40q", r.kind, r.n, r.data)}
}

// keepsConnection reports whether err is a reply error other than a protocol
// error. After a protocol error the server closes the connection; after a
// network error or a short write nobody knows where the reply stream stands.
func keepsConnection(err error) bool {
	var reply replyError
	return errors.As(err, &reply) && !isProtocolError(reply.Error()) && !notServing(reply.Error()) && serverLimit(reply.Error()) == ""
}

// serverLimit words a reply the server sends before it closes the
// connection for a limit of its own rather than the command's, "" for any
// other: at its client limit (maxclients: Redis's wording, and ephpm-kv's),
// or, on an ephpm-kv server, all clients' buffers over --max-client-memory
// with this client's the largest. The command did not run; unavailable.
func serverLimit(msg string) string {
	switch {
	case strings.HasPrefix(msg, "ERR max number of clients reached"):
		return "is at its client limit (maxclients); the command did not run"
	case strings.HasPrefix(msg, "ERR max memory for clients reached"):
		return "closed the connection: the memory for client buffers is full (--max-client-memory) and this client's were the largest; the command did not run"
	}
	return ""
}

// notServing reports whether msg is from a Valkey or Redis that cannot take
// the command now: a replica (READONLY: a failover demoted it, or the address
// names one), one still loading its data, one whose replica lost its master,
// one busy with a long script, a master cut off from the replicas it must
// write to (min-replicas-to-write: NOREPLICAS). Nothing ran. Unavailable, and
// the connection is dropped, so the next call dials again (and may reach the
// new master).
func notServing(msg string) bool {
	for _, p := range []string{"READONLY", "LOADING", "MASTERDOWN", "BUSY", "NOREPLICAS"} {
		if strings.HasPrefix(msg, p+" ") {
			return true
		}
	}
	return false
}

func isProtocolError(msg string) bool { return strings.HasPrefix(msg, "ERR Protocol error") }

func (e *peer) classify(err error) error {
	var reply replyError
	if errors.As(err, &reply) {
		return e.classifyReply(reply.Error())
	}
	var parting *closedWithReply
	if errors.As(err, &parting) && (isProtocolError(parting.Reply) || serverLimit(parting.Reply) != "") {
		return e.classifyReply(parting.Reply)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return fmt.Errorf("%w: no answer from the %s at %s in time; the operation may or may not have happened: %v", kv.ErrUnavailable, e.kind(), e.addr, err)
	}
	return fmt.Errorf("%w: cannot reach the %s at %s: %v", kv.ErrUnavailable, e.kind(), e.addr, err)
}

// classifyReply gives a server's error reply its kv meaning: the engine
// errors from kv's RESP table, plus what only a client meets (a bulk over
// the server's limit, a refused password).
func (e *peer) classifyReply(msg string) error {
	kind, detail, ok := kv.ParseRESPError(msg)
	switch {
	case ok && kind == kv.ErrWrongType && e.isRedis.Load():
		// Redis's WRONGTYPE: a key of another Redis type than the
		// operation's (a hash, a list... for a string operation; a string
		// for a lease's hash).
		return fmt.Errorf("%w: the %s at %s holds a value of another Redis type at that key: %s (%w)", kv.ErrWrongType, e.kind(), e.addr, msg, errWrongType)
	case ok:
		return e.storeError(kind, detail, msg)
	}
	switch {
	case isProtocolError(msg) && bulkTooLarge.MatchString(msg):
		// A value (or token) over the server's bulk limit; the check
		// before sending catches values once the limit is known.
		return fmt.Errorf("%w for the %s at %s, which refused it: %s", kv.ErrValueTooLarge, e.kind(), e.addr, strings.TrimPrefix(msg, "ERR "))
	case serverLimit(msg) != "":
		return fmt.Errorf("%w: the %s at %s %s: %s", kv.ErrUnavailable, e.kind(), e.addr, serverLimit(msg), msg)
	case notServing(msg):
		return fmt.Errorf("%w: the %s at %s cannot take the command now (nothing ran): %s", kv.ErrUnavailable, e.kind(), e.addr, msg)
	case strings.HasPrefix(msg, "NOAUTH"), strings.HasPrefix(msg, "WRONGPASS"):
		return fmt.Errorf("%w: the %s at %s refused the password (set ephpm.server_password): %s", kv.ErrUnavailable, e.kind(), e.addr, msg)
	}
	return fmt.Errorf("%s at %s: %s", e.kind(), e.addr, msg)
}

// errWrongType reports a Valkey or Redis key of another type than the
// operation's (kv.ErrWrongType too). Incr reports it as kv.ErrNotInteger, as
// the in-process store does for any value that is not an integer.
var errWrongType = errors.New("wrong type")

// storeError words an engine error the server reported.
func (e *peer) storeError(kind error, detail, reply string) error {
	switch {
	case kind == kv.ErrFull && detail == "":
		return fmt.Errorf("%w at the %s %s: %s", kv.ErrFull, e.kind(), e.addr, reply)
	case kind == kv.ErrFull:
		return fmt.Errorf("%w at the %s %s: %s", kv.ErrFull, e.kind(), e.addr, detail)
	case kind == kv.ErrValueTooLarge:
		return fmt.Errorf("%w for the %s at %s (%s)", kv.ErrValueTooLarge, e.kind(), e.addr, detail)
	case detail == "":
		return kind
	}
	return fmt.Errorf("%w: %s (the %s at %s)", kind, detail, e.kind(), e.addr)
}

// bulkTooLarge matches the server's protocol errors about one argument's
// size ("invalid bulk length N", and "bulk of N bytes" from ephpm-kv
// servers before their own RESP reader), not the argument count
// ("multibulk length").
var bulkTooLarge = regexp.MustCompile(`(^|[^a-z])bulk (of|length) [0-9]`)
