#!/usr/bin/env bash
# The .deb packages (build/deb.sh), installed the way a user would: lintian
# finds nothing above info level (overrides say why); `apt-get install ./x.deb`
# enables the extension for the CLI and php-fpm with no other step, a script
# does a lock round trip with no ephpm setting, and a purge leaves no trace.
# The server's package makes its user and ships its unit and man page.
# Usage: packaging/tests/deb.sh PHP_VERSION EPHPM_SO OUTDIR   (run as root, on the
# Debian release whose PHP_VERSION it is: the host's, or in build/trixie.sh's
# chroot)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
phpv=$1 so=$2 out=$3
fail() { echo "deb test ($phpv): $*" >&2; exit 1; }
say() { echo "deb test ($phpv): $*"; }
php=php$phpv fpm=php-fpm$phpv

pkgs=()
cleanup() { ((${#pkgs[@]} == 0)) || DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${pkgs[@]}" >/dev/null 2>&1 || true; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
dpkg-query -W -f='${Status}' lintian 2>/dev/null | grep -q "install ok installed" ||
  { apt-get update -qq && apt-get install -y -qq --no-install-recommends lintian >/dev/null; }

rm -rf "$out" && mkdir -p "$out"
deb=$("$root/build/deb.sh" php "$phpv" "$so" "$($php -r 'echo PHP_EXTENSION_DIR;')" "$out")
srv=$("$root/build/deb.sh" server "$out")
# Above info: errors, warnings (and pedantic would be noise on a hand-made package).
findings=$(lintian "$deb" "$srv" 2>&1 | grep -v 'running with root privileges' || true)
[ -z "$findings" ] || fail "lintian: $findings"
say "lintian: no errors or warnings on $(basename "$deb") and $(basename "$srv")"

! $php -m | grep -qx ephpm || fail "ephpm is already enabled before the install: run this on a PHP without it"
pkgs=("php$phpv-ephpm" ephpm-kv)
apt-get install -y -qq "$deb" "$srv" >"$out/install.log" 2>&1 || { cat "$out/install.log"; fail "apt-get install failed"; }

$php -m | grep -qx ephpm || fail "the CLI does not load ephpm after the install"
$fpm -m 2>/dev/null | grep -qx ephpm || fail "php-fpm does not load ephpm after the install"
r=$($php -r '$t = bin2hex(random_bytes(8));
  echo ephpm_kv_setnx("deb:lock", $t, 30) && !ephpm_kv_del_if_eq("deb:lock", "x") && ephpm_kv_del_if_eq("deb:lock", $t)
    ? "ok " . ephpm_kv_stats()["engine"] : "FAILED";')
[ "$r" = "ok shm" ] || fail "lock round trip with the installed package: $r"
say "apt-get install enabled ephpm for the CLI and php-fpm; a lock round trip on the default engine (shm)"

getent passwd ephpm-kv >/dev/null || fail "the server package made no ephpm-kv user"
[ -d /var/lib/ephpm-kv ] && [ "$(stat -c %U /var/lib/ephpm-kv)" = ephpm-kv ] || fail "/var/lib/ephpm-kv missing or not the server's"
/usr/bin/ephpm-kv --help 2>&1 | grep -q -- '-snapshot' || fail "the packaged server does not run"
man -l /usr/share/man/man1/ephpm-kv.1.gz 2>/dev/null | grep -q -- '-max-value-size' ||
  zcat /usr/share/man/man1/ephpm-kv.1.gz | grep -q 'max\\-value\\-size' || fail "the man page lists no flags"
say "ephpm-kv: user, state directory, binary and man page in place"

apt-get purge -y -qq "${pkgs[@]}" >/dev/null 2>&1 || fail "apt-get purge failed"
pkgs=()
! $php -m | grep -qx ephpm || fail "ephpm still loaded after the purge"
left=$(find /etc/php/"$phpv" -name '*ephpm*' 2>/dev/null; [ ! -e /var/lib/ephpm-kv ] || echo /var/lib/ephpm-kv)
[ -z "$left" ] || fail "left after the purge: $left"
say "purge removed both, and their files and module state"
