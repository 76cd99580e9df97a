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

// Redis has PEXPIRE for a positive TTL and PERSIST for none; ttl() picks.
const luaTTL = `
local function ttl(key, ms)
  if ms == '0' then redis.call('PERSIST', key) else redis.call('PEXPIRE', key, ms) end
end
`

// setWith: SET key value with PX ms, or without expiry for "0".
const luaSet = `
local function set(key, value, ms)
  if ms == '0' then redis.call('SET', key, value) else redis.call('SET', key, value, 'PX', ms) end
end
`

// luaNow is the server's clock in microseconds (below 2^53: exact).
const luaNow = `
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
`

// luaFenceCounter: fence_counter reads and checks the fence counter, to be
// called before anything is touched (see scriptSetNXFenced); next_fence
// then issues the next fence, as a string: the counter plus one, or the
// clock when higher.
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

	// KEYS: key; ARGV: token, ms. 1 when the value was token.
	scriptExpireIfEq = newScript(luaTTL + `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
ttl(KEYS[1], ARGV[2])
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
	scriptSetNXFenced = newScript(luaSet + luaNow + luaFenceCounter + `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local f = next_fence(KEYS[2], fence_counter(KEYS[2]), now_us())
set(KEYS[1], ARGV[1], ARGV[2])
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

	// KEYS: data, lock; ARGV: value, ms, token, lock ms, release ("1").
	// While the lock's value is token: write the data, renew the lock
	// (or release it). Written first, so a refused write (OOM) leaves
	// the lock as it was. 1 when written.
	scriptSetIfLocked = newScript(luaSet + luaTTL + `
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
set(KEYS[1], ARGV[1], ARGV[2])
if ARGV[5] == '1' then redis.call('DEL', KEYS[2]) else ttl(KEYS[2], ARGV[4]) end
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
)

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
// Representation: a lease set is a Redis hash, token -> "mode expiry
// fence" (mode 1 shared, 2 exclusive, 3 permit, 0 a writer's intent;
// expiry in microseconds of the server's TIME; the fence as decimal
// digits), and a rate log is a sorted set of the admitted calls, scored by
// their time in microseconds. Redis's own types rather than a packed
// string: a plain value (or the other family's key) is told apart by
// Redis itself, which answers WRONGTYPE (kv.ErrNotLease), where a magic
// prefix could be faked by any SET; and a rate limiter with a limit of
// thousands admits a call with one ZADD and trims with one
// ZREMRANGEBYSCORE, instead of reading and rewriting a string of every
// timestamp on each call. The cost: GET on such a key is WRONGTYPE in
// Redis (DEL, EXISTS and PTTL work as on any key).
//
// Every script reads TIME once (allowed since Redis 5, whose scripts
// replicate their effects, not themselves). The key's own expiry is the
// latest expiry among its entries, in milliseconds rounded up, so Redis
// never drops a key with a live entry; expired entries are dropped by the
// script that meets them.

// luaLeases loads a lease set (HGETALL: WRONGTYPE for a key of another
// type; an entry not in the format is one too) and saves it back.
const luaLeases = luaNow + `
local wrongtype = 'WRONGTYPE Operation against a key holding the wrong kind of value'
-- live: token -> {m = mode, x = expiry, f = fence}; dead: expired tokens.
local function load(key, now)
  local all = redis.call('HGETALL', key)
  local live, dead = {}, {}
  for i = 1, #all, 2 do
    local m, x, f = string.match(all[i + 1], '^([0-3]) (%d+) (%d+)$')
    if not m then error(redis.error_reply(wrongtype)) end
    x = tonumber(x)
    if x <= now then dead[#dead + 1] = all[i] else live[all[i]] = {m = tonumber(m), x = x, f = f} end
  end
  return live, dead
end
local function put(key, tok, e)
  redis.call('HSET', key, tok, string.format('%d %.0f %s', e.m, e.x, e.f))
end
-- Drops the dead entries and sets the key's expiry to its latest entry's
-- (the key goes with its last entry).
local function save(key, live, dead)
  local max = 0
  for _, e in pairs(live) do if e.x > max then max = e.x end end
  if max == 0 then redis.call('DEL', key) return end
  for i = 1, #dead, 1000 do redis.call('HDEL', key, unpack(dead, i, math.min(i + 999, #dead))) end
  redis.call('PEXPIREAT', key, string.format('%.0f', math.ceil(max / 1000)))
end
`

// maxIntents bounds the writers' intents one lease set records, as
// kv.MaxLeaseHolders bounds its holders.
const maxIntents = kv.MaxLeaseHolders

var (
	// KEYS: key, fence counter; ARGV: token, mode (1 shared, 2
	// exclusive, 3 permit), permits, ms, intent ms. The fence (a string)
	// when granted, else 0. What grants what is kv.Leases's contract.
	scriptLeaseAcquire = newScript(luaLeases + luaFenceCounter + `
local now = now_us()
local last = fence_counter(KEYS[2])
local live, dead = load(KEYS[1], now)
local tok, mode, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local exp = now + tonumber(ARGV[4]) * 1000
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
  ok = mode ~= 2 or mine.m == 2 or others == 0
elseif others >= ` + strconv.Itoa(kv.MaxLeaseHolders) + ` then
  ok = false
elseif mode == 1 then
  ok = not exclusive and not intent
elseif mode == 2 then
  ok = others == 0
else
  ok = others < limit
end
local fence = 0
if ok then
  if held then fence = mine.f else fence = next_fence(KEYS[2], last, now) end
  live[tok] = {m = mode, x = exp, f = fence}
  put(KEYS[1], tok, live[tok])
elseif mode == 2 and not held and ARGV[5] ~= '0' and (mine or intents < ` + strconv.Itoa(maxIntents) + `) then
  live[tok] = {m = 0, x = now + math.min(tonumber(ARGV[5]), tonumber(ARGV[4])) * 1000, f = '0'}
  put(KEYS[1], tok, live[tok])
end
save(KEYS[1], live, dead)
return fence`)

	// KEYS: key; ARGV: token. Drops token's entry; 1 when it was a lease.
	scriptLeaseRelease = newScript(luaLeases + `
local live, dead = load(KEYS[1], now_us())
local mine = live[ARGV[1]]
if not mine then save(KEYS[1], live, dead) return 0 end
live[ARGV[1]] = nil
redis.call('HDEL', KEYS[1], ARGV[1])
save(KEYS[1], live, dead)
if mine.m == 0 then return 0 end
return 1`)

	// KEYS: key; ARGV: token, ms. 1 when token's live lease was renewed.
	scriptLeaseRenew = newScript(luaLeases + `
local now = now_us()
local live, dead = load(KEYS[1], now)
local mine = live[ARGV[1]]
if not mine or mine.m == 0 then save(KEYS[1], live, dead) return 0 end
mine.x = now + tonumber(ARGV[2]) * 1000
put(KEYS[1], ARGV[1], mine)
save(KEYS[1], live, dead)
return 1`)

	// KEYS: key. The number of live holders (intents are not).
	scriptLeaseCount = newScript(luaLeases + `
local live = load(KEYS[1], now_us())
local n = 0
for _, e in pairs(live) do if e.m ~= 0 then n = n + 1 end end
return n`)

	// KEYS: key; ARGV: limit, window ms. {1, remaining, 0} when admitted
	// (recorded at the server's time), else {0, 0, microseconds until
	// enough admitted calls leave the window}. A call at the same
	// microsecond as another gets a member of its own.
	scriptRateLimit = newScript(luaNow + `
local now = now_us()
local limit, w = tonumber(ARGV[1]), tonumber(ARGV[2]) * 1000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - w))
local n = redis.call('ZCARD', KEYS[1])
if n < limit then
  local m = string.format('%.0f', now)
  if redis.call('ZSCORE', KEYS[1], m) then
    local i = 1
    while redis.call('ZSCORE', KEYS[1], m .. '.' .. i) do i = i + 1 end
    m = m .. '.' .. i
  end
  redis.call('ZADD', KEYS[1], string.format('%.0f', now), m)
  redis.call('PEXPIREAT', KEYS[1], string.format('%.0f', math.ceil((now + w) / 1000)))
  return {1, limit - n - 1, 0}
end
local at = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {0, 0, tonumber(at[2]) + w - now}`)
)
