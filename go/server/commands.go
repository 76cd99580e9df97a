package server

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/redcon"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// command is one entry of the command table. arity counts the command name,
// Redis style: n means exactly n arguments, -n at least n.
type command struct {
	arity  int
	noAuth bool // allowed before AUTH
	run    func(s *Server, c redcon.Conn, args [][]byte)
}

var commands map[string]*command

func init() {
	commands = map[string]*command{
		"ping":     {-1, false, cmdPing},
		"echo":     {2, false, func(s *Server, c redcon.Conn, a [][]byte) { c.WriteBulk(a[1]) }},
		"hello":    {-1, true, cmdHello},
		"auth":     {-2, true, cmdAuth},
		"quit":     {-1, true, cmdQuit},
		"command":  {-1, false, cmdCommand},
		"config":   {-2, false, cmdConfig},
		"select":   {2, false, cmdSelect},
		"get":      {2, false, cmdGet},
		"set":      {-3, false, cmdSet},
		"setnx":    {3, false, cmdSetNX},
		"setex":    {4, false, cmdSetEx(time.Second)},
		"psetex":   {4, false, cmdSetEx(time.Millisecond)},
		"del":      {-2, false, cmdDel},
		"exists":   {-2, false, cmdExists},
		"expire":   {3, false, cmdExpire(time.Second)},
		"pexpire":  {3, false, cmdExpire(time.Millisecond)},
		"persist":  {2, false, cmdPersist},
		"ttl":      {2, false, cmdTTL(time.Second)},
		"pttl":     {2, false, cmdTTL(time.Millisecond)},
		"incr":     {2, false, cmdIncr(1, false)},
		"decr":     {2, false, cmdIncr(-1, false)},
		"incrby":   {3, false, cmdIncr(1, true)},
		"decrby":   {3, false, cmdIncr(-1, true)},
		"delifeq":  {3, false, cmdDelIfEq},
		"delex":    {-2, false, cmdDelEx},
		"mget":     {-2, false, cmdMGet},
		"mset":     {-3, false, cmdMSet},
		"dbsize":   {1, false, cmdDBSize},
		"flushdb":  {-1, false, cmdFlush},
		"flushall": {-1, false, cmdFlush},
		"info":     {-1, false, cmdInfo},

		// The ops the PHP extension's server mode needs where Redis has no
		// exact equivalent. TTLs in milliseconds; 0 = none.
		"ephpm.setnxfenced": {4, false, cmdSetNXFenced},
		"ephpm.fence":       {3, false, cmdFence},
		"ephpm.pexpire":     {3, false, cmdEphpmExpire},
		"ephpm.pexpireifeq": {4, false, cmdEphpmExpireIfEq},
		"ephpm.pttlifeq":    {3, false, cmdPTTLIfEq},
		"ephpm.incrby":      {4, false, cmdEphpmIncrBy},
		"ephpm.stats":       {1, false, cmdStats},
	}
}

// serveRESP dispatches one command.
func (s *Server) serveRESP(c redcon.Conn, cmd redcon.Command) {
	s.totalCmds.Add(1)
	var lower [24]byte
	name := cmd.Args[0]
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
	if !ok {
		c.WriteError(fmt.Sprintf("ERR unknown command '%.64s', with args beginning with: %s", cmd.Args[0], argsPreview(cmd.Args[1:])))
		return
	}
	if n := len(cmd.Args); (def.arity > 0 && n != def.arity) || (def.arity < 0 && n < -def.arity) {
		c.WriteError(fmt.Sprintf("ERR wrong number of arguments for '%s' command", name))
		return
	}
	if cl, _ := c.Context().(*client); cl != nil && !cl.authed && !def.noAuth {
		c.WriteError("NOAUTH Authentication required.")
		return
	}
	def.run(s, c, cmd.Args)
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

// key views an argument as a string without copying: the store copies what
// it keeps, and redcon's arguments live until the command returns.
func key(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func writeStoreErr(c redcon.Conn, err error) {
	switch {
	case errors.Is(err, kv.ErrFull):
		c.WriteError("OOM command not allowed when used memory > 'maxmemory' (" + err.Error() + ")")
	case errors.Is(err, kv.ErrValueTooLarge):
		c.WriteError("TOOLARGE " + err.Error())
	case errors.Is(err, kv.ErrNotInteger):
		c.WriteError("ERR value is not an integer or out of range")
	case errors.Is(err, kv.ErrOverflow):
		c.WriteError("ERR increment or decrement would overflow")
	default:
		c.WriteError("ERR " + err.Error())
	}
}

// replyBool answers a store call's (bool, error) as :1/:0 or an error:
// replyBool(c)(s.store.Del(k)).
func replyBool(c redcon.Conn) func(bool, error) {
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

const errNotInt = "ERR value is not an integer or out of range"
const errSyntax = "ERR syntax error"

func parseInt(b []byte) (int64, bool) {
	n, err := strconv.ParseInt(key(b), 10, 64)
	return n, err == nil
}

// ttlArg parses a positive expiry in unit for SET/SETEX-style commands.
func ttlArg(c redcon.Conn, b []byte, unit time.Duration, cmd string) (time.Duration, bool) {
	n, ok := parseInt(b)
	if !ok {
		c.WriteError(errNotInt)
		return 0, false
	}
	if n <= 0 || n > math.MaxInt64/int64(unit) {
		c.WriteError("ERR invalid expire time in '" + cmd + "' command")
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// msArg parses a TTL in milliseconds for EPHPM.* commands (0 = none).
func msArg(c redcon.Conn, b []byte) (time.Duration, bool) {
	n, ok := parseInt(b)
	if !ok || n < 0 || n > math.MaxInt64/int64(time.Millisecond) {
		c.WriteError("ERR invalid expire time")
		return 0, false
	}
	return time.Duration(n) * time.Millisecond, true
}

func cmdPing(s *Server, c redcon.Conn, a [][]byte) {
	switch len(a) {
	case 1:
		c.WriteString("PONG")
	case 2:
		c.WriteBulk(a[1])
	default:
		c.WriteError("ERR wrong number of arguments for 'ping' command")
	}
}

// HELLO [protover [AUTH username password] [SETNAME name]]: RESP2 only.
func cmdHello(s *Server, c redcon.Conn, a [][]byte) {
	cl := c.Context().(*client)
	if len(a) > 1 {
		if v, ok := parseInt(a[1]); !ok || v != 2 {
			c.WriteError("NOPROTO sorry, this protocol version is not supported")
			return
		}
		for i := 2; i < len(a); i++ {
			switch strings.ToLower(string(a[i])) {
			case "auth":
				if i+2 >= len(a) {
					c.WriteError(errSyntax)
					return
				}
				if !s.checkPassword(a[i+2]) {
					c.WriteError("WRONGPASS invalid username-password pair or user is disabled.")
					return
				}
				cl.authed = true
				i += 2
			case "setname":
				i++
			default:
				c.WriteError(errSyntax)
				return
			}
		}
	}
	if !cl.authed {
		c.WriteError("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
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
	return s.cfg.Password != "" && subtleEqual(p, []byte(s.cfg.Password))
}

// AUTH password | AUTH default password
func cmdAuth(s *Server, c redcon.Conn, a [][]byte) {
	if len(a) > 3 {
		c.WriteError(errSyntax)
		return
	}
	if s.cfg.Password == "" {
		c.WriteError("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
		return
	}
	pass := a[len(a)-1]
	if (len(a) == 3 && string(a[1]) != "default") || !s.checkPassword(pass) {
		s.log.Warn("failed AUTH", "remote", c.RemoteAddr())
		c.WriteError("WRONGPASS invalid username-password pair or user is disabled.")
		return
	}
	c.Context().(*client).authed = true
	c.WriteString("OK")
}

func cmdQuit(s *Server, c redcon.Conn, a [][]byte) {
	c.WriteString("OK")
	c.Close()
}

// COMMAND: enough for redis-cli, which asks for COMMAND DOCS at start.
func cmdCommand(s *Server, c redcon.Conn, a [][]byte) {
	if len(a) > 1 && strings.EqualFold(string(a[1]), "count") {
		c.WriteInt(len(commands))
		return
	}
	c.WriteArray(0)
}

// CONFIG GET answers each parameter with an empty value, so tools that
// probe settings (redis-benchmark asks for save and appendonly) go on.
func cmdConfig(s *Server, c redcon.Conn, a [][]byte) {
	if strings.EqualFold(string(a[1]), "get") {
		c.WriteArray(2 * (len(a) - 2))
		for _, p := range a[2:] {
			c.WriteBulk(p)
			c.WriteBulkString("")
		}
		return
	}
	c.WriteError("ERR CONFIG " + strings.ToUpper(string(a[1])) + " is not supported")
}

func cmdSelect(s *Server, c redcon.Conn, a [][]byte) {
	if n, ok := parseInt(a[1]); !ok {
		c.WriteError(errNotInt)
	} else if n != 0 {
		c.WriteError("ERR DB index is out of range")
	} else {
		c.WriteString("OK")
	}
}

func cmdGet(s *Server, c redcon.Conn, a [][]byte) {
	ok, err := s.store.View(key(a[1]), c.WriteBulk)
	switch {
	case err != nil:
		writeStoreErr(c, err)
	case !ok:
		c.WriteNull()
	}
}

// SET key value [NX|XX|IFEQ v] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL]
func cmdSet(s *Server, c redcon.Conn, a [][]byte) {
	var opt store.SetOptions
	var expiry bool
	for i := 3; i < len(a); i++ {
		arg := strings.ToUpper(string(a[i]))
		next := i+1 < len(a)
		switch {
		case arg == "NX" && opt.Cond == store.Always:
			opt.Cond = store.IfAbsent
		case arg == "XX" && opt.Cond == store.Always:
			opt.Cond = store.IfPresent
		case arg == "IFEQ" && opt.Cond == store.Always && next:
			opt.Cond, opt.Equal = store.IfEqual, a[i+1]
			i++
		case arg == "GET" && !opt.GetOld:
			opt.GetOld = true
		case arg == "KEEPTTL" && !expiry:
			opt.KeepTTL, expiry = true, true
		case (arg == "EX" || arg == "PX" || arg == "EXAT" || arg == "PXAT") && !expiry && next:
			unit := time.Second
			if arg[0] == 'P' {
				unit = time.Millisecond
			}
			d, ok := ttlArg(c, a[i+1], unit, "set")
			if !ok {
				return
			}
			if strings.HasSuffix(arg, "AT") {
				// absolute Unix time: a time already past leaves the key expired
				d = max(time.Until(time.Unix(0, 0).Add(d)), 1)
			}
			opt.TTL, expiry = d, true
			i++
		default:
			c.WriteError(errSyntax)
			return
		}
	}
	res, err := s.store.SetWith(key(a[1]), a[2], opt)
	switch {
	case err != nil:
		writeStoreErr(c, err)
	case opt.GetOld && res.HadOld:
		c.WriteBulk(res.Old)
	case opt.GetOld || !res.Stored:
		c.WriteNull()
	default:
		c.WriteString("OK")
	}
}

func cmdSetNX(s *Server, c redcon.Conn, a [][]byte) {
	replyBool(c)(s.store.SetNX(key(a[1]), a[2], 0))
}

func cmdSetEx(unit time.Duration) func(*Server, redcon.Conn, [][]byte) {
	name := "setex"
	if unit == time.Millisecond {
		name = "psetex"
	}
	return func(s *Server, c redcon.Conn, a [][]byte) {
		ttl, ok := ttlArg(c, a[2], unit, name)
		if !ok {
			return
		}
		if err := s.store.Set(key(a[1]), a[3], ttl); err != nil {
			writeStoreErr(c, err)
			return
		}
		c.WriteString("OK")
	}
}

// countKeys runs op on every key argument and replies with how many hit.
func countKeys(c redcon.Conn, keys [][]byte, op func(string) (bool, error)) {
	n := 0
	for _, k := range keys {
		ok, err := op(key(k))
		if err != nil {
			writeStoreErr(c, err)
			return
		}
		if ok {
			n++
		}
	}
	c.WriteInt(n)
}

func cmdDel(s *Server, c redcon.Conn, a [][]byte)    { countKeys(c, a[1:], s.store.Del) }
func cmdExists(s *Server, c redcon.Conn, a [][]byte) { countKeys(c, a[1:], s.store.Exists) }

// EXPIRE/PEXPIRE key n: a non-positive n deletes the key, as in Redis.
func cmdExpire(unit time.Duration) func(*Server, redcon.Conn, [][]byte) {
	return func(s *Server, c redcon.Conn, a [][]byte) {
		n, ok := parseInt(a[2])
		if !ok {
			c.WriteError(errNotInt)
			return
		}
		if n <= 0 {
			replyBool(c)(s.store.Del(key(a[1])))
			return
		}
		if n > math.MaxInt64/int64(unit) {
			c.WriteError("ERR invalid expire time in 'expire' command")
			return
		}
		replyBool(c)(s.store.Expire(key(a[1]), time.Duration(n)*unit))
	}
}

func cmdPersist(s *Server, c redcon.Conn, a [][]byte) { replyBool(c)(s.store.Persist(key(a[1]))) }

func cmdTTL(unit time.Duration) func(*Server, redcon.Conn, [][]byte) {
	return func(s *Server, c redcon.Conn, a [][]byte) {
		ttl, err := s.store.TTL(key(a[1]))
		if err != nil {
			writeStoreErr(c, err)
			return
		}
		writeTTL(c, ttl, unit)
	}
}

// writeTTL replies -2, -1 or the time left in unit, rounded as Redis does.
func writeTTL(c redcon.Conn, ttl time.Duration, unit time.Duration) {
	switch ttl {
	case kv.TTLMissing, kv.TTLPersistent:
		c.WriteInt64(int64(ttl))
	default:
		c.WriteInt64(int64((ttl + unit/2) / unit))
	}
}

func cmdIncr(sign int64, withArg bool) func(*Server, redcon.Conn, [][]byte) {
	return func(s *Server, c redcon.Conn, a [][]byte) {
		by := int64(1)
		if withArg {
			n, ok := parseInt(a[2])
			if !ok {
				c.WriteError(errNotInt)
				return
			}
			if sign < 0 && n == math.MinInt64 {
				c.WriteError("ERR decrement would overflow")
				return
			}
			by = n
		}
		n, err := s.store.Incr(key(a[1]), sign*by, 0)
		if err != nil {
			writeStoreErr(c, err)
			return
		}
		c.WriteInt64(n)
	}
}

// DELIFEQ key value (Valkey 9): 1 when deleted, 0 otherwise.
func cmdDelIfEq(s *Server, c redcon.Conn, a [][]byte) {
	replyBool(c)(s.store.DelIfEq(key(a[1]), a[2]))
}

// DELEX key [IFEQ value | IFNE value] (Redis 8.4 / Valkey 9.2).
func cmdDelEx(s *Server, c redcon.Conn, a [][]byte) {
	switch {
	case len(a) == 2:
		replyBool(c)(s.store.Del(key(a[1])))
	case len(a) == 4 && strings.EqualFold(string(a[2]), "ifeq"):
		replyBool(c)(s.store.DelIfEq(key(a[1]), a[3]))
	case len(a) == 4 && strings.EqualFold(string(a[2]), "ifne"):
		replyBool(c)(s.store.DelIfNe(key(a[1]), a[3]))
	default:
		c.WriteError(errSyntax)
	}
}

func cmdMGet(s *Server, c redcon.Conn, a [][]byte) {
	values := make([][]byte, 0, len(a)-1)
	found := make([]bool, 0, len(a)-1)
	for _, k := range a[1:] {
		v, ok, err := s.store.Value(key(k))
		if err != nil {
			writeStoreErr(c, err)
			return
		}
		values, found = append(values, v), append(found, ok)
	}
	c.WriteArray(len(values))
	for i, v := range values {
		if found[i] {
			c.WriteBulk(v)
		} else {
			c.WriteNull()
		}
	}
}

// MSET sets each pair in turn; unlike Redis it is not atomic across keys.
func cmdMSet(s *Server, c redcon.Conn, a [][]byte) {
	if len(a)%2 != 1 {
		c.WriteError("ERR wrong number of arguments for 'mset' command")
		return
	}
	for i := 1; i < len(a); i += 2 {
		if err := s.store.Set(key(a[i]), a[i+1], 0); err != nil {
			writeStoreErr(c, err)
			return
		}
	}
	c.WriteString("OK")
}

func cmdDBSize(s *Server, c redcon.Conn, a [][]byte) { c.WriteInt64(s.store.Counters().Keys) }

func cmdFlush(s *Server, c redcon.Conn, a [][]byte) {
	if len(a) > 2 || (len(a) == 2 && !strings.EqualFold(string(a[1]), "sync") && !strings.EqualFold(string(a[1]), "async")) {
		c.WriteError(errSyntax)
		return
	}
	s.store.Flush()
	c.WriteString("OK")
}

func cmdInfo(s *Server, c redcon.Conn, a [][]byte) {
	st := s.store.Counters()
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Server\r\nredis_version:7.0.0\r\nephpm_kv_version:%s\r\nredis_mode:standalone\r\nprocess_id:%d\r\nuptime_in_seconds:%d\r\n",
		Version, pid, int64(time.Since(s.started).Seconds()))
	fmt.Fprintf(&b, "\r\n# Clients\r\nconnected_clients:%d\r\nmaxclients:%d\r\n", s.clients.Load(), s.cfg.MaxClients)
	fmt.Fprintf(&b, "\r\n# Memory\r\nused_memory:%d\r\nmaxmemory:%d\r\nmaxmemory_policy:noeviction\r\n", st.BytesUsed, st.BytesLimit)
	fmt.Fprintf(&b, "\r\n# Stats\r\ntotal_connections_received:%d\r\ntotal_commands_processed:%d\r\nrejected_connections:%d\r\nkeyspace_hits:%d\r\nkeyspace_misses:%d\r\nexpired_keys:%d\r\nrejected_writes:%d\r\ncompressed_keys:%d\r\n",
		s.totalConns.Load(), s.totalCmds.Load(), s.rejectedConns.Load(), st.Hits, st.Misses, st.Expired, st.Rejected, st.Compressed)
	fmt.Fprintf(&b, "\r\n# Keyspace\r\ndb0:keys=%d\r\n", st.Keys)
	c.WriteBulk(b.Bytes())
}

func cmdSetNXFenced(s *Server, c redcon.Conn, a [][]byte) {
	ttl, ok := msArg(c, a[3])
	if !ok {
		return
	}
	fence, _, err := s.store.SetNXFenced(key(a[1]), a[2], ttl)
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	c.WriteInt64(fence) // 0: held by someone else
}

func cmdFence(s *Server, c redcon.Conn, a [][]byte) {
	fence, ok := parseInt(a[2])
	if !ok {
		c.WriteError(errNotInt)
		return
	}
	replyBool(c)(s.store.Fence(key(a[1]), fence))
}

// EPHPM.PEXPIRE key ms: 0 removes the expiry; 1 for any live key.
func cmdEphpmExpire(s *Server, c redcon.Conn, a [][]byte) {
	if ttl, ok := msArg(c, a[2]); ok {
		replyBool(c)(s.store.Expire(key(a[1]), ttl))
	}
}

func cmdEphpmExpireIfEq(s *Server, c redcon.Conn, a [][]byte) {
	if ttl, ok := msArg(c, a[3]); ok {
		replyBool(c)(s.store.ExpireIfEq(key(a[1]), a[2], ttl))
	}
}

// EPHPM.PTTLIFEQ key token: microseconds left while the value equals token.
func cmdPTTLIfEq(s *Server, c redcon.Conn, a [][]byte) {
	ttl, err := s.store.TTLIfEq(key(a[1]), a[2])
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	writeTTL(c, ttl, time.Microsecond)
}

// EPHPM.INCRBY key by ms: the ttl applies when the counter is created.
func cmdEphpmIncrBy(s *Server, c redcon.Conn, a [][]byte) {
	by, ok := parseInt(a[2])
	if !ok {
		c.WriteError(errNotInt)
		return
	}
	ttl, ok := msArg(c, a[3])
	if !ok {
		return
	}
	n, err := s.store.Incr(key(a[1]), by, ttl)
	if err != nil {
		writeStoreErr(c, err)
		return
	}
	c.WriteInt64(n)
}

// EPHPM.STATS: the store's counters as name/value pairs.
func cmdStats(s *Server, c redcon.Conn, a [][]byte) {
	st := s.store.Counters()
	pairs := []struct {
		name  string
		value int64
	}{
		{"keys", st.Keys}, {"bytes_used", st.BytesUsed}, {"bytes_limit", st.BytesLimit},
		{"hits", st.Hits}, {"misses", st.Misses}, {"expired", st.Expired}, {"rejected", st.Rejected},
		{"compressed", st.Compressed}, {"max_value_size", st.ValueMax}, {"compress_min", st.CompressMin},
	}
	c.WriteArray(2 * len(pairs))
	for _, p := range pairs {
		c.WriteBulkString(p.name)
		c.WriteInt64(p.value)
	}
}
