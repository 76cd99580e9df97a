#!/usr/bin/env bash
# Outgrowing one host: one PHP script, unchanged, on a single Redis and on a
# 3-member etcd cluster; only ephpm.server differs. A holder that overran its
# TTL releases late and must not free the next holder's lock; fences rise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /dev/shm/ephpm-demo.XXXXXX) # etcd fsyncs every commit: tmpfs
redis=
cleanup() {
  [ -z "$redis" ] || kill "$redis" 2>/dev/null || true
  "$root/build/etcd-cluster.sh" stop "$work/etcd" >/dev/null 2>&1 || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

redis-server --unixsocket "$work/redis.sock" --port 0 --save '' --appendonly no \
  --maxmemory-policy noeviction --loglevel warning >/dev/null 2>&1 &
redis=$!
for _ in $(seq 100); do [ -S "$work/redis.sock" ] && break; sleep 0.05; done
mkdir -p "$work/etcd"
etcd=$("$root/build/etcd-cluster.sh" start "$work/etcd" auto)

script='$a = Ephpm\Lock::acquire("demo:job", 1);           // A: a 1 s lock
usleep(2_500_000);                                      // A overruns it; its lease runs out
$b = Ephpm\Lock::acquire("demo:job", 30, wait: 3);      // B takes it (waits out the lag)
printf("  A fence %d, B fence %d; A releases late: %s; B still holds it: %s\n",
  $a->fence, $b->fence, var_export($a->release(), true), var_export($b->isAcquired(), true));
$b->release();'
for url in "unix://$work/redis.sock" "etcd://$etcd"; do
  echo "ephpm.server=$url"
  php -n -d extension="$root/build/ephpm.so" -d ephpm.server="$url" -r "$script"
done
