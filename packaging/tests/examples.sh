#!/usr/bin/env bash
# The example configs in packaging/: each php.ini snippet, loaded alone
# (php -n -c), must select the engine its name claims (ephpm_kv_stats()
# ['engine'], after a write), and each php-fpm pool snippet must pass
# `php-fpm8.2 -t` under a minimal main config (as root, with the users and
# groups it names created for the check and removed after).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "examples test: $*" >&2; exit 1; }
tmp=$(mktemp -d)
srv= made=()
cleanup() {
  [ -z "$srv" ] || kill "$srv" 2>/dev/null || true
  [ -z "${name:-}" ] || rm -f "/dev/shm$name"
  for m in "${made[@]}"; do
    case $m in user:*) userdel "${m#user:}" 2>/dev/null || true ;; group:*) groupdel "${m#group:}" 2>/dev/null || true ;; esac
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# A snippet's own lines, with paths and names moved out of the system's:
# the server socket into $tmp, the segment name to one of this run.
name="/ephpm-example-$$"
remap() { sed -e "s|/run/ephpm-kv/|$tmp/|g" -e "s|^ephpm.shm_name=.*|ephpm.shm_name=$name|" "$1" >"$tmp/$(basename "$1")"; }

"$root/build/ephpm-kv" --unix "$tmp/ephpm-kv.sock" 2>"$tmp/server.log" &
srv=$!
for _ in $(seq 100); do [ -S "$tmp/ephpm-kv.sock" ] && break; sleep 0.05; done

engine_of() {
  php -n -c "$tmp/$1" -d extension_dir="$root/build" -r '
    ephpm_kv_set("example:k", "v");
    echo ephpm_kv_stats()["engine"];'
}
checked=0
for ini in "$root"/packaging/php/*.ini; do
  base=$(basename "$ini" .ini)
  case $base in
    ephpm-shm | ephpm-shm-named) want=shm ;;
    ephpm-map) want=map ;;
    ephpm-server) want=server ;;
    *) fail "$ini: no engine known for this snippet (add it to this test)" ;;
  esac
  remap "$ini"
  got=$(engine_of "$(basename "$ini")" 2>&1) || fail "$ini: $got"
  [ "$got" = "$want" ] || fail "$ini selects engine '$got', want '$want'"
  # The named one must really be the named segment, not the anonymous one.
  if [ "$base" = ephpm-shm-named ]; then
    [ -e "/dev/shm$name" ] || fail "$ini: engine shm but no segment /dev/shm$name"
  fi
  echo "examples test: $(basename "$ini") selects $got"
  checked=$((checked + 1))
done
[ "$checked" -ge 4 ] || fail "only $checked php.ini snippets"

if [ "$(id -u)" != 0 ]; then
  echo "examples test: skipped php-fpm -t of the pool snippets (needs root: php-fpm resolves the pools' users)"
  exit 0
fi
for pool in "$root"/packaging/php-fpm/*.conf; do
  for u in $(sed -n 's/^user *= *//p' "$pool"); do
    getent passwd "$u" >/dev/null || { useradd --system --no-create-home --shell /usr/sbin/nologin "$u" && made+=("user:$u" "group:$u"); }
  done
  for g in $(sed -n 's/^group *= *//p' "$pool"); do
    getent group "$g" >/dev/null || { groupadd --system "$g" && made+=("group:$g"); }
  done
  printf '[global]\npid = %s/fpm.pid\nerror_log = %s/fpm.log\ninclude = %s\n' "$tmp" "$tmp" "$pool" >"$tmp/php-fpm.conf"
  out=$(php-fpm8.2 -n -t -y "$tmp/php-fpm.conf" 2>&1) || fail "php-fpm8.2 -t rejects $pool: $out"
  echo "examples test: php-fpm8.2 -t accepts $(basename "$pool")"
done
