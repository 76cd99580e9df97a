#!/usr/bin/env bash
# The PHP API on a 3-member etcd cluster on loopback (build/etcd-cluster.sh):
# locks across PHP processes, then a cluster without quorum (two members
# SIGSTOPped) that must be Ephpm\KvException UNAVAILABLE, never false.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /dev/shm/ephpm-etcd-php.XXXXXX)
cleanup() { "$root/build/etcd-cluster.sh" stop "$work" || true; rm -rf "$work"; }
trap cleanup EXIT
ep=$("$root/build/etcd-cluster.sh" start "$work" "${EPHPM_ETCD_PORT:-23820}")
ext="$root/build/ephpm.so"
php=(php -n -d "extension=$ext" -d "ephpm.server=etcd://$ep" -d ephpm.server_timeout=1)

"${php[@]}" "$root/php-tests/etcd/etcd_test.php" "$ext"

out=$(php -n -d "extension=$ext" -d ephpm.server=etcd://no-port -r '
  try { ephpm_kv_get("k"); echo "no exception"; }
  catch (Ephpm\KvException $e) { echo $e->getCode() === Ephpm\KvException::CONFIG ? "CONFIG: " . $e->getMessage() : "code " . $e->getCode(); }' 2>&1)
case "$out" in
  "CONFIG: "*etcd://host1:port1*) echo "ok   etcd: a malformed etcd:// address is KvException::CONFIG" ;;
  *) echo "FAIL etcd: a malformed etcd:// address: $out"; exit 1 ;;
esac

kill -STOP "$(cat "$work/m1/pid")" "$(cat "$work/m2/pid")"
out=$("${php[@]}" -r '
  $t = microtime(true);
  try { var_export(ephpm_kv_setnx("lock:x", "A", 10)); }
  catch (Ephpm\KvException $e) { echo $e->getCode() === Ephpm\KvException::UNAVAILABLE ? "UNAVAILABLE" : "code " . $e->getCode(); }
  printf(" in %.1f s", microtime(true) - $t);' 2>&1)
kill -CONT "$(cat "$work/m1/pid")" "$(cat "$work/m2/pid")"
case "$out" in
  "UNAVAILABLE in 0."* | "UNAVAILABLE in 1."*) echo "ok   etcd: setnx without quorum: $out" ;;
  *) echo "FAIL etcd: setnx without quorum: $out (want UNAVAILABLE within the 1 s timeout)"; exit 1 ;;
esac
