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
pids+=($!)
redis-server --port 0 --unixsocket "$work/redis.sock" --save "" --appendonly no --logfile "$work/redis.log" &
pids+=($!)
for _ in $(seq 100); do [ -S "$work/ephpm.sock" ] && [ -S "$work/redis.sock" ] && break; sleep 0.05; done

requests=${REQUESTS:-200000}
echo "redis-benchmark: $requests requests, 50 clients, unix socket, requests per second (median of 3 runs)"
printf "  %-12s %14s %14s %8s\n" test ephpm-kv redis-server ratio
median() { sort -n | sed -n 2p; }
rps() { # rps SOCKET ARGS...: median rps over 3 runs
  local sock=$1; shift
  for _ in 1 2 3; do
    redis-benchmark -s "$sock" -n "$requests" -q "$@" | tr '\r' '\n' | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p' | tail -1
  done | median
}
for t in "set" "get" "set -P 16" "get -P 16"; do
  read -r name pipe <<<"$t"
  e=$(rps "$work/ephpm.sock" -t "$name" $pipe)
  r=$(rps "$work/redis.sock" -t "$name" $pipe)
  printf "  %-12s %14.0f %14.0f %7.2fx\n" "$t" "$e" "$r" "$(awk -v e="$e" -v r="$r" 'BEGIN { print e / r }')"
done
echo
php -n -d extension=igbinary -d extension=redis -d extension="$root/build/ephpm.so" \
  -d ephpm.server="unix://$work/ephpm.sock" "$root/bench/server_pair.php" "$work/redis.sock"
