#!/usr/bin/env bash
# The systemd unit, run as it says: its ExecStart line (read from the unit
# file, paths moved into a temp dir) as its User and Group with its UMask,
# the users made from packaging/sysusers.d (systemd-sysusers --root, so the
# host's passwd is untouched), the socket directory made as
# packaging/tmpfiles.d says. Then a process in the group must do a lock
# round trip over the socket, one outside it must get "permission denied",
# and the snapshot must bring a key back after a restart.
# UNIT, TMPFILES, SYSUSERS override the files (to show a broken unit fails).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
unit=${UNIT:-$root/packaging/systemd/ephpm-kv.service}
tmpfiles=${TMPFILES:-$root/packaging/tmpfiles.d/ephpm-kv.conf}
sysusers=${SYSUSERS:-$root/packaging/sysusers.d/ephpm-kv.conf}
fail() { echo "systemd test: $*" >&2; exit 1; }

# systemd-analyze verify only warns (exit 0) on unknown keys and bad values:
# any output is a failure.
if command -v systemd-analyze >/dev/null; then
  v=$(mktemp -d)
  sed 's|^ExecStart=/usr/bin/ephpm-kv |ExecStart=/bin/true |' "$unit" >"$v/ephpm-kv.service"
  out=$(systemd-analyze verify "$v/ephpm-kv.service" 2>&1) || fail "systemd-analyze verify failed: $out"
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  sec=$(systemd-analyze security --offline=yes --threshold=20 "$v/ephpm-kv.service" 2>&1) ||
    fail "systemd-analyze security: exposure above 2.0: $(echo "$sec" | tail -1)"
  echo "systemd test: systemd-analyze verify clean; $(echo "$sec" | grep -o 'Overall exposure level.*')"
  rm -rf "$v"
else
  echo "systemd test: systemd-analyze missing: unit not verified"
fi

[ "$(id -u)" = 0 ] || { echo "systemd test: skipped the run check (needs root to switch users with setpriv)"; exit 0; }

key() { sed -n "s/^$1=//p" "$unit" | tail -1; }
user=$(key User) group=$(key Group) umask=$(key UMask) exec=$(key ExecStart)
[ -n "$user" ] && [ -n "$group" ] && [ -n "$umask" ] && [ -n "$exec" ] || fail "unit lacks User, Group, UMask or ExecStart"
case $exec in *\\) fail "ExecStart continues on the next line: this test reads one line" ;; esac

tmp=$(mktemp -d)
srv=
cleanup() { [ -z "$srv" ] || kill "$srv" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
chmod 0755 "$tmp"
# The binaries, where the unit's user and nobody can reach them whatever
# the checkout's parent directories allow.
mkdir "$tmp/bin"
cp "$root/build/ephpm-kv" "$root/build/ephpm.so" "$root/build/libephpm_kv.so" "$tmp/bin/"
chmod 0755 "$tmp/bin"
mkdir "$tmp/sysroot" "$tmp/sysroot/etc"
systemd-sysusers --root="$tmp/sysroot" "$sysusers" >/dev/null 2>&1 || fail "systemd-sysusers rejected $sysusers"
uid=$(awk -F: -v u="$user" '$1 == u {print $3}' "$tmp/sysroot/etc/passwd")
gid=$(awk -F: -v g="$group" '$1 == g {print $3}' "$tmp/sysroot/etc/group")
[ -n "$uid" ] || fail "User=$user is not made by $sysusers"
[ -n "$gid" ] || fail "Group=$group is not made by $sysusers"

# The unit's paths, moved under $tmp.
remap() { sed -e "s|/usr/bin/ephpm-kv|$tmp/bin/ephpm-kv|g" -e "s|/run/ephpm-kv|$tmp/run/ephpm-kv|g" -e "s|/var/lib/ephpm-kv|$tmp/state|g"; }
exec=$(printf '%s' "$exec" | remap)

# tmpfiles.d: "d PATH MODE USER GROUP -" lines, made as systemd-tmpfiles would.
mkdir -p "$tmp/run"
while read -r type path mode owner grp _; do
  case $type in ''|\#*) continue ;; d) ;; *) fail "tmpfiles type $type not handled by this test" ;; esac
  o=$(awk -F: -v u="$owner" '$1 == u {print $3}' "$tmp/sysroot/etc/passwd")
  g=$(awk -F: -v u="$grp" '$1 == u {print $3}' "$tmp/sysroot/etc/group")
  [ -n "$o" ] && [ -n "$g" ] || fail "tmpfiles owner $owner:$grp is not made by $sysusers"
  p=$(printf '%s' "$path" | remap)
  mkdir -p "$p" && chown "$o:$g" "$p" && chmod "$mode" "$p"
done <"$tmpfiles"
# StateDirectory=, owned by User/Group with StateDirectoryMode.
mkdir "$tmp/state" && chown "$uid:$gid" "$tmp/state" && chmod "$(key StateDirectoryMode)" "$tmp/state"

sock=$(printf '%s' "$exec" | grep -o -- "--unix [^ ]*" | cut -d' ' -f2)
[ -n "$sock" ] || fail "ExecStart has no --unix socket"

start() {
  # shellcheck disable=SC2086 # ExecStart's words, as systemd splits them
  (umask "$umask" && exec setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all $exec) >>"$tmp/server.log" 2>&1 &
  srv=$!
  for _ in $(seq 100); do [ -S "$sock" ] && return 0; kill -0 "$srv" 2>/dev/null || break; sleep 0.05; done
  cat "$tmp/server.log" >&2; fail "the server did not listen on $sock"
}
stop() { kill -TERM "$srv"; wait "$srv" || true; srv=; }

# A client: nobody, in the unit's group or not.
client() {
  local groups=$1; shift
  setpriv --reuid=65534 --regid=65534 $groups php -n -d extension="$tmp/bin/ephpm.so" \
    -d ephpm.server="unix://$sock" -d ephpm.server_timeout=2 -r "$@"
}

start
[ "$(stat -c %g "$sock")" = "$gid" ] || fail "socket group is $(stat -c %G "$sock"), want $group"

out=$(client --groups="$gid" '
  $t = bin2hex(random_bytes(8));
  $ok = ephpm_kv_setnx("lock:a", $t, 30) && !ephpm_kv_setnx("lock:a", "x", 30)
     && !ephpm_kv_del_if_eq("lock:a", "x") && ephpm_kv_del_if_eq("lock:a", $t);
  ephpm_kv_set("survives", "restart", 3600);
  echo $ok ? "ok" : "round trip failed";' 2>&1) || true
[ "$out" = ok ] || fail "a process in group $group could not use the socket: $out"
echo "systemd test: a process in group $group (gid $gid) did a setnx/del_if_eq round trip"

out=$(client --clear-groups 'try { ephpm_kv_get("lock:a"); echo "connected"; } catch (Ephpm\KvException $e) { echo $e->getMessage(); }' 2>&1) || true
case $out in
  *"ermission denied"*) echo "systemd test: a process outside the group was refused: permission denied" ;;
  *) fail "a process outside group $group was not refused with permission denied: $out" ;;
esac

# The snapshot under StateDirectory brings the key back after a restart.
stop
start
out=$(client --groups="$gid" 'echo ephpm_kv_get("survives") ?? "(missing)";' 2>&1) || true
[ "$out" = restart ] || { cat "$tmp/server.log" >&2; fail "after a restart the key is '$out', want 'restart' (snapshot not written or not read back)"; }
ls -l "$tmp/state" | grep -q -- '-rw------- .* ephpm-kv.snapshot$' || fail "snapshot is not private: $(ls -l "$tmp/state")"
echo "systemd test: the snapshot in StateDirectory brought the key back after a restart"
stop
