#!/usr/bin/env bash
# redis-cli and phpredis against an ephpm-kv server: existing Redis tools and
# clients work with it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/ephpm-interop.XXXXXX)
pid=
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

"$root/build/ephpm-kv" --unix "$work/kv.sock" 2>"$work/kv.log" &
pid=$!
for _ in $(seq 100); do [ -S "$work/kv.sock" ] && break; sleep 0.05; done

passed=0 failed=0
expect() { # expect WANT redis-cli-args...
  local want=$1; shift
  local got
  got=$(redis-cli -s "$work/kv.sock" "$@" 2>&1)
  if [ "$got" = "$want" ]; then passed=$((passed + 1)); echo "ok   redis-cli $*"
  else failed=$((failed + 1)); echo "FAIL redis-cli $*: got '$got', want '$want'"; fi
}
expect "PONG" PING
expect "OK" SET lock tok NX PX 5000
expect "" SET lock other NX PX 5000
expect "5" TTL lock
expect "0" DELIFEQ lock other
expect "1" DELIFEQ lock tok
expect "OK" SET k v EX 100
expect "100" TTL k
expect "1" PERSIST k
expect "-1" TTL k
expect "1" DELEX k IFEQ v
expect "ERR wrong number of arguments for 'get' command" GET
expect "ERR unknown command 'NOPE', with args beginning with: 'x' " NOPE x
echo "redis-cli: $passed passed, $failed failed"

php -n -d extension=igbinary -d extension=redis "$root/php-tests/interop/phpredis_test.php" "$work/kv.sock" || failed=$((failed + 1))
[ "$failed" -eq 0 ]
