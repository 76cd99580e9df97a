#!/usr/bin/env bash
# Runs the bridge PHPUnit suites (php/tests/) against one engine.
# Usage: [BRIDGE_TESTS=path] build/phpunit.sh MODE [phpunit options...]
#   MODE map     the in-process Go map (-d ephpm.shm_size=0)
#        shm     the shared segment, anonymous: the extension's defaults
#        named   a named shared segment (ephpm.shm_name), so the
#                cross-process tests run against child PHP processes
#        server  an ephpm-kv server this script starts on a unix socket
# BRIDGE_TESTS (a directory or file) defaults to php/tests/; exits with PHPUnit's status.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=$1
shift
export EPHPM_SO=$root/build/ephpm.so # php/tests/Symfony/child.php's processes load it too
args=(-d "extension=$EPHPM_SO")
work=$(mktemp -d /tmp/ephpm-phpunit.XXXXXX)
server= shm=
cleanup() {
  [ -z "$server" ] || { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; }
  [ -z "$shm" ] || rm -f "/dev/shm$shm"
  rm -rf "$work"
}
trap cleanup EXIT
trap "exit 1" INT TERM HUP PIPE # killed (or its reader gone): still clean up
case "$mode" in
  map) args+=(-d ephpm.shm_size=0) ;;
  shm) ;;
  named)
    shm=/ephpm-phpunit-${work##*.} # the work dir's random suffix: unique among concurrent runs
    args+=(-d "ephpm.shm_name=$shm") ;;
  server)
    "$root/build/ephpm-kv" --unix "$work/kv.sock" 2>"$work/kv.log" &
    server=$!
    for _ in $(seq 100); do [ -S "$work/kv.sock" ] && break; sleep 0.05; done
    [ -S "$work/kv.sock" ] || { echo "phpunit $mode: ephpm-kv did not start"; cat "$work/kv.log"; exit 1; }
    args+=(-d "ephpm.server=unix://$work/kv.sock") ;;
  *) echo "phpunit.sh: unknown mode '$mode' (map, shm, named, server)" >&2; exit 2 ;;
esac
echo "== bridges, engine $mode"
php "${args[@]}" /usr/bin/phpunit --colors=never --do-not-cache-result --bootstrap "$root/php/tests/bootstrap.php" "$@" "${BRIDGE_TESTS:-$root/php/tests/}"
