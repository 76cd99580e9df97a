package server

import (
	"fmt"

	"github.com/ephpm/ephpm-kv/kv"
)

// Error replies, one place for each wording (Redis's, where Redis has one).
const (
	errSyntax       = "ERR syntax error"
	errNotInt       = kv.RESPNotInteger
	errIncrOverflow = kv.RESPOverflow
	errDecrOverflow = "ERR decrement would overflow"
	errDBIndex      = "ERR DB index is out of range"
	errMaxClients   = "ERR max number of clients reached"
	errNoAuth       = "NOAUTH Authentication required."
	errHelloNoAuth  = "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	errWrongPass    = "WRONGPASS invalid username-password pair or user is disabled."
	errNoPassword   = "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?"
	errNoProto      = "NOPROTO sorry, this protocol version is not supported"
)

func errWrongArgs(cmd string) string {
	return "ERR wrong number of arguments for '" + cmd + "' command"
}

func errInvalidExpire(cmd string) string { return "ERR invalid expire time in '" + cmd + "' command" }

func errUnknownCommand(name []byte, args [][]byte) string {
	return fmt.Sprintf("ERR unknown command '%.64s', with args beginning with: %s", name, argsPreview(args))
}

func errUnsupported(what string) string { return "ERR " + what + " is not supported" }

// writeStoreErr answers a store error from the one table the remote
// client reads it back with (Redis's wording where Redis has one).
func writeStoreErr(c *conn, err error) { c.WriteError(kv.RESPReply(err)) }

// replyBool answers a store call's (bool, error) as :1/:0 or an error:
// replyBool(c)(s.store.Del(k)).
func replyBool(c *conn) func(bool, error) {
	return func(ok bool, err error) {
		switch {
		case err != nil:
			writeStoreErr(c, err)
		case ok:
			c.WriteInt(1)
		default:
			c.WriteInt(0)
		}
	}
}

// errProtocol is the reply to a framing error; the connection closes after it.
func errProtocol(pe *protoError) string { return "ERR " + pe.Error() }
