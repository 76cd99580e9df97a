package server

import (
	"crypto/subtle"
	"strings"
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
	c.WriteArray(14)
	c.WriteBulkString("server")
	c.WriteBulkString("ephpm-kv")
	c.WriteBulkString("version")
	c.WriteBulkString(Version)
	c.WriteBulkString("proto")
	c.WriteInt(2)
	c.WriteBulkString("id")
	c.WriteInt64(s.totalConns.Load())
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

func (s *Server) authFailed(c *conn) { s.authFailures.event(c.remoteAddr()) }
