-- wrk script for bench/sessions.sh. Run with one connection per thread
-- (-t N -c N): wrk gives Lua no connection identity, but a thread's globals
-- are then its connection's own (its cookie, its counts).
--   BENCH_CASE=own: each connection keeps the cookie of its first response,
--     and every body must equal that connection's 200 count.
--   BENCH_CASE=shared: every request sends BENCH_COOKIE (one session).
-- Each thread stops itself after its first response past BENCH_SECONDS, so
-- no request is in flight when wrk ends (give wrk -d a few seconds more):
-- then the requests served are exactly the requests the session saw.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock, bench_timespec *ts);
]]
local ts = ffi.new("bench_timespec")
local function now()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC, shared by all threads
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

local seconds = tonumber(os.getenv("BENCH_SECONDS") or "4")
local shared = nil
if os.getenv("BENCH_CASE") == "shared" then
  shared = os.getenv("BENCH_COOKIE")
  assert(shared and shared ~= "", "BENCH_CASE=shared needs BENCH_COOKIE")
else
  assert(os.getenv("BENCH_CASE") == "own", "BENCH_CASE must be own or shared")
end

-- Per-thread globals, read by done() through thread:get().
cookie = shared
ok, bad, mismatch, stopped, created = 0, 0, 0, 0, 0
first, last = nil, nil
local deadline

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function request()
  if not first then
    first = now()
    deadline = first + seconds
  end
  if cookie then
    return wrk.format(nil, nil, { Cookie = cookie })
  end
  return wrk.format()
end

function response(status, headers, body)
  last = now()
  if status == 200 then ok = ok + 1 else bad = bad + 1 end
  if headers["Set-Cookie"] then created = created + 1 end
  if not shared then
    if not cookie and headers["Set-Cookie"] then
      cookie = headers["Set-Cookie"]:match("^[^;]+")
    end
    if tonumber(body) ~= ok then mismatch = mismatch + 1 end
  end
  if last >= deadline then
    stopped = 1
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local n_ok, n_bad, n_mismatch, n_stopped, n_created, t0, t1 = 0, 0, 0, 0, 0, math.huge, 0
  for _, t in ipairs(threads) do
    n_ok = n_ok + t:get("ok")
    n_bad = n_bad + t:get("bad")
    n_mismatch = n_mismatch + t:get("mismatch")
    n_stopped = n_stopped + t:get("stopped")
    n_created = n_created + t:get("created")
    if t:get("first") then t0 = math.min(t0, t:get("first")) end
    if t:get("last") then t1 = math.max(t1, t:get("last")) end
  end
  local e = summary.errors
  local elapsed = t1 > t0 and t1 - t0 or 0
  io.write(string.format(
    "RESULT ok=%d bad=%d mismatch=%d stopped=%d created=%d threads=%d seconds=%.6f rps=%.1f " ..
    "errors=%d p50_us=%d p99_us=%d\n",
    n_ok, n_bad, n_mismatch, n_stopped, n_created, #threads, elapsed, elapsed > 0 and n_ok / elapsed or 0,
    e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
