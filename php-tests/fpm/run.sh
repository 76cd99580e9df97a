#!/usr/bin/env bash
# Starts a real php-fpm (pm=static, 4 workers) and drives it with
# fpm_test.php through cgi-fcgi. MODE (default server):
#   server  the workers use an ephpm-kv server this script starts (ephpm.server)
#   shm     no ephpm setting at all: the workers share the master's segment;
#           then a second php-fpm on a named segment (ephpm.shm_name) shared
#           with CLI processes
#   map     ephpm.shm_size=0: the proofs must come out short (per-worker stores)
#           (in php.ini, then per pool), and a pool that sets another
#           ephpm.shm_size, refused
# Usage: php-tests/fpm/run.sh [MODE]  (after make all)
set -euo pipefail
mode=${1:-server}
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/php-tests/fpm"
phpv=$(php -r 'echo PHP_MAJOR_VERSION, ".", PHP_MINOR_VERSION;') # the fpm of the CLI's PHP (8.2 here, 8.4 in the trixie lane)
fpm=$(command -v "php-fpm$phpv" || command -v php-fpm || true)
[ -x "$fpm" ] || { echo "run.sh: php-fpm not installed (apt-get install php$phpv-fpm)" >&2; exit 1; }
command -v cgi-fcgi >/dev/null || { echo "run.sh: cgi-fcgi not installed (apt-get install libfcgi-bin)" >&2; exit 1; }

work=$(mktemp -d /tmp/ephpm-fpm.XXXXXX)
shm_name=/ephpm-fpmtest-$$
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -f "/dev/shm$shm_name"
  rm -rf "$work"
}
trap cleanup EXIT

# start_fpm NAME INI-LINES...: a php-fpm on $work/NAME.sock with only
# these settings besides the extension and sessions.
start_fpm() {
  local name=$1
  shift
  printf '%s\n' "extension=$root/build/ephpm.so" session.save_handler=ephpm session.use_strict_mode=0 \
    session.lazy_write=0 "$@" >"$work/$name.ini"
  cat >"$work/$name.conf" <<CONF
[global]
error_log = $work/$name.log
daemonize = no
[app]
listen = $work/$name.sock
pm = static
pm.max_children = 4
catch_workers_output = yes
${pool_extra:-}
CONF
  "$fpm" -n -c "$work/$name.ini" -y "$work/$name.conf" -R -F &
  pids+=($!)
  for _ in $(seq 100); do [ -S "$work/$name.sock" ] && break; sleep 0.05; done
  [ -S "$work/$name.sock" ] || { echo "php-fpm did not start:"; cat "$work/$name.log"; exit 1; }
}

drive() { # drive NAME MODE [SHM_NAME]
  php -n "$here/fpm_test.php" "$work/$1.sock" "${@:2}" || {
    echo "--- php-fpm log"; cat "$work/$1.log"; [ ! -f "$work/kv.log" ] || { echo "--- ephpm-kv log"; cat "$work/kv.log"; }; exit 1; }
}

case "$mode" in
  server)
    "$root/build/ephpm-kv" --unix "$work/kv.sock" 2>"$work/kv.log" &
    pids+=($!)
    for _ in $(seq 100); do [ -S "$work/kv.sock" ] && break; sleep 0.05; done
    start_fpm fpm "ephpm.server=unix://$work/kv.sock"
    drive fpm server ;;
  shm)
    start_fpm fpm
    drive fpm shm
    rm -f "/dev/shm$shm_name"
    # As deployed: a master started as root, workers and CLI jobs (cron) as
    # the application's user, here nobody.
    if [ "$(id -u)" = 0 ]; then
      pool_extra=$'user = nobody\ngroup = nogroup'
      export EPHPM_FPM_CLI_AS=nobody:nogroup
    fi
    start_fpm named "ephpm.shm_name=$shm_name"
    drive named named "$shm_name"
    # Per pool (php_admin_value): a named segment works, each pool its own;
    # the anonymous segment's size is the master's, another is refused.
    rm -f "/dev/shm$shm_name"
    pool_extra+=$'\nphp_admin_value[ephpm.shm_name] = '"$shm_name"
    start_fpm pool
    drive pool named "$shm_name"
    pool_extra=$'php_admin_value[ephpm.shm_size] = 8M'
    start_fpm sized
    drive sized sized ;;
  map)
    start_fpm fpm ephpm.shm_size=0
    drive fpm map ;;
  *) echo "run.sh: unknown mode '$mode' (server, shm, map)" >&2; exit 2 ;;
esac
