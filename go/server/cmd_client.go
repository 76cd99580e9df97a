package server

import (
	"bytes"
	"cmp"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"
)

// CLIENT LIST, INFO, ID, SETNAME and GETNAME, as Redis 7 answers them.

const errClientName = "ERR Client names cannot contain spaces, newlines or special characters."

func cmdClient(s *Server, c *conn, a [][]byte) {
	sub := strings.ToLower(string(a[1]))
	switch {
	case sub == "list":
		cmdClientList(s, c, a)
	case sub == "info" && len(a) == 2:
		var b bytes.Buffer
		c.describe(&b, time.Now())
		c.WriteBulk(b.Bytes())
	case sub == "id" && len(a) == 2:
		c.WriteInt64(c.id)
	case sub == "getname" && len(a) == 2:
		if name := c.name.Load(); name != nil {
			c.WriteBulkString(*name)
		} else {
			c.WriteNull()
		}
	case sub == "setname" && len(a) == 3:
		if c.setName(a[2]) {
			c.WriteString("OK")
		} else {
			c.WriteError(errClientName)
		}
	case sub == "list" || sub == "info" || sub == "id" || sub == "getname" || sub == "setname":
		c.WriteError("ERR wrong number of arguments for 'client|" + sub + "' command")
	default:
		c.WriteError("ERR unknown subcommand '" + truncate(string(a[1]), 128) + "'. Try CLIENT HELP.")
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// setName names the connection, as Redis allows: no spaces, no control
// characters; "" removes the name.
func (c *conn) setName(b []byte) bool {
	for _, ch := range b {
		if ch < '!' || ch > '~' {
			return false
		}
	}
	if len(b) == 0 {
		c.name.Store(nil)
		return true
	}
	name := string(b)
	c.name.Store(&name)
	return true
}

// CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id ...]: one line
// per connection, in the order of their ids. Every client is a normal
// one here.
func cmdClientList(s *Server, c *conn, a [][]byte) {
	var ids []int64
	normal := true
	for i := 2; i < len(a); i++ {
		switch opt := strings.ToLower(string(a[i])); {
		case opt == "type" && i+1 < len(a):
			switch t := strings.ToLower(string(a[i+1])); t {
			case "normal":
			case "master", "replica", "slave", "pubsub":
				normal = false
			default:
				c.WriteError("ERR Unknown client type '" + truncate(t, 64) + "'")
				return
			}
			i++
		case opt == "id" && i+1 < len(a):
			for i++; i < len(a); i++ {
				id, ok := parseInt(a[i])
				if !ok || id < 1 {
					c.WriteError("ERR Invalid client ID")
					return
				}
				ids = append(ids, id)
			}
		default:
			c.WriteError(errSyntax)
			return
		}
	}
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for other := range s.conns {
		if normal && (ids == nil || slices.Contains(ids, other.id)) {
			conns = append(conns, other)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(conns, func(x, y *conn) int { return cmp.Compare(x.id, y.id) })
	var b bytes.Buffer
	now := time.Now()
	for _, other := range conns {
		other.describe(&b, now)
	}
	c.WriteBulk(b.Bytes())
}

// describe appends the connection's CLIENT LIST line: Redis 7's fields
// that mean something here, in its order. addr and laddr are a TCP
// client's ends, or for a unix socket its path and 0, as Redis gives
// them; flags N (normal) or U (unix socket); cmd the last command's name
// (NULL before the first, or after an unknown one); tot-mem the bytes its
// buffers hold (the share of --max-client-memory).
func (c *conn) describe(b *bytes.Buffer, now time.Time) {
	addr, laddr, flags := "", "", "N"
	if c.nc != nil {
		if l, ok := c.nc.LocalAddr().(*net.UnixAddr); ok {
			addr, laddr, flags = l.Name+":0", l.Name+":0", "U"
		} else {
			addr, laddr = c.nc.RemoteAddr().String(), c.nc.LocalAddr().String()
		}
	}
	name := ""
	if n := c.name.Load(); n != nil {
		name = *n
	}
	cmd := "NULL"
	if def := c.lastCmd.Load(); def != nil {
		cmd = def.name
	}
	age, idle := int64(0), int64(0)
	if !c.created.IsZero() {
		age = int64(now.Sub(c.created) / time.Second)
		idle = max(0, (now.UnixNano()-c.lastActive.Load())/int64(time.Second))
	}
	buf := b.AvailableBuffer()
	buf = append(buf, "id="...)
	buf = strconv.AppendInt(buf, c.id, 10)
	buf = append(buf, " addr="...)
	buf = append(buf, addr...)
	buf = append(buf, " laddr="...)
	buf = append(buf, laddr...)
	buf = append(buf, " name="...)
	buf = append(buf, name...)
	buf = append(buf, " age="...)
	buf = strconv.AppendInt(buf, age, 10)
	buf = append(buf, " idle="...)
	buf = strconv.AppendInt(buf, idle, 10)
	buf = append(buf, " flags="...)
	buf = append(buf, flags...)
	buf = append(buf, " db=0 sub=0 psub=0 ssub=0 multi=-1 tot-mem="...)
	buf = strconv.AppendInt(buf, c.mem.Load(), 10)
	buf = append(buf, " cmd="...)
	buf = append(buf, cmd...)
	buf = append(buf, " user=default resp=2\n"...)
	b.Write(buf)
}
