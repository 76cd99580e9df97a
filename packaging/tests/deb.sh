#!/usr/bin/env bash
# The .deb packages (build/deb.sh), installed the way a user would: lintian
# finds nothing above info level (overrides say why); `apt-get install ./x.deb`
# enables the extension for the CLI and php-fpm with no other step, a script
# and a php-fpm request do a lock round trip with no ephpm setting, and a
# purge leaves no trace.
# The server's package makes its user and ships its unit and man page.
# Usage (as root):
#   packaging/tests/deb.sh 8.2 build/ephpm.so OUTDIR             the host's PHP, and the server package
#   packaging/tests/deb.sh 8.4 build/out/php84/ephpm.so OUTDIR   built and linted here, installed in
#                                                                build/trixie.sh's chroot (Debian 13)
#   packaging/tests/deb.sh --install PHP_VERSION DEB             (the install check alone; what the chroot runs)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export DEBIAN_FRONTEND=noninteractive
# Whatever this test installed is purged on any exit, and a purge that
# fails is loud: a package left behind enables ephpm for every later PHP run,
# which loads build/ephpm.so itself (twice loaded).
pkgs=()
purge_left() {
  ((${#pkgs[@]} == 0)) && return 0
  apt-get purge -y -qq "${pkgs[@]}" >/dev/null 2>&1 || dpkg --purge --force-all "${pkgs[@]}" >/dev/null 2>&1 || true
  local p
  for p in "${pkgs[@]}"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -v "not-installed" | grep -q .; then
      echo "deb test: COULD NOT PURGE $p: remove it by hand (dpkg --purge --force-all $p)" >&2
      return 1
    fi
  done
}
trap 'purge_left || exit 1' EXIT

# fpm_request FPM: a lock round trip in a request served by FPM, started with
# its own php.ini and conf.d (what the package changed) and a pool of ours.
fpm_request() {
  local fpm=$1 w pid out
  w=$(mktemp -d)
  printf '<?php $t = bin2hex(random_bytes(8));\necho ephpm_kv_setnx("deb:fpm", $t, 30) && ephpm_kv_del_if_eq("deb:fpm", $t) ? "ok " . ephpm_kv_stats()["engine"] : "FAILED";\n' >"$w/page.php"
  printf '[global]\nerror_log = %s/fpm.log\ndaemonize = no\n[deb]\nlisten = %s/fpm.sock\npm = static\npm.max_children = 1\n' "$w" "$w" >"$w/fpm.conf"
  "$fpm" -y "$w/fpm.conf" -R -F &
  pid=$!
  for _ in $(seq 100); do [ -S "$w/fpm.sock" ] && break; sleep 0.05; done
  out=$(SCRIPT_FILENAME="$w/page.php" REQUEST_METHOD=GET cgi-fcgi -bind -connect "$w/fpm.sock" 2>&1 | tail -n 1 || true)
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
  [ -n "$out" ] || out="no answer: $(cat "$w/fpm.log" 2>/dev/null)"
  rm -rf "$w"
  echo "$out"
}

# install_check PHPV DEB [SERVER_DEB]: install, check, purge.
install_check() {
  local phpv=$1 deb=$2 srv=${3:-}
  local php=php$phpv fpm=php-fpm$phpv
  # grep reads all of -m: with -q it could leave php writing into a closed
  # pipe, and pipefail would count that SIGPIPE as "not loaded"
  loads() { "$1" -m 2>/dev/null | grep -x ephpm >/dev/null; }
  fail() { echo "deb test ($phpv): $*" >&2; exit 1; }
  say() { echo "deb test ($phpv): $*"; }
  ! loads $php || fail "ephpm is already enabled before the install: run this on a PHP without it"
  pkgs=("php$phpv-ephpm")
  [ -z "$srv" ] || pkgs+=(ephpm-kv)
  apt-get install -y -qq "$deb" $srv >/tmp/ephpm-deb-install.log 2>&1 || { cat /tmp/ephpm-deb-install.log; fail "apt-get install failed"; }
  loads $php || fail "the CLI does not load ephpm after the install"
  loads $fpm || fail "php-fpm does not load ephpm after the install"
  local r
  r=$($php -r '$t = bin2hex(random_bytes(8));
    echo ephpm_kv_setnx("deb:lock", $t, 30) && !ephpm_kv_del_if_eq("deb:lock", "x") && ephpm_kv_del_if_eq("deb:lock", $t)
      ? "ok " . ephpm_kv_stats()["engine"] : "FAILED";')
  [ "$r" = "ok shm" ] || fail "lock round trip with the installed package: $r"
  r=$(fpm_request "$fpm")
  [ "$r" = "ok shm" ] || fail "a request through php-fpm with the installed package: $r"
  say "apt-get install enabled ephpm for the CLI and php-fpm (PHP $($php -r 'echo PHP_VERSION;')); a lock round trip on the default engine (shm), from the CLI and from a php-fpm request"
  if [ -n "$srv" ]; then
    getent passwd ephpm-kv >/dev/null || fail "the server package made no ephpm-kv user"
    [ "$(stat -c %U /var/lib/ephpm-kv 2>/dev/null)" = ephpm-kv ] || fail "/var/lib/ephpm-kv missing or not the server's"
    /usr/bin/ephpm-kv --help 2>&1 | grep -- '-snapshot' >/dev/null || fail "the packaged server does not run"
    zcat /usr/share/man/man1/ephpm-kv.1.gz | grep 'max\\-value\\-size' >/dev/null || fail "the man page lists no flags"
    [ "$(stat -c %a /var/lib/ephpm-kv)" = 700 ] || fail "/var/lib/ephpm-kv is not 0700, as the unit's StateDirectoryMode"
    say "ephpm-kv: user, state directory, binary and man page in place"
  fi
  apt-get purge -y -qq "${pkgs[@]}" >/dev/null 2>&1 || fail "apt-get purge failed"
  pkgs=()
  ! loads $php || fail "ephpm still loaded after the purge"
  local left
  # Debian's own extension packages leave a disabled_by_maint state behind
  # too; what must go is the ini, its links and any enabled state.
  left=$(find /etc/php/"$phpv" /var/lib/php/modules/"$phpv" /etc/systemd/system -name '*ephpm*' -not -path '*/disabled_by_maint/*'; [ -z "$srv" ] || [ ! -e /var/lib/ephpm-kv ] || echo /var/lib/ephpm-kv)
  [ -z "$left" ] || fail "left after the purge: $left"
  say "purge removed the package$([ -z "$srv" ] || echo "s"), their files and module state"
}

# Twice: a package installed again after a purge must be enabled again.
if [ "${1:-}" = --install ]; then
  install_check "$2" "$3"
  install_check "$2" "$3"
  exit
fi

phpv=$1 so=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ "$phpv" = 8.4 ]; then
  extdir=$("$root/build/trixie.sh" run php8.4 -r 'echo PHP_EXTENSION_DIR;')
else
  extdir=$(php"$phpv" -r 'echo PHP_EXTENSION_DIR;')
fi
deb=$("$root/build/deb.sh" php "$phpv" "$so" "$extdir" "$out")
srv=
[ "$phpv" = 8.4 ] || srv=$("$root/build/deb.sh" server "$out") # one server package: the same static binary for both
# lintian (CPU, half a minute) reads the files while the installs (mostly
# apt and dpkg waiting) run; its verdict is read once both are done.
lint=$(mktemp)
lintian "$deb" $srv >"$lint" 2>&1 &
lint_pid=$!
if [ "$phpv" = 8.4 ]; then
  "$root/build/trixie.sh" run packaging/tests/deb.sh --install 8.4 "$deb"
else
  install_check "$phpv" "$deb" "$srv"
  install_check "$phpv" "$deb" "$srv"
fi
wait "$lint_pid" || true # its findings decide, not its status
findings=$(grep -v 'running with root privileges' "$lint" || true)
rm -f "$lint"
[ -z "$findings" ] || { echo "deb test ($phpv): lintian: $findings" >&2; exit 1; }
echo "deb test ($phpv): lintian: no errors or warnings on $(basename "$deb")${srv:+ and $(basename "$srv")}"
