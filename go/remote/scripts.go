package remote

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/ephpm/ephpm-kv/kv"
)

// The operations a Valkey or Redis has no command for, as Lua scripts. A
// script runs as one atomic step on the server (nothing else runs until it
// returns, and expiry is judged at one instant for all of it), which is
// what makes each of these a single check-and-act, like the ephpm-kv
// server's EPHPM.* commands. TTLs come in milliseconds, "0" for none.
//
// Numbers: Lua's are doubles, exact only to 2^53, so no int64 passes
// through one. Counters are read back with GET (a string), and fences are
// compared as decimal strings (below()).
//
// Each script is loaded once per connection (SCRIPT LOAD pipelined before
// its first EVALSHA, so loading costs no round trip) and run with EVALSHA;
// a NOSCRIPT reply (the script did not run) loads it again and retries once.

type script struct {
	src string
	sha string
	bit uint32 // in client.loaded
}

// scripts lists every script, in the order of their bits.
var scripts []*script

func newScript(src string) *script {
	sum := sha1.Sum([]byte(src))
	s := &script{src: src, sha: hex.EncodeToString(sum[:]), bit: 1 << len(scripts)}
	scripts = append(scripts, s)
	return s
}

// evalsha appends EVALSHA for s with keys keys and args more arguments,
// which the caller appends next (keys first); on a connection that has not
// loaded s yet, a SCRIPT LOAD goes before it, in the same round trip.
func (c *client) evalsha(s *script, keys, args int) {
	if c.loaded&s.bit == 0 {
		c.command(3)
		c.skip[len(c.skip)-1] = true // roundTrip reads its reply and drops it
		c.arg("SCRIPT")
		c.arg("LOAD")
		c.arg(s.src)
		c.loaded |= s.bit
	}
	c.command(3 + keys + args)
	c.arg("EVALSHA")
	c.arg(s.sha)
	c.argBytes(strconv.AppendInt(nil, int64(keys), 10))
}

// keyCommand starts a command on key with args more arguments, which the
// caller appends next: script s on a Valkey or Redis, the ephpm-kv server's
// own command name otherwise (the two take the same arguments).
func (c *client) keyCommand(s *script, name, key string, args int) {
	if c.dialect.redis() {
		c.evalsha(s, 1, args)
	} else {
		c.command(2 + args)
		c.arg(name)
	}
	c.arg(key)
}

// Redis has PEXPIRE for a positive TTL and PERSIST for none; ttl() picks.
const luaTTL = `
local function ttl(key, ms)
  if ms == '0' then redis.call('PERSIST', key) else redis.call('PEXPIRE', key, ms) end
end
`

// luaSet defines set(): SET key value with PX ms, or without expiry for "0".
const luaSet = `
local function set(key, value, ms)
  if ms == '0' then redis.call('SET', key, value) else redis.call('SET', key, value, 'PX', ms) end
end
`

// luaRenewFence defines renew_fence(): give a lock's fence record (see
// lockFenceKey; nil: none) the TTL ms when it is there and records token,
// the lock's value, so a renewal keeps the fence the lock was issued with.
// Needs luaTTL.
const luaRenewFence = `
local function renew_fence(record, token, ms)
  if not record then return end
  local r = redis.call('GET', record)
  local i = r and string.find(r, ':', 1, true)
  if i and string.sub(r, i + 1) == token then ttl(record, ms) end
end
`

// luaNow is the server's clock in microseconds (below 2^53: exact).
const luaNow = `
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
`

// luaFenceCounter defines two functions: fence_counter reads and checks the
// fence counter, to be called before anything is touched (see
// scriptSetNXFenced); next_fence then issues the next fence, as a string: the
// counter plus one, or the clock when higher.
const luaFenceCounter = `
local function fence_counter(key)
  local c = redis.call('GET', key) or '0'
  if not string.find(c, '^%d+$') or #c > 16 or tonumber(c) >= 9007199254740991 then
    error(redis.error_reply('ERR value is not an integer or out of range'))
  end
  return tonumber(c)
end
local function next_fence(key, last, now)
  local f = string.format('%.0f', math.max(last + 1, now))
  redis.call('SET', key, f)
  return f
end
`

var (
	// KEYS: key; ARGV: token. 1 when deleted.
	scriptDelIfEq = newScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

	// KEYS: key; ARGV: ms. Expire with "0" (PERSIST would say 0 for a
	// live key without expiry). 1 for a live key.
	scriptExpire = newScript(luaTTL + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
ttl(KEYS[1], ARGV[1])
return 1`)

	// KEYS: key[, its fence record]; ARGV: token, ms. 1 when the value
	// was token; the record, when it is this token's, is renewed alike.
	scriptExpireIfEq = newScript(luaTTL + luaRenewFence + `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
ttl(KEYS[1], ARGV[2])
renew_fence(KEYS[2], ARGV[1], ARGV[2])
return 1`)

	// KEYS: key; ARGV: token. PTTL while the value is token, else -2.
	scriptTTLIfEq = newScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -2 end
return redis.call('PTTL', KEYS[1])`)

	// KEYS: key; ARGV: by, ms. INCRBY, with the TTL only for a counter it
	// creates; the result as a string (GET), exact over all of int64, read
	// before the PEXPIRE: a 1 ms TTL can run out inside the script, and a
	// GET after it then answered nil. INCRBY's own errors (not an integer,
	// overflow) leave it unchanged.
	scriptIncr = newScript(`
local fresh = redis.call('EXISTS', KEYS[1]) == 0
redis.call('INCRBY', KEYS[1], ARGV[1])
local n = redis.call('GET', KEYS[1])
if fresh and ARGV[2] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`)

	// KEYS: lock, fence counter; ARGV: token, ms. 0 when the lock is
	// held (no fence used up), else the fence, as a string: the counter
	// plus one, or the server's clock in microseconds when that is
	// higher, as the ephpm-kv server's counter starts from its clock. So
	// fences keep rising when the counter is lost (FLUSHALL, a replica
	// promoted before it had the last increments) unless more than a
	// million were issued a second or the clock stepped back. The
	// counter stays below 2^53, exact in a double, for centuries; one
	// that another client wrote out of that range (or not as digits) is
	// refused before the lock is touched: its next value would not rise
	// or not parse, after the lock was taken.
	//
	// KEYS[3], when given, is the lock's fence record (lockFenceKey),
	// written "<fence>:<token>" with the lock's TTL, for Scan's
	// KeyInfo.Fence (scriptKeyFence), unless the token is longer than
	// lockFenceMaxToken (Scan would not read such a value to compare).
	scriptSetNXFenced = newScript(luaSet + luaNow + luaFenceCounter + `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local f = next_fence(KEYS[2], fence_counter(KEYS[2]), now_us())
set(KEYS[1], ARGV[1], ARGV[2])
if KEYS[3] and #ARGV[1] <= ` + strconv.Itoa(lockFenceMaxToken) + ` then set(KEYS[3], f .. ':' .. ARGV[1], ARGV[2]) end
return f`)

	// KEYS: the resource's high-water mark; ARGV: fence, a canonical
	// decimal int64. 1 when fence is at least the mark (which it becomes).
	scriptFence = newScript(`
local function below(a, b)
  local na, nb = a:sub(1, 1) == '-', b:sub(1, 1) == '-'
  if na ~= nb then return na end
  if #a ~= #b then if na then return #a > #b else return #a < #b end end
  if na then return a > b else return a < b end
end
local h = redis.call('GET', KEYS[1])
if h and below(ARGV[1], h) then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`)

	// KEYS: data, lock[, the lock's fence record]; ARGV: value, ms,
	// token, lock ms, release ("1"). While the lock's value is token:
	// write the data, renew the lock (and its fence record, as
	// scriptExpireIfEq does) or release it. Written first, so a refused
	// write (OOM) leaves the lock as it was. 1 when written.
	scriptSetIfLocked = newScript(luaSet + luaTTL + luaRenewFence + `
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
set(KEYS[1], ARGV[1], ARGV[2])
if ARGV[5] == '1' then redis.call('DEL', KEYS[2]) else
  ttl(KEYS[2], ARGV[4])
  renew_fence(KEYS[3], ARGV[3], ARGV[4])
end
return 1`)
)

// Key names of what the scripts keep besides the user's keys. On one
// server the fence counter is one key, so fences rise across every lock
// name, as on the other engines. In a Redis Cluster a script may only touch
// keys of one slot, so there the counter must be one per hash tag
// (clusterFenceCounter), and fences then rise per hash tag only: two locks
// in different slots get fences from different counters (each starting
// from its node's clock), which cannot be compared.
const (
	fenceCounterKey = "ephpm:fence-counter"
	fenceMarkPrefix = "ephpm:fence-mark:" // + resource: keeps the resource's hash tag
	lockFencePrefix = "ephpm:lock-fence:" // a lock's fence record: see lockFenceKey
)

// lockFenceMaxToken is the longest lock value (token) whose fence is
// recorded: Scan compares the record with the key's value (GET), which it
// does only for values this short.
const lockFenceMaxToken = 1024

// A lock's fence record. Redis keeps nothing beside a key, so SetNXFenced
// also writes, in the same script, a record of the fence it issued,
// "<fence>:<token>" (token: the lock's value), with the lock's TTL, which
// ExpireIfEq and SetIfLocked renew with the lock while it still holds the
// token. Scan reports the fence while the record's token is the key's
// value (scriptKeyFence). A release (DelIfEq) or an overwrite (Set) leaves
// the record as it is, to expire with the TTL it had: harmless, since a
// lock taken again by a plain SetNX, or a Set of another value, no longer
// matches it, so Scan reports 0. (Taken again with the very token of the
// record, it would match: a token is one acquisition's.) A fenced lock
// without TTL leaves its record behind until the name is fenced again or
// the database flushed.

// lockFenceKey is lock's fence record key, in lock's Redis Cluster slot
// (a script touches one slot only) by its hash tag: a lock with a tag
// keeps it ("=" + lock), a lock without any '}' becomes the tag
// ("{" + lock + "}"). The two forms differ right after the prefix, so no
// two locks share a record (lock "x" and lock "{x}"). A lock with a '}'
// but no usable tag has none in a cluster (false; SetNXFenced refuses
// such a name there, ErrNoSlot).
func lockFenceKey(lock string) (string, bool) {
	if _, ok := hashTag(lock); ok {
		return lockFencePrefix + "=" + lock, true
	}
	if strings.IndexByte(lock, '}') >= 0 {
		return "", false
	}
	return lockFencePrefix + "{" + lock + "}", true
}

// serverLockFenceKey is lockFenceKey on one Valkey or Redis, where a
// script may touch any key: a lock name that cannot share a slot by tag
// gets a record all the same, in a third form.
func serverLockFenceKey(lock string) string {
	if k, ok := lockFenceKey(lock); ok {
		return k
	}
	return lockFencePrefix + "!" + lock
}

// clusterFenceCounter is the counter key for lock in a Redis Cluster: in
// lock's slot, by sharing its hash tag (the text between the first '{' and
// the next '}', when not empty), or by making all of lock the tag when it
// has none and can be one (no '}' in it). A lock name with a '}' but no
// usable tag ("a}b", "x{}y") cannot share a slot by name: cluster mode
// must refuse such names for fenced locks.
func clusterFenceCounter(lock string) (string, bool) {
	if tag, ok := hashTag(lock); ok {
		return fenceCounterKey + ":{" + tag + "}", true
	}
	if strings.IndexByte(lock, '}') >= 0 {
		return "", false // lock's '}' would end the counter's tag early
	}
	return fenceCounterKey + ":{" + lock + "}", true
}

// hashTag is Redis Cluster's hash tag of key, if it has one.
func hashTag(key string) (string, bool) {
	for i := 0; i < len(key); i++ {
		if key[i] != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j == i+1 {
					return "", false
				}
				return key[i+1 : j], true
			}
		}
		return "", false
	}
	return "", false
}

// The lease and rate-limit scripts (kv.Leases, kv.RateLimiter).
//
// Representation: a packed string, like the ephpm-kv server's (in a layout
// of its own), so
// GET, DEL, EXISTS and PTTL treat such a key as any key (kv.Leases's
// contract: GET finds it; a Redis hash or sorted set would be WRONGTYPE
// to GET). A lease set is "L\1", then per entry (struct.pack, big-endian)
// mode (1 shared, 2 exclusive, 3 permit, 0 a writer's intent), expiry and
// fence (8-byte integers: microseconds of the server's TIME, and the
// counter's fence, both below 2^53, exact in Lua's doubles), the token's
// length (1 byte) and the token. A rate log is "R\1", then the admitted
// calls' times (8-byte integers, oldest first; see scriptRateLimit for
// what a call reads and writes). A value without its family's
// header (a plain SET, the other family's, or one cut short) is refused
// with Redis's WRONGTYPE (kv.ErrWrongType) before anything is written, as
// is a key of another Redis type by GET itself.
//
// Every script reads TIME once (allowed since Redis 5, whose scripts
// replicate their effects, not themselves). A lease key's own expiry is
// its latest entry's, a rate log's one window after its latest call, in
// milliseconds rounded up, so Redis never drops a key with a live entry.
// A write is a SET, which a Redis over its maxmemory refuses (kv.ErrFull,
// never a false): a renewal or a release (but of the last entry, a DEL)
// at a full server fails loudly.

const luaWrongType = `
local wrongtype = '` + kv.RESPWrongType + `'
`

// luaLeases loads a lease set and saves it back.
const luaLeases = luaNow + luaWrongType + `
-- live: token -> {m = mode, x = expiry, f = fence}; expired entries are
-- left out, and go with the next save. Only a change is saved: a refusal
-- writes nothing (which a Redis over its maxmemory would refuse).
local function load(key, now)
  local v = redis.call('GET', key)
  local live = {}
  if not v then return live end
  if v:sub(1, 2) ~= 'L\1' then error(redis.error_reply(wrongtype)) end
  local pos, n = 3, #v
  while pos <= n do
    if pos + 17 > n then error(redis.error_reply(wrongtype)) end
    local m, x, f, l, p = struct.unpack('>Bi8i8B', v, pos)
    if m > 3 or p + l - 1 > n then error(redis.error_reply(wrongtype)) end
    if x > now then live[v:sub(p, p + l - 1)] = {m = m, x = x, f = f} end
    pos = p + l
  end
  return live
end
-- The key's expiry is its latest entry's; it goes with its last entry.
local function save(key, live)
  local parts, max = {'L\1'}, 0
  for tok, e in pairs(live) do
    parts[#parts + 1] = struct.pack('>Bi8i8B', e.m, e.x, e.f, #tok) .. tok
    if e.x > max then max = e.x end
  end
  if max == 0 then redis.call('DEL', key) return end
  redis.call('SET', key, table.concat(parts))
  redis.call('PEXPIREAT', key, string.format('%.0f', math.ceil(max / 1000)))
end
`

// errTooManyHolders is the reply to a new holder past kv.MaxLeaseHolders
// (or a writer's intent past as many intents): an error, never a false.
var errTooManyHolders = kv.RESPReply(kv.ErrTooManyHolders)

var (
	// KEYS: key, fence counter; ARGV: token, mode (1 shared, 2
	// exclusive, 3 permit), permits, ms, intent ms. The fence (a string)
	// when granted, else 0. What grants what is kv.Leases's contract.
	scriptLeaseAcquire = newScript(luaLeases + luaFenceCounter + `
local now = now_us()
local last = fence_counter(KEYS[2])
local live = load(KEYS[1], now)
local tok, mode, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local others, exclusive, intent, intents = 0, false, false, 0
for k, e in pairs(live) do
  if e.m == 0 then
    intents = intents + 1
    if k ~= tok then intent = true end
  elseif k ~= tok then
    others = others + 1
    if e.m == 2 then exclusive = true end
  end
end
local mine = live[tok]
local held = mine ~= nil and mine.m ~= 0
local ok
if held then
  -- a renewal, a promotion (alone) or another change, as the store decides
  ok = mine.m == mode or (mode == 2 and others == 0) or (mode == 1 and not exclusive) or
    (mode == 3 and not exclusive and others < limit)
elseif mode == 1 then
  ok = not exclusive and not intent
elseif mode == 2 then
  ok = others == 0
else
  ok = not exclusive and others < limit
end
if ok and not held and others >= ` + strconv.Itoa(kv.MaxLeaseHolders) + ` then
  return redis.error_reply([=[` + errTooManyHolders + `]=])
end
local fence, changed = 0, ok
if ok then
  if held then fence = mine.f else fence = next_fence(KEYS[2], last, now) end
  live[tok] = {m = mode, x = now + tonumber(ARGV[4]) * 1000, f = tonumber(fence)}
elseif mode == 2 and not held and ARGV[5] ~= '0' then
  if not mine and intents >= ` + strconv.Itoa(kv.MaxLeaseHolders) + ` then
    return redis.error_reply([=[` + errTooManyHolders + `]=])
  end
  live[tok] = {m = 0, x = now + math.min(tonumber(ARGV[5]), tonumber(ARGV[4])) * 1000, f = 0}
  changed = true
end
if changed then save(KEYS[1], live) end
if ok then return string.format('%.0f', fence) end
return 0`)

	// KEYS: key; ARGV: token. Drops token's entry; 1 when it was a lease.
	scriptLeaseRelease = newScript(luaLeases + `
local live = load(KEYS[1], now_us())
local mine = live[ARGV[1]]
if not mine then return 0 end
live[ARGV[1]] = nil
save(KEYS[1], live)
if mine.m == 0 then return 0 end
return 1`)

	// KEYS: key; ARGV: token, ms. 1 when token's live lease was renewed.
	scriptLeaseRenew = newScript(luaLeases + `
local now = now_us()
local live = load(KEYS[1], now)
local mine = live[ARGV[1]]
if not mine or mine.m == 0 then return 0 end
mine.x = now + tonumber(ARGV[2]) * 1000
save(KEYS[1], live)
return 1`)

	// KEYS: key. The number of live holders (intents are not).
	scriptLeaseCount = newScript(luaLeases + `
local n = 0
for _, e in pairs(load(KEYS[1], now_us())) do if e.m ~= 0 then n = n + 1 end end
return n`)

	// KEYS: key; ARGV: token. Microseconds left of token's live lease, -2
	// when it holds none (an intent is not a lease). A read: nothing saved.
	scriptLeaseTTL = newScript(luaLeases + `
local now = now_us()
local mine = load(KEYS[1], now)[ARGV[1]]
if not mine or mine.m == 0 then return -2 end
return mine.x - now`)

	// KEYS: key[, its lock fence record (lockFenceKey)]. Scan's
	// KeyInfo.Fence, a read: for a lease set, the highest fence of its
	// live holders (not the intents, mode 0); for another string value
	// of at most lockFenceMaxToken bytes, the record's fence while the
	// record's token is the value; else 0. A fence is returned as a
	// string (exact over int64), 0 as an integer. A value that only looks
	// like a lease set (cut short) has no fence: 0, never an error.
	scriptKeyFence = newScript(luaLeases + `
local key = KEYS[1]
if redis.call('TYPE', key).ok ~= 'string' then return 0 end
local size = redis.call('STRLEN', key)
if size >= 2 and redis.call('GETRANGE', key, 0, 1) == 'L\1' then
  local ok, live = pcall(load, key, now_us())
  if not ok then return 0 end
  local f = 0
  for _, e in pairs(live) do if e.m ~= 0 and e.f > f then f = e.f end end
  if f == 0 then return 0 end
  return string.format('%.0f', f)
end
if not KEYS[2] or size > ` + strconv.Itoa(lockFenceMaxToken) + ` then return 0 end
local r = redis.call('GET', KEYS[2])
local i = r and string.find(r, ':', 1, true)
if not i or string.sub(r, i + 1) ~= redis.call('GET', key) then return 0 end
local f = string.sub(r, 1, i - 1)
if not string.find(f, '^[1-9]%d*$') or #f > 16 then return 0 end
return f`)

	// KEYS: key; ARGV: limit, window ms. {1, remaining, 0} when admitted
	// (recorded at the server's time, or the latest call's should TIME
	// have stepped back: the log stays in order), else {0, 0, microseconds
	// until enough admitted calls leave the window}. Refused, nothing is
	// written. The log is read by GETRANGE, only the O(log n) calls the
	// binary search needs, and grows by APPEND; the calls that left the
	// window are cut (one SET) only once they are half of it, so a call
	// costs O(log n) plus, amortized, O(1) bytes written, whatever the
	// limit. Until cut, they stay in the value, outside the window.
	scriptRateLimit = newScript(luaNow + luaWrongType + `
local now = now_us()
local key, limit, w = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]) * 1000
local size = redis.call('STRLEN', key)
if size > 0 and (redis.call('GETRANGE', key, 0, 1) ~= 'R\1' or (size - 2) % 8 ~= 0) or
  size == 0 and redis.call('EXISTS', key) == 1 then -- an empty plain value
  return redis.error_reply(wrongtype)
end
local n = 0
if size > 0 then n = (size - 2) / 8 end
local function at(i) return (struct.unpack('>i8', redis.call('GETRANGE', key, 2 + i * 8, 9 + i * 8))) end
-- lo: the first call inside the window (after now - w).
local lo, hi = 0, n
while lo < hi do
  local mid = math.floor((lo + hi) / 2)
  if at(mid) > now - w then hi = mid else lo = mid + 1 end
end
local live = n - lo
if live >= limit then
  return {0, 0, math.max(1, math.min(w, at(lo + live - limit) + w - now))}
end
local t = now
if n > 0 then t = math.max(t, at(n - 1)) end
if n == 0 then
  redis.call('SET', key, 'R\1' .. struct.pack('>i8', t))
elseif lo * 2 >= n then
  redis.call('SET', key, 'R\1' .. redis.call('GETRANGE', key, 2 + lo * 8, -1) .. struct.pack('>i8', t))
else
  redis.call('APPEND', key, struct.pack('>i8', t))
end
redis.call('PEXPIREAT', key, string.format('%.0f', math.ceil((t + w) / 1000)))
return {1, limit - live - 1, 0}`)
)
