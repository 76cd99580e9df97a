package remote

import (
	"crypto/sha1"
	"encoding/hex"
	"strconv"
	"strings"
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
	scriptSetNXFenced = newScript(luaSet + `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local c = redis.call('GET', KEYS[2]) or '0'
if not string.find(c, '^%d+$') or #c > 16 or tonumber(c) >= 9007199254740991 then
  return redis.error_reply('ERR value is not an integer or out of range')
end
local last = tonumber(c)
local f = string.format('%.0f', math.max(last + 1, now))
redis.call('SET', KEYS[2], f)
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
