#!/usr/bin/env bash
# Starts an ephpm-kv server and a real php-fpm (pm.max_children=4) whose
# workers use it through ephpm.server, then drives them with fpm_test.php.
# Usage: php-tests/fpm/run.sh  (after make all)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/php-tests/fpm"
fpm=$(command -v php-fpm8.2 || command -v php-fpm || true)
[ -x "$fpm" ] || { echo "run.sh: php-fpm not installed (apt-get install php8.2-fpm)" >&2; exit 1; }
command -v cgi-fcgi >/dev/null || { echo "run.sh: cgi-fcgi not installed (apt-get install libfcgi-bin)" >&2; exit 1; }

work=$(mktemp -d /tmp/ephpm-fpm.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$root/build/ephpm-kv" --unix "$work/kv.sock" 2>"$work/kv.log" &
pids+=($!)

cat > "$work/php.ini" <<INI
extension=$root/build/ephpm.so
ephpm.server=unix://$work/kv.sock
session.save_handler=ephpm
session.use_strict_mode=0
session.lazy_write=0
ephpm.session_lock_wait=20
INI

cat > "$work/fpm.conf" <<CONF
[global]
error_log = $work/fpm.log
daemonize = no
[app]
listen = $work/fpm.sock
pm = static
pm.max_children = 4
catch_workers_output = yes
CONF

"$fpm" -n -c "$work/php.ini" -y "$work/fpm.conf" -R -F &
pids+=($!)

for _ in $(seq 100); do
  [ -S "$work/fpm.sock" ] && [ -S "$work/kv.sock" ] && break
  sleep 0.05
done
[ -S "$work/fpm.sock" ] || { echo "php-fpm did not start:"; cat "$work/fpm.log"; exit 1; }

php -n -d extension="$root/build/ephpm.so" -d ephpm.server="unix://$work/kv.sock" "$here/fpm_test.php" "$work/fpm.sock" || {
  echo "--- php-fpm log"; cat "$work/fpm.log"; echo "--- ephpm-kv log"; cat "$work/kv.log"; exit 1; }
