#!/usr/bin/env bash
# Sessions end to end, ephpm next to phpredis in one run: wrk -> nginx ->
# php-fpm (pm=static, 4 workers) -> bench/session_page.php, with
#   ephpm:    session.save_handler=ephpm, server mode (ephpm-kv on a unix
#             socket), ephpm.session_locking=1
#   phpredis: session.save_handler=redis, redis-server on a unix socket,
#             redis.session.locking_enabled=1, persistent connection
# Cases: (a) a session per connection, (b) one session shared by all
# connections (the lock is contended); after (b) the session's counter must
# equal the requests served. Runs alternate between the stacks; medians and
# ranges in requests per second.
# Usage: bench/sessions.sh  (after make all)
# Knobs: SECONDS_PER_CASE (4) CONNECTIONS (8) RUNS (3) WORKERS (4)
#        REDIS_PERSISTENT (1: phpredis keeps its connection, as ephpm does)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${SECONDS_PER_CASE:-4}
conns=${CONNECTIONS:-8}
runs=${RUNS:-3}
workers=${WORKERS:-4}
persistent=${REDIS_PERSISTENT:-1}

"$root/build/deps.sh" bench
fpm=$(command -v php-fpm8.2 || command -v php-fpm)
for f in ephpm-kv ephpm.so; do
  [ -e "$root/build/$f" ] || { echo "sessions.sh: build/$f missing: run make all" >&2; exit 1; }
done

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
"$root/build/ephpm-kv" --unix "$work/kv.sock" --memory-limit 1G 2>"$work/kv.log" &
pids+=($!) store_pid[ephpm]=$!
redis-server --port 0 --unixsocket "$work/redis.sock" --save "" --appendonly no --logfile "$work/redis.log" &
pids+=($!) store_pid[phpredis]=$!

# One php-fpm per stack, each loading only its own extension.
common_ini="zend_extension=opcache
opcache.enable=1
session.use_strict_mode=0"
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
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(-R)
for stack in ephpm phpredis; do
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
$(location ephpm)
$(location phpredis)
  }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx.conf" -e "$work/nginx.log" &
pids+=($!) nginx_pid=$!

for _ in $(seq 200); do
  ready=1
  for s in kv.sock redis.sock fpm-ephpm.sock fpm-phpredis.sock; do [ -S "$work/$s" ] || ready=0; done
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
# counter STACK COOKIE: the session's n, read from the store itself.
counter() {
  local sid=${2#*=} sock=$work/kv.sock key=session:${2#*=}
  [ "$1" = phpredis ] && sock=$work/redis.sock key=PHPREDIS_SESSION:$sid
  redis-cli -s "$sock" --raw GET "$key" | sed -n 's/^n|i:\([0-9]*\);$/\1/p'
}
# commands STACK: commands the stack's store has processed so far.
commands() {
  local sock=$work/kv.sock
  [ "$1" = phpredis ] && sock=$work/redis.sock
  redis-cli -s "$sock" INFO stats | tr -d '\r' | sed -n 's/^total_commands_processed://p'
}
# cpu STACK: CPU seconds x CLK_TCK so far of the stack's php-fpm workers, its
# store and nginx's workers (utime + stime, fields 14 and 15 of stat).
cpu() {
  local group p
  for group in "$(pgrep -P "${fpm_pid[$1]}")" "${store_pid[$1]}" "$(pgrep -P "$nginx_pid")"; do
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
  echo "$ok $(($(commands "$stack") - before - 1)) $cpu_before $(cpu "$stack")" |
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
# Warm up opcache, the workers and both stores.
for stack in ephpm phpredis; do bench "$stack" own 1 >/dev/null || exit 1; done
declare -A samples
for run in $(seq "$runs"); do
  for case in own shared; do
    for stack in ephpm phpredis; do # alternate, so drift hits both stacks
      rps=$(bench "$stack" "$case" "$seconds") || exit 1
      samples[$stack-$case]+="$rps "
    done
  done
done

printf "  %-30s %22s %22s %8s\n" case "ephpm req/s" "phpredis req/s" ratio
for case in own shared; do
  read -r em elo ehi < <(tr ' ' '\n' <<<"${samples[ephpm-$case]}" | grep . | stats)
  read -r rm rlo rhi < <(tr ' ' '\n' <<<"${samples[phpredis-$case]}" | grep . | stats)
  label="a session per connection"
  [ "$case" = shared ] && label="one shared session"
  printf "  %-30s %6d (%6d-%6d) %6d (%6d-%6d) %7.2fx\n" "$label" "$em" "$elo" "$ehi" "$rm" "$rlo" "$rhi" \
    "$(awk -v e="$em" -v r="$rm" 'BEGIN { print e / r }')"
done
echo
echo "per request, all runs: store commands (Lua's inner calls count for redis), CPU microseconds; requests per"
echo "CPU second of php-fpm + store + nginx (steadier than req/s on a shared machine: wrk and neighbours excluded)"
printf "  %-30s %-9s %9s %9s %9s %9s %9s %7s\n" case stack commands php-fpm store nginx "req/CPU-s" ratio
tick=$(getconf CLK_TCK)
for case in own shared; do
  label="a session per connection"
  [ "$case" = shared ] && label="one shared session"
  cat "$work/ephpm-$case.acct" <(echo) "$work/phpredis-$case.acct" |
    awk -v label="$label" -v tick="$tick" '
      BEGIN { s = 0 }
      /^$/ { s++; next }
      { n[s] += $1; c[s] += $2; php[s] += $3; store[s] += $4; web[s] += $5 }
      END {
        for (i = 0; i <= 1; i++) {
          us = 1e6 / tick / n[i]; eff[i] = 1e6 / ((php[i] + store[i] + web[i]) * us)
          printf "  %-30s %-9s %9.2f %9.0f %9.0f %9.0f %9.0f", i ? "" : label, i ? "phpredis" : "ephpm",
            c[i] / n[i], php[i] * us, store[i] * us, web[i] * us, eff[i]
          printf i ? " %6.2fx\n" : "\n", eff[0] / eff[1]
        }
      }'
done
echo "  (ratio: ephpm median / phpredis median; runs: ephpm own ${samples[ephpm-own]}/ phpredis own ${samples[phpredis-own]}/ ephpm shared ${samples[ephpm-shared]}/ phpredis shared ${samples[phpredis-shared]})"
