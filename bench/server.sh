#!/usr/bin/env bash
# ephpm-kv next to redis-server, same machine, same kind of socket, one run:
# redis-benchmark (SET, GET, and pipelined -P 16) and PHP lock pairs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/ephpm-bench.XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

"$root/build/ephpm-kv" --unix "$work/ephpm.sock" --memory-limit 1G 2>/dev/null &
epid=$!
pids+=($!)
redis-server --port 0 --unixsocket "$work/redis.sock" --save "" --appendonly no --logfile "$work/redis.log" &
rpid=$!
pids+=($!)
for _ in $(seq 100); do [ -S "$work/ephpm.sock" ] && [ -S "$work/redis.sock" ] && break; sleep 0.05; done

requests=${REQUESTS:-200000}
rounds=${ROUNDS:-5}
echo "redis-benchmark: $requests requests, 50 clients, unix socket; median of $rounds runs, the two servers taking turns"
echo "so both see the same machine; and each server's CPU (user+system) per request, which load changes less"
printf "  %-12s %12s %12s %7s %10s %10s\n" test ephpm-kv redis-server ratio "ephpm cpu" "redis cpu"
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # utime + stime, 1/100 s
bench() { # bench SOCKET ARGS...: one run's requests per second
  local sock=$1; shift
  redis-benchmark -s "$sock" -n "$requests" -q "$@" | tr '\r' '\n' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
}
for t in "set" "get" "set -P 16" "get -P 16"; do
  read -r name pipe <<<"$t"
  : >"$work/e" && : >"$work/r"
  e0=$(ticks "$epid") r0=$(ticks "$rpid")
  for _ in $(seq "$rounds"); do
    bench "$work/ephpm.sock" -t "$name" $pipe >>"$work/e"
    bench "$work/redis.sock" -t "$name" $pipe >>"$work/r"
  done
  e1=$(ticks "$epid") r1=$(ticks "$rpid")
  e=$(median <"$work/e") r=$(median <"$work/r")
  us() { awk -v a="$1" -v b="$2" -v n=$((requests * rounds)) 'BEGIN { printf "%.2f us", (b - a) * 10000 / n }'; }
  printf "  %-12s %12.0f %12.0f %6.2fx %10s %10s\n" "$t" "$e" "$r" "$(awk -v e="$e" -v r="$r" 'BEGIN { print e / r }')" \
    "$(us "$e0" "$e1")" "$(us "$r0" "$r1")"
done
echo
php -n -d extension=igbinary -d extension=redis -d extension="$root/build/ephpm.so" \
  -d ephpm.server="unix://$work/ephpm.sock" "$root/bench/server_pair.php" "$work/redis.sock"
