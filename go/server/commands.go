package server

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// The command table and dispatch. The commands live by family, as in
// Valkey: cmd_connection.go, cmd_string.go (strings and keys),
// cmd_expire.go, cmd_ephpm.go, cmd_session.go, cmd_lease.go,
// cmd_ratelimit.go, cmd_server.go, cmd_scan.go (SCAN, TYPE, EPHPM.SCAN)
// and cmd_client.go (CLIENT).

// command is one entry of the command table. arity counts the command name,
// Redis style: n means exactly n arguments, -n at least n.
type command struct {
	name   string
	arity  int
	noAuth bool // allowed before AUTH
	run    func(s *Server, c *conn, args [][]byte)
}

var commandList = []command{
	{"ping", -1, false, cmdPing},
	{"echo", 2, false, cmdEcho},
	{"hello", -1, true, cmdHello},
	{"auth", -2, true, cmdAuth},
	{"quit", -1, true, cmdQuit},
	{"select", 2, false, cmdSelect},
	{"client", -2, false, cmdClient},

	{"get", 2, false, cmdGet},
	{"set", -3, false, cmdSet},
	{"setnx", 3, false, cmdSetNX},
	{"setex", 4, false, cmdSetEx},
	{"psetex", 4, false, cmdSetEx},
	{"del", -2, false, cmdDel},
	{"exists", -2, false, cmdExists},
	{"incr", 2, false, cmdIncr},
	{"decr", 2, false, cmdIncr},
	{"incrby", 3, false, cmdIncr},
	{"decrby", 3, false, cmdIncr},
	{"delifeq", 3, false, cmdDelIfEq},
	{"delex", -2, false, cmdDelEx},
	{"mget", -2, false, cmdMGet},
	{"mset", -3, false, cmdMSet},
	{"scan", -2, false, cmdScan},
	{"type", 2, false, cmdType},

	{"expire", 3, false, cmdExpire},
	{"pexpire", 3, false, cmdExpire},
	{"persist", 2, false, cmdPersist},
	{"ttl", 2, false, cmdTTL},
	{"pttl", 2, false, cmdTTL},

	{"command", -1, false, cmdCommand},
	{"config", -2, false, cmdConfig},
	{"dbsize", 1, false, cmdDBSize},
	{"flushdb", -1, false, cmdFlush},
	{"flushall", -1, false, cmdFlush},
	{"info", -1, false, cmdInfo},

	// The ops the PHP extension's server mode needs where Redis has no
	// exact equivalent. TTLs in milliseconds; 0 = none.
	{"ephpm.setnxfenced", 4, false, cmdSetNXFenced},
	{"ephpm.fence", 3, false, cmdFence},
	{"ephpm.pexpire", 3, false, cmdEphpmExpire},
	{"ephpm.pexpireifeq", 4, false, cmdEphpmExpireIfEq},
	{"ephpm.pttlifeq", 3, false, cmdPTTLIfEq},
	{"ephpm.incrby", 4, false, cmdEphpmIncrBy},
	{"ephpm.stats", 1, false, cmdStats},
	{"ephpm.setiflocked", 7, false, cmdSetIfLocked},
	{"ephpm.setevictable", -4, false, cmdSetEvictable},
	{"ephpm.scan", -3, false, cmdEphpmScan},

	{"ephpm.leaseacquire", 7, false, cmdLeaseAcquire},
	{"ephpm.leaserelease", 3, false, cmdLeaseRelease},
	{"ephpm.leaserenew", 4, false, cmdLeaseRenew},
	{"ephpm.leasecount", 2, false, cmdLeaseCount},
	{"ephpm.leasettl", 3, false, cmdLeaseTTL},
	{"ephpm.ratelimit", 4, false, cmdRateLimit},
}

var commands = map[string]*command{}

func init() {
	for i := range commandList {
		commands[commandList[i].name] = &commandList[i]
	}
}

// dispatch runs one command.
func (s *Server) dispatch(c *conn, args [][]byte) {
	s.totalCmds.Add(1)
	var lower [24]byte
	name := args[0]
	if len(name) <= len(lower) {
		for i, b := range name {
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			lower[i] = b
		}
		name = lower[:len(name)]
	}
	def, ok := commands[string(name)]
	c.lastCmd.Store(def) // nil for an unknown command, as Redis's cmd=NULL
	switch n := len(args); {
	case !ok:
		c.WriteError(errUnknownCommand(args[0], args[1:]))
	case (def.arity > 0 && n != def.arity) || (def.arity < 0 && n < -def.arity):
		c.WriteError(errWrongArgs(def.name))
	case !c.authed && !def.noAuth:
		c.WriteError(errNoAuth)
	default:
		def.run(s, c, args)
	}
}

func argsPreview(args [][]byte) string {
	var b strings.Builder
	for i, a := range args {
		if i == 4 {
			break
		}
		fmt.Fprintf(&b, "'%.32s' ", a)
	}
	return b.String()
}

// cmdName is the command's name for messages, lower case as Redis has it.
func cmdName(a [][]byte) string { return strings.ToLower(string(a[0])) }

// key views an argument as a string without copying: the store copies what
// it keeps, and the arguments live until the command returns.
func key(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func parseInt(b []byte) (int64, bool) {
	n, err := strconv.ParseInt(key(b), 10, 64)
	return n, err == nil
}
