#!/usr/bin/env bash
# Starts a 3-master Redis Cluster on free loopback ports in DIR (nothing
# saved, noeviction, 1 MiB values as ephpm-kv) and prints its ephpm.server
# URL; the nodes' pids go to DIR/pids (kill them to stop it).
# Usage: build/redis-cluster.sh DIR
set -euo pipefail
dir=$1
command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
  { echo "redis-cluster.sh: redis-server and redis-cli are needed (build/deps.sh redis)" >&2; exit 1; }
free() { # a free port whose cluster bus port (+10000) is free too (PHP: always there, unlike python3)
  php -n -r 'for ($i = 0; $i < 50; $i++) {
    $s = stream_socket_server("tcp://127.0.0.1:0"); $p = (int) substr(strrchr(stream_socket_get_name($s, false), ":"), 1); fclose($s);
    if ($p + 10000 > 65535) { continue; }
    $b = @stream_socket_server("tcp://127.0.0.1:" . ($p + 10000));
    if ($b) { fclose($b); echo $p, "\n"; exit(0); }
  } exit(1);'
}
addrs=() ports=()
for i in 1 2 3; do
  p=$(free)
  mkdir -p "$dir/$i"
  redis-server --port "$p" --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file "$dir/$i/nodes.conf" \
    --save '' --appendonly no --dir "$dir/$i" --maxmemory-policy noeviction --proto-max-bulk-len 1mb \
    --logfile "$dir/$i/redis.log" --daemonize no >/dev/null 2>&1 &
  echo $! >>"$dir/pids"
  ports+=("$p") addrs+=("127.0.0.1:$p")
done
for p in "${ports[@]}"; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log" 2>&1 ||
  { echo "redis-cluster.sh: redis-cli --cluster create failed" >&2; cat "$dir/create.log" >&2; exit 1; }
for _ in $(seq 200); do
  ok=0
  for p in "${ports[@]}"; do redis-cli -p "$p" cluster info 2>/dev/null | grep -q 'cluster_state:ok' && ok=$((ok + 1)); done
  [ "$ok" = 3 ] && break
  sleep 0.05
done
[ "$ok" = 3 ] || { echo "redis-cluster.sh: cluster_state not ok after 10 s" >&2; exit 1; }
(IFS=,; echo "redis-cluster://${addrs[*]}")
