#!/usr/bin/env bash
# Sessions end to end, every stack in one run: wrk -> nginx -> php-fpm
# (pm=static, 4 workers) -> bench/session_page.php, through
#   shm:       session.save_handler=ephpm and no ephpm setting at all: the
#              shared-memory engine, one segment for the pool's workers
#   ephpm:     session.save_handler=ephpm, server mode (ephpm-kv on a unix
#              socket), ephpm.session_locking=1
#   phpredis:  session.save_handler=redis, redis-server on a unix socket,
#              redis.session.locking_enabled=1, persistent connection
#   memcached: session.save_handler=memcached (php-memcached), memcached on
#              a unix socket, its locking on, persistent connection, lock
#              polled every 1-2 ms for as long as it takes
#   files:     session.save_handler=files (flock), in a fresh directory
# Cases: (a) a session per connection, (b) one session shared by all
# connections (the lock is contended); after (b) the session's counter, read
# back through the stack itself, must equal the requests served. Runs
# alternate between the stacks; medians and ranges in requests per second.
# Usage: bench/sessions.sh  (after make all)
# Knobs: SECONDS_PER_CASE (4) CONNECTIONS (8) RUNS (3) WORKERS (4)
#        STACKS ("shm ephpm phpredis memcached files": any subset, in order)
#        REDIS_PERSISTENT (1: phpredis keeps its connection, as ephpm does)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${SECONDS_PER_CASE:-4}
conns=${CONNECTIONS:-8}
runs=${RUNS:-3}
workers=${WORKERS:-4}
persistent=${REDIS_PERSISTENT:-1}
read -r -a stacks <<<"${STACKS:-shm ephpm phpredis memcached files}"

"$root/build/deps.sh" bench
fpm=$(command -v php-fpm8.2 || command -v php-fpm)
for f in ephpm-kv ephpm.so libephpm_kv.so; do
  [ -e "$root/build/$f" ] || { echo "sessions.sh: build/$f missing: run make all" >&2; exit 1; }
done
declare -A label=([shm]="shared engine" [ephpm]="ephpm server" [phpredis]=phpredis [memcached]=php-memcached
  [files]=files)
for stack in "${stacks[@]}"; do
  [ -n "${label[$stack]:-}" ] || { echo "sessions.sh: unknown stack '$stack'" >&2; exit 2; }
done
has() { [[ " ${stacks[*]} " == *" $1 "* ]]; }

work=$(mktemp -d /tmp/ephpm-sessions.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# Show the logs of whatever failed before the trap removes them.
fail() {
  echo "sessions.sh: $*" >&2
  for log in "$work"/*.log; do [ -s "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }; done
  exit 1
}

declare -A store_pid fpm_pid
sockets=()
if has ephpm; then
  "$root/build/ephpm-kv" --unix "$work/kv.sock" --memory-limit 1G 2>"$work/kv.log" &
  pids+=($!) store_pid[ephpm]=$! sockets+=(kv.sock)
fi
if has phpredis; then
  redis-server --port 0 --unixsocket "$work/redis.sock" --save "" --appendonly no --logfile "$work/redis.log" &
  pids+=($!) store_pid[phpredis]=$! sockets+=(redis.sock)
fi
if has memcached; then
  mc_user=()
  [ "$(id -u)" -eq 0 ] && mc_user=(-u root) # memcached refuses root unless told
  memcached "${mc_user[@]}" -s "$work/mc.sock" -a 0600 -m 1024 2>"$work/memcached.log" &
  pids+=($!) store_pid[memcached]=$! sockets+=(mc.sock)
fi
mkdir -p "$work/files"

# One php-fpm per stack, each loading only its own extension.
common_ini="zend_extension=opcache
opcache.enable=1
session.use_strict_mode=0"
cat >"$work/shm.ini" <<INI
$common_ini
extension=$root/build/ephpm.so
session.save_handler=ephpm
INI
cat >"$work/ephpm.ini" <<INI
$common_ini
extension=$root/build/ephpm.so
ephpm.server=unix://$work/kv.sock
session.save_handler=ephpm
ephpm.session_locking=1
INI
cat >"$work/phpredis.ini" <<INI
$common_ini
extension=igbinary
extension=redis
session.save_handler=redis
session.save_path="unix://$work/redis.sock?persistent=$persistent"
redis.session.locking_enabled=1
; wait for the lock as long as it takes, as ephpm does (default: 10 tries)
redis.session.lock_retries=-1
INI
cat >"$work/memcached.ini" <<INI
$common_ini
extension=igbinary
extension=msgpack
extension=memcached
session.save_handler=memcached
session.save_path="$work/mc.sock"
memcached.sess_persistent=1
memcached.sess_locking=1
; wait for the lock as long as it takes, polling every 1-2 ms (default: 5
; tries 150 ms apart, which fails requests here)
memcached.sess_lock_retries=100000000
memcached.sess_lock_wait_min=1
memcached.sess_lock_wait_max=2
INI
cat >"$work/files.ini" <<INI
$common_ini
session.save_handler=files
session.save_path="$work/files"
INI
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(-R)
for stack in "${stacks[@]}"; do
  cat >"$work/fpm-$stack.conf" <<CONF
[global]
pid = $work/fpm-$stack.pid
error_log = $work/fpm-$stack.log
daemonize = no
[$stack]
listen = $work/fpm-$stack.sock
listen.mode = 0600
pm = static
pm.max_children = $workers
catch_workers_output = yes
CONF
  "$fpm" -n -c "$work/$stack.ini" -y "$work/fpm-$stack.conf" -F "${root_flag[@]}" &
  pids+=($!) fpm_pid[$stack]=$!
done

# A free port for nginx: the kernel picks one, nginx takes it a moment later.
port=$(php -n -r '$s = stream_socket_server("tcp://127.0.0.1:0"); echo parse_url("tcp://" . stream_socket_get_name($s, false), PHP_URL_PORT);')
mkdir -p "$work/nginx"
nginx_user=""
[ "$(id -u)" -eq 0 ] && nginx_user="user root;" # workers must reach the 0600 fpm sockets
location() {
  cat <<LOC
    location = /$1 {
      fastcgi_pass unix:$work/fpm-$1.sock;
      fastcgi_param SCRIPT_FILENAME $root/bench/session_page.php;
      fastcgi_param REQUEST_METHOD \$request_method;
      fastcgi_param QUERY_STRING \$query_string;
      fastcgi_param SERVER_PROTOCOL \$server_protocol;
      fastcgi_param REQUEST_URI \$request_uri;
    }
LOC
}
cat >"$work/nginx.conf" <<CONF
$nginx_user
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $work/nginx/body;
  fastcgi_temp_path $work/nginx/fastcgi;
  proxy_temp_path $work/nginx/proxy;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$port;
$(for stack in "${stacks[@]}"; do location "$stack"; done)
  }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx.conf" -e "$work/nginx.log" &
pids+=($!) nginx_pid=$!

for _ in $(seq 200); do
  ready=1
  for s in "${sockets[@]}" "${stacks[@]/#/fpm-}"; do
    [[ $s == *.sock ]] || s=$s.sock
    [ -S "$work/$s" ] || ready=0
  done
  [ -s "$work/nginx.pid" ] || ready=0
  ((ready)) && break
  sleep 0.05
done
((ready)) || fail "the stack did not start"

url() { echo "http://127.0.0.1:$port/$1"; }
# new_session STACK: a session made by one request; prints its cookie.
new_session() {
  php -n -r '
    $body = @file_get_contents($argv[1]);
    foreach ($http_response_header ?? [] as $h) {
      if (preg_match("/^Set-Cookie: ([^;]+)/i", $h, $m)) { echo $m[1]; }
    }
    if ($body !== "1") { fwrite(STDERR, "first request answered " . var_export($body, true) . "\n"); exit(1); }
  ' "$(url "$1")"
}
# counter STACK COOKIE: the session's n, read back through the stack itself
# (the shared engine's segment lives only in the pool's workers).
counter() {
  php -n -r '
    $ctx = stream_context_create(["http" => ["header" => "Cookie: " . $argv[2]]]);
    echo @file_get_contents($argv[1], false, $ctx);
  ' "$(url "$1")?peek" "$2"
}
# commands STACK: commands the stack's store has processed so far, for the
# stores that count them in INFO (empty for the others).
commands() {
  local sock
  case $1 in
    ephpm) sock=$work/kv.sock ;;
    phpredis) sock=$work/redis.sock ;;
    *) return 0 ;;
  esac
  redis-cli -s "$sock" INFO stats | tr -d '\r' | sed -n 's/^total_commands_processed://p'
}
# cpu STACK: CPU seconds x CLK_TCK so far of the stack's php-fpm workers, its
# store and nginx's workers (utime + stime, fields 14 and 15 of stat).
cpu() {
  local group p
  for group in "$(pgrep -P "${fpm_pid[$1]}")" "${store_pid[$1]:-}" "$(pgrep -P "$nginx_pid")"; do
    for p in $group; do sed 's/.*) //' "/proc/$p/stat"; done | awk '{ t += $12 + $13 } END { printf "%d ", t }'
  done
}
# bench STACK CASE SECONDS: prints the rps of one wrk run and checks it;
# appends "requests commands cpu-php cpu-store cpu-nginx" to $work/STACK-CASE.acct.
bench() {
  local stack=$1 case=$2 secs=$3 cookie="" out result before cpu_before
  [ "$case" = shared ] && { cookie=$(new_session "$stack") || fail "$stack: could not create the shared session"; }
  before=$(commands "$stack")
  cpu_before=$(cpu "$stack")
  out=$(BENCH_SECONDS=$secs BENCH_COOKIE=$cookie BENCH_CASE=$case wrk -t "$conns" -c "$conns" -d "$((secs + 2))s" --timeout 10s \
    -s "$root/bench/sessions.lua" "$(url "$stack")") || fail "$stack $case: wrk failed: $out"
  result=$(sed -n 's/^RESULT //p' <<<"$out")
  [ -n "$result" ] || fail "$stack $case: no result from wrk: $out"
  local ok bad mismatch stopped created threads errors rps
  eval "$(tr ' ' '\n' <<<"$result" | grep -E '^(ok|bad|mismatch|stopped|created|threads|errors|rps)=')"
  ((bad == 0 && errors == 0)) || fail "$stack $case: $bad responses were not 200 and $errors socket errors ($result)"
  ((stopped == threads)) || fail "$stack $case: only $stopped of $threads connections finished cleanly ($result)"
  ((mismatch == 0)) || fail "$stack $case: $mismatch responses did not carry their session's own count ($result)"
  # Each connection makes one session (own) or reuses the shared one.
  local sessions=$threads
  [ "$case" = shared ] && sessions=0
  ((created == sessions)) || fail "$stack $case: $created sessions created, expected $sessions ($result)"
  # - 1: the INFO itself. Counts cover only this run: no request is in flight.
  # -1: this store counts no commands.
  local after cmds=-1
  after=$(commands "$stack")
  [ -n "$after" ] && cmds=$((after - before - 1))
  echo "$ok $cmds $cpu_before $(cpu "$stack")" |
    awk '{ print $1, $2, $6 - $3, $7 - $4, $8 - $5 }' >>"$work/$stack-$case.acct"
  if [ "$case" = shared ]; then
    local n
    n=$(counter "$stack" "$cookie")
    # The request that created the session counted 1.
    [ "$n" = "$((ok + 1))" ] || fail "$stack shared: LOST UPDATES: the session's counter is ${n:-missing} - 1 = $((${n:-0} - 1)) but wrk was served $ok requests with status 200"
    echo "  $stack shared run: counter $((n - 1)) = $ok requests served" >&2
  fi
  echo "$rps"
}

# stats: median and range of the numbers on stdin.
stats() {
  sort -n | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.0f %.0f %.0f\n", m, v[1], v[NR] }'
}

echo "sessions through nginx -> php-fpm ($workers workers): $conns connections, ${seconds}s per case, $runs runs (median, range)"
# Warm up opcache, the workers and the stores.
for stack in "${stacks[@]}"; do bench "$stack" own 1 >/dev/null || exit 1; done
declare -A samples
for run in $(seq "$runs"); do
  for case in own shared; do
    for stack in "${stacks[@]}"; do # alternate, so drift hits every stack
      rps=$(bench "$stack" "$case" "$seconds") || exit 1
      samples[$stack-$case]+="$rps "
    done
  done
done

declare -A med
printf "  %-16s %24s %24s\n" stack "a session per connection" "one shared session"
for stack in "${stacks[@]}"; do
  line=$(printf "  %-16s" "${label[$stack]}")
  for case in own shared; do
    read -r m lo hi < <(tr ' ' '\n' <<<"${samples[$stack-$case]}" | grep . | stats)
    med[$stack-$case]=$m
    line+=$(printf " %8d (%6d-%6d)" "$m" "$lo" "$hi")
  done
  echo "$line"
done
if has shm && ((${#stacks[@]} > 1)); then
  for case in own shared; do
    best="" bm=0
    for stack in "${stacks[@]}"; do
      [ "$stack" = shm ] && continue
      ((med[$stack-$case] > bm)) && best=$stack bm=${med[$stack-$case]}
    done
    ratio=$(awk -v e="${med[shm-$case]}" -v b="$bm" 'BEGIN { printf "%.2f", e / b }')
    verdict=MISSED
    awk -v r="$ratio" 'BEGIN { exit !(r >= 1.5) }' && verdict=met
    label_case="a session per connection"
    [ "$case" = shared ] && label_case="one shared session"
    printf "  %-26s shared engine / best other (%s): %sx (target >= 1.5: %s)\n" "$label_case" "${label[$best]}" \
      "$ratio" "$verdict"
  done
fi
echo "  every shared run's counter equalled the requests served (checked after each run)"
echo
echo "per request, all runs: store commands (Lua's inner calls count for redis; - where the store counts none), CPU"
echo "microseconds; requests per CPU second of php-fpm + store + nginx (steadier than req/s on a shared machine: wrk"
echo "and neighbours excluded)"
printf "  %-26s %-16s %9s %9s %9s %9s %9s\n" case stack commands php-fpm store nginx "req/CPU-s"
tick=$(getconf CLK_TCK)
for case in own shared; do
  label_case="a session per connection"
  [ "$case" = shared ] && label_case="one shared session"
  for stack in "${stacks[@]}"; do
    awk -v label="$label_case" -v stack="${label[$stack]}" -v tick="$tick" '
      { n += $1; c += $2; nc += ($2 < 0); php += $3; store += $4; web += $5 }
      END {
        us = 1e6 / tick / n
        printf "  %-26s %-16s %9s %9.0f %9.0f %9.0f %9.0f\n", label, stack, nc ? "-" : sprintf("%.2f", c / n),
          php * us, store * us, web * us, 1e6 / ((php + store + web) * us)
      }' "$work/$stack-$case.acct"
    label_case=""
  done
done
printf "  (runs, req/s:"
for stack in "${stacks[@]}"; do printf " %s own %s/ shared %s;" "$stack" "${samples[$stack-own]}" "${samples[$stack-shared]}"; done
echo ")"
