#!/usr/bin/env bash
# Idle cost per php-fpm worker: three pools of WORKERS (50) workers
# (pm=static), started side by side and measured over the same window:
#   shared engine: no ephpm settings; each worker has stored one key
#   Go map:        ephpm.shm_size=0; each worker has stored one key
#   untouched:     ephpm loaded, the store never used (no Go runtime)
# Per worker: private memory (Private_Clean + Private_Dirty of
# /proc/PID/smaps_rollup), threads (Threads of /proc/PID/status) and the CPU
# (utime + stime of /proc/PID/stat, in clock ticks; and the sum over the
# worker's threads of /proc/PID/task/*/schedstat's run time, in ns, which
# sees what ticks round away) used while idle for IDLE_SECONDS (10); median
# and max, and the pool's total CPU.
# Usage: bench/idle_workers.sh  (after make all)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
workers=${WORKERS:-50}
idle=${IDLE_SECONDS:-10}

fpm=$(command -v php-fpm8.2 || command -v php-fpm || true)
[ -x "$fpm" ] || { echo "idle_workers.sh: php-fpm missing (build/deps.sh bench)" >&2; exit 1; }
command -v cgi-fcgi >/dev/null || { echo "idle_workers.sh: cgi-fcgi missing (build/deps.sh bench)" >&2; exit 1; }
[ -e "$root/build/ephpm.so" ] || { echo "idle_workers.sh: build/ephpm.so missing: run make all" >&2; exit 1; }

work=$(mktemp -d /tmp/ephpm-idle.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() {
  echo "idle_workers.sh: $*" >&2
  for log in "$work"/*.log; do [ -s "$log" ] && { echo "--- $log" >&2; tail -20 "$log" >&2; }; done
  exit 1
}

pools=(shared map untouched)
declare -A label=([shared]="shared engine" [map]="Go map" [untouched]="untouched") use=([shared]=1 [map]=1 [untouched]=0)
declare -A fpm_pid
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(-R)
for pool in "${pools[@]}"; do
  {
    echo "extension=$root/build/ephpm.so"
    [ "$pool" = map ] && echo "ephpm.shm_size=0"
  } >"$work/$pool.ini"
  cat >"$work/fpm-$pool.conf" <<CONF
[global]
pid = $work/fpm-$pool.pid
error_log = $work/fpm-$pool.log
daemonize = no
[$pool]
listen = $work/fpm-$pool.sock
listen.mode = 0600
listen.backlog = 1024
pm = static
pm.max_children = $workers
catch_workers_output = yes
CONF
  "$fpm" -n -c "$work/$pool.ini" -y "$work/fpm-$pool.conf" -F "${root_flag[@]}" &
  pids+=($!) fpm_pid[$pool]=$!
done
for _ in $(seq 200); do
  ready=1
  for pool in "${pools[@]}"; do
    [ -S "$work/fpm-$pool.sock" ] && (($(pgrep -c -P "${fpm_pid[$pool]}" || true) == workers)) || ready=0
  done
  ((ready)) && break
  sleep 0.05
done
((ready)) || fail "php-fpm did not start $workers workers per pool"

# ask POOL QUERY: the page's answer, from one request.
ask() {
  SCRIPT_FILENAME="$root/bench/idle_page.php" REQUEST_METHOD=GET QUERY_STRING="$2" \
    cgi-fcgi -bind -connect "$work/fpm-$1.sock" 2>/dev/null | tr -d '\r' | sed '1,/^$/d'
  echo
}
# Every worker answers one request: as many requests at once as workers,
# each holding its worker 300 ms, until every worker's pid has answered.
for pool in "${pools[@]}"; do
  mapfile -t want < <(pgrep -P "${fpm_pid[$pool]}" | sort)
  for attempt in 1 2 3 4 5; do
    for i in $(seq "$workers"); do ask "$pool" "use=${use[$pool]}" >"$work/$pool.ans.$attempt.$i" & done
    wait_for=$(jobs -p | grep -vxF -f <(printf '%s\n' "${pids[@]}") || true)
    # shellcheck disable=SC2086
    [ -z "$wait_for" ] || wait $wait_for
    answered=$(cat "$work/$pool".ans.* | sort -u | grep -cxF -f <(printf '%s\n' "${want[@]}") || true)
    ((answered == workers)) && break
  done
  ((answered == workers)) || fail "$pool: only $answered of $workers workers answered"
done
# The pools are what their labels say: one store for the whole shared pool,
# one per worker for the map.
read -r keys engine < <(ask shared use=count)
((keys == workers)) || fail "shared pool: $keys keys in the store seen by one worker, expected $workers (engine $engine)"
read -r keys engine_map < <(ask map use=count)
((keys == 1)) || fail "map pool: $keys keys in one worker's store, expected 1 (engine $engine_map)"

sleep 1 # let the last requests' after-work settle
# cpu PID: utime + stime in clock ticks.
cpu() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# run PID: ns on a CPU so far, all of PID's threads.
run() { cat "/proc/$1"/task/*/schedstat | awk '{ s += $1 } END { print s }'; }
declare -A before before_run
for pool in "${pools[@]}"; do
  for p in $(pgrep -P "${fpm_pid[$pool]}"); do before[$p]=$(cpu "$p") before_run[$p]=$(run "$p"); done
done
sleep "$idle"
tick=$(getconf CLK_TCK)
echo "idle php-fpm workers: $workers per pool (pm=static), 3 pools side by side, each worker asked once; CPU over ${idle}s"
echo "of idling (1 tick = $((1000 / tick)) ms); median / max per worker"
printf "  %-14s %20s %10s %16s %18s %24s\n" pool "private mem (KiB)" threads "idle CPU (ms)" "  schedstat (us)" "pool: ms (stat) / us"
for pool in "${pools[@]}"; do
  : >"$work/$pool.rows"
  for p in $(pgrep -P "${fpm_pid[$pool]}"); do
    mem=$(awk '/^Private_(Clean|Dirty):/ { s += $2 } END { print s }' "/proc/$p/smaps_rollup")
    thr=$(awk '/^Threads:/ { print $2 }' "/proc/$p/status")
    echo "$mem $thr $(($(cpu "$p") - ${before[$p]:-0})) $((($(run "$p") - ${before_run[$p]:-0}) / 1000))" >>"$work/$pool.rows"
  done
  awk -v label="${label[$pool]}" -v ms=$((1000 / tick)) '
    { m[NR] = $1; t[NR] = $2; c[NR] = $3 * ms; r[NR] = $4; total += $3 * ms; rtotal += $4 }
    function med(a, n,   i, j, x) { # sorts a (insertion sort), returns the middle
      for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      mm = med(m, NR); mt = med(t, NR); mc = med(c, NR); mr = med(r, NR)
      printf "  %-14s %9d / %-8d %4d / %-3d %6d / %-7d %7d / %-8d %10d / %-10d\n", label, mm, m[NR], mt, t[NR],
        mc, c[NR], mr, r[NR], total, rtotal
    }' "$work/$pool.rows"
done
echo "  engines: shared pool '$engine', map pool '$engine_map'"
