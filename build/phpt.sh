#!/usr/bin/env bash
# Runs the phpt suite (php-tests/) against one engine, with its own log and
# summary; exits 1 when a test failed, borked or leaked.
# Usage: [PHPT_TESTS='php-tests/a.phpt ...'] build/phpt.sh MODE LOG [run-tests.php options...]
#   MODE map     the in-process Go map (-d ephpm.shm_size=0)
#        shm     the shared segment: the extension's defaults
#        server  an ephpm-kv server this script starts on a unix socket;
#                serial (-j1): the tests share its one store, and some flush it
#        redis   the same with Debian's redis-server (7) instead: server mode
#                on a Redis, through the Lua scripts (noeviction, nothing saved)
#        redis-cluster  a 3-master Redis Cluster on loopback (build/redis-cluster.sh)
#        etcd    a 3-member etcd cluster on loopback (build/etcd-cluster.sh, on
#                tmpfs, free ports; EPHPM_ETCD_PORT sets the first of six)
# php-tests/mode.inc tells a test which mode it runs in (from the same ini).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=$1 log=$2
shift 2
run_tests=$(php-config --extension-dir)/build/run-tests.php
mkdir -p "$root/build/out"
out="$root/build/out/$log"

export EPHPM_TEST_RUN=$mode # php-tests/skipif.inc: ephpm_run_once()
args=(-P -n -q --show-diff -d "extension=$root/build/ephpm.so")
case "$mode" in
  map) args+=(-j2 -d ephpm.shm_size=0) ;;
  shm) args+=(-j2) ;;
  server)
    work=$(mktemp -d /tmp/ephpm-phpt-server.XXXXXX)
    "$root/build/ephpm-kv" --unix "$work/kv.sock" 2>"$work/kv.log" &
    server=$!
    trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
    for _ in $(seq 100); do [ -S "$work/kv.sock" ] && break; sleep 0.05; done
    [ -S "$work/kv.sock" ] || { echo "phpt $mode: ephpm-kv did not start"; cat "$work/kv.log"; exit 1; }
    args+=(-j1 -d "ephpm.server=unix://$work/kv.sock") ;;
  redis)
    command -v redis-server >/dev/null || { echo "phpt redis: redis-server is not installed (build/deps.sh redis)"; exit 1; }
    work=$(mktemp -d /tmp/ephpm-phpt-redis.XXXXXX)
    redis-server --port 0 --unixsocket "$work/kv.sock" --save '' --appendonly no --dir "$work" \
      --maxmemory-policy noeviction --proto-max-bulk-len 1mb --logfile "$work/kv.log" & # 1 MiB values at most, as ephpm-kv
    server=$!
    trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$work"' EXIT
    for _ in $(seq 100); do [ -S "$work/kv.sock" ] && break; sleep 0.05; done
    [ -S "$work/kv.sock" ] || { echo "phpt $mode: redis-server did not start"; cat "$work/kv.log"; exit 1; }
    args+=(-j1 -d "ephpm.server=unix://$work/kv.sock") ;;
  redis-cluster)
    work=$(mktemp -d /tmp/ephpm-phpt-cluster.XXXXXX)
    trap 'xargs -r kill <"$work/pids" 2>/dev/null; sleep 0.2; rm -rf "$work"' EXIT
    url=$("$root/build/redis-cluster.sh" "$work")
    cat "$work"/*/redis.log >"$work/kv.log" 2>/dev/null || true
    args+=(-j1 -d "ephpm.server=$url") ;;
  etcd)
    work=$(mktemp -d /dev/shm/ephpm-phpt-etcd.XXXXXX)
    trap '"$root/build/etcd-cluster.sh" stop "$work" || true; rm -rf "$work"' EXIT
    ep=$("$root/build/etcd-cluster.sh" start "$work" "${EPHPM_ETCD_PORT:-auto}")
    export EPHPM_ETCD_DIR=$work # php-tests/etcd_no_quorum.phpt stops two members
    args+=(-j1 -d "ephpm.server=etcd://$ep") ;;
  *) echo "phpt.sh: unknown mode '$mode' (map, shm, server, redis, redis-cluster, etcd)" >&2; exit 2 ;;
esac

# run-tests.php exits 0 even when tests fail, so its summary is checked too.
# PHPT_TESTS: some tests instead of the whole directory (paths from the root)
read -ra tests <<<"${PHPT_TESTS:-php-tests/}"
# run-tests.php writes each test's files beside it (x.php, x.skip.php,
# x.diff). test-php runs the etcd and redis-cluster modes (and the 8.4 lane
# its server mode) beside the others, so each of those runs from a tree of
# its own (PHPT_OWN_TREE=1; etcd always: the tests copied; build/, go/ and
# php/, whose status.php a test runs, linked), where the others' files never
# meet its own.
tree=$root
if [ "$mode" = etcd ] || [ -n "${PHPT_OWN_TREE:-}" ]; then
  tree="$root/build/out/phpt-tree-${log%.log}"
  rm -rf "$tree" && mkdir -p "$tree"
  cp -r "$root/php-tests" "$tree/" && ln -s "$root/build" "$tree/build" && ln -s "$root/go" "$tree/go" && ln -s "$root/php" "$tree/php"
fi
(cd "$tree" && php "$run_tests" "${args[@]}" --show-slow 2000 "$@" "${tests[@]}") >"$out" 2>&1 || true
count() { sed -n "s/^Tests $1 *: *\([0-9]*\).*/\1/p" "$out"; }
echo "phpt $mode: $(count passed) passed, $(count failed) failed, $(count skipped) skipped ($(sed -n 's/^Time taken *: *//p' "$out"), log build/out/$log)"
if [ "$(count failed)" = 0 ] && ! grep -qE '^Tests (borked|leaked) *: *[1-9]' "$out"; then
  exit 0
fi
# The servers' logs first, then what failed and how: CI shows a failed
# run's last lines.
[ "${mode}" != server ] && [ "${mode}" != redis ] || { echo "--- $mode log (last 40 lines)"; tail -n 40 "$work/kv.log"; }
[ "${mode}" != redis-cluster ] || { for f in "$work"/*/redis.log; do echo "--- $mode: $f (last 15 lines)"; tail -n 15 "$f"; done; }
[ "${mode}" != etcd ] || { for i in 1 2 3; do cp "$work/m$i/log" "$out.m$i"; done; echo "--- $mode: the members' logs are in build/out/$log.m1..3"; }
awk '/========DIFF========/ { d = 1 } d { print } /========DONE========/ { d = 0 }
  /FAIL.*\[php-tests\// && !/^FAILED/ { print }' "$out"
sed -n '/^FAILED TEST SUMMARY/,/^=====/p' "$out"
exit 1
