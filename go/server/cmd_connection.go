package server

import (
	"crypto/subtle"
	"strings"
	"time"
)

// Connection commands: PING, ECHO, HELLO, AUTH, QUIT, SELECT.

func cmdPing(s *Server, c *conn, a [][]byte) {
	switch len(a) {
	case 1:
		c.WriteString("PONG")
	case 2:
		c.WriteBulk(a[1])
	default:
		c.WriteError(errWrongArgs("ping"))
	}
}

func cmdEcho(s *Server, c *conn, a [][]byte) { c.WriteBulk(a[1]) }

// HELLO [protover [AUTH username password] [SETNAME name]]: RESP2 only.
func cmdHello(s *Server, c *conn, a [][]byte) {
	var name []byte
	named := false
	if len(a) > 1 {
		if v, ok := parseInt(a[1]); !ok || v != 2 {
			c.WriteError(errNoProto)
			return
		}
		for i := 2; i < len(a); i++ {
			switch strings.ToLower(string(a[i])) {
			case "auth":
				if i+2 >= len(a) {
					c.WriteError(errSyntax)
					return
				}
				if string(a[i+1]) != "default" || !s.checkPassword(a[i+2]) {
					s.authFailed(c)
					c.WriteError(errWrongPass)
					return
				}
				c.authed = true
				i += 2
			case "setname":
				if i+1 >= len(a) {
					c.WriteError(errSyntax)
					return
				}
				name, named = a[i+1], true
				i++
			default:
				c.WriteError(errSyntax)
				return
			}
		}
	}
	if !c.authed {
		c.WriteError(errHelloNoAuth)
		return
	}
	if named && !c.setName(name) {
		c.WriteError(errClientName)
		return
	}
	c.WriteArray(14)
	c.WriteBulkString("server")
	c.WriteBulkString("ephpm-kv")
	c.WriteBulkString("version")
	c.WriteBulkString(Version)
	c.WriteBulkString("proto")
	c.WriteInt(2)
	c.WriteBulkString("id")
	c.WriteInt64(c.id)
	c.WriteBulkString("mode")
	c.WriteBulkString("standalone")
	c.WriteBulkString("role")
	c.WriteBulkString("master")
	c.WriteBulkString("modules")
	c.WriteArray(0)
}

func (s *Server) checkPassword(p []byte) bool {
	return s.cfg.Password != "" && subtle.ConstantTimeCompare(p, []byte(s.cfg.Password)) == 1
}

// AUTH password | AUTH default password
func cmdAuth(s *Server, c *conn, a [][]byte) {
	if len(a) > 3 {
		c.WriteError(errSyntax)
		return
	}
	if s.cfg.Password == "" {
		c.WriteError(errNoPassword)
		return
	}
	pass := a[len(a)-1]
	if (len(a) == 3 && string(a[1]) != "default") || !s.checkPassword(pass) {
		s.authFailed(c)
		c.WriteError(errWrongPass)
		return
	}
	c.authed = true
	c.WriteString("OK")
}

func cmdQuit(s *Server, c *conn, a [][]byte) {
	c.WriteString("OK")
	c.quit = true
}

func cmdSelect(s *Server, c *conn, a [][]byte) {
	if n, ok := parseInt(a[1]); !ok {
		c.WriteError(errNotInt)
	} else if n != 0 {
		c.WriteError(errDBIndex)
	} else {
		c.WriteString("OK")
	}
}

// Failed AUTHs slow down per connection. The first authFreeFailures are
// answered at once (a client with a wrong password fails once and hangs
// up); each further one is answered after a delay that starts at
// authDelayMin and doubles up to authDelayMax, so one connection guesses
// about one password a second instead of 800,000. The delay is the
// guesser's own: other connections, a right password among them, are not
// slowed. Closing the connection instead would not help, as a new one costs
// the guesser microseconds; parallel guessers are bounded by --maxclients.
const (
	authFreeFailures = 3
	authDelayMin     = 100 * time.Millisecond
	authDelayMax     = time.Second
)

// authDelay is the wait before answering a connection's failures-th
// failed AUTH.
func authDelay(failures int) time.Duration {
	n := failures - authFreeFailures - 1
	if n < 0 {
		return 0
	}
	if n >= 4 { // authDelayMin<<4 is past authDelayMax
		return authDelayMax
	}
	return min(authDelayMin<<n, authDelayMax)
}

func (s *Server) authFailed(c *conn) {
	s.authFailures.event(c.remoteAddr())
	if s.cfg.Password == "" {
		return // nothing to guess: HELLO's AUTH cannot succeed
	}
	c.authFailures++
	if d := authDelay(c.authFailures); d > 0 {
		c.Flush() // the replies before this one are not held back
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.quit:
		}
	}
}
