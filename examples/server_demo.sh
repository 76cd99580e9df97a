#!/usr/bin/env bash
# Server mode: two separate PHP processes (as two php-fpm workers would be)
# share one lock through an ephpm-kv server on a unix socket.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/ephpm-demo.XXXXXX)
start_server() {
  "$root/build/ephpm-kv" --unix "$work/kv.sock" --snapshot "$work/kv.snap" 2>/dev/null &
  server=$!
  for _ in $(seq 100); do [ -S "$work/kv.sock" ] && break; sleep 0.05; done
}
start_server
trap 'kill $server 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT

php_in_server_mode() {
  php -n -d extension="$root/build/ephpm.so" -d ephpm.server="unix://$work/kv.sock" -r "$1"
}
echo "Server mode: each line below is a separate PHP process sharing $work/kv.sock"
php_in_server_mode '$token = bin2hex(random_bytes(16));
  printf("  process %d takes lock:report, exits holding it: %s\n", getmypid(),
    var_export(ephpm_kv_setnx("lock:report", $token, 30), true));
  ephpm_kv_set("demo:token", $token); /* so the demo can release it later */'
php_in_server_mode 'printf("  process %d tries lock:report:                  %s\n", getmypid(),
  var_export(Ephpm\Lock::acquire("lock:report", 30) !== null, true));'
php_in_server_mode 'printf("  process %d releases with a wrong token:        %s\n", getmypid(),
  var_export(ephpm_kv_del_if_eq("lock:report", "not-the-token"), true));'
php_in_server_mode 'printf("  process %d releases with the holder token:     %s\n", getmypid(),
  var_export(ephpm_kv_del_if_eq("lock:report", ephpm_kv_get("demo:token")), true));'
php_in_server_mode '$l = Ephpm\Lock::acquire("lock:report", 30);
  printf("  process %d tries again:                       acquired, fence %d\n", getmypid(), $l->fence);'
command -v redis-cli >/dev/null || { echo "server_demo.sh: redis-cli missing: run build/deps.sh demo" >&2; exit 1; }
echo "  redis-cli GET demo:token (same store):        $(redis-cli -s "$work/kv.sock" GET demo:token)"
kill -9 "$server"; wait "$server" 2>/dev/null || true; rm -f "$work/kv.sock"; start_server
echo "  (the server was killed with SIGKILL and restarted: fences still only go up)"
php_in_server_mode '$l = Ephpm\Lock::acquire("lock:after-crash", 30);
  printf("  process %d takes another lock:                fence %d\n", getmypid(), $l->fence);'
php_in_server_mode 'try { ephpm_kv_set("k", "v", 1e10); } catch (ValueError $e) {
  printf("  a TTL that cannot be kept is refused:         %s\n", $e->getMessage()); }'
