#!/usr/bin/env bash
# Regenerates ext/ephpm_arginfo.h from ext/ephpm.stub.php with PHP's own
# gen_stub.php. gen_stub wants PHP-Parser beside it and would download it;
# Debian's php-parser package provides it instead.
# Usage: build/gen-stub.sh -f       rewrite ext/ephpm_arginfo.h
#        build/gen-stub.sh --check  generate under build/out and compare, touching nothing in ext/
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gen_stub="$(php-config --extension-dir)/build/gen_stub.php"            # Debian
[ -f "$gen_stub" ] || gen_stub="$(php-config --prefix)/lib/php/build/gen_stub.php" # upstream
[ -f "$gen_stub" ] || { echo "gen-stub.sh: gen_stub.php not found (install php8.2-dev)" >&2; exit 1; }

work="$root/build/out/gen_stub"
version=$(sed -n 's/.*\$version = "\([0-9.]*\)";.*/\1/p' "$gen_stub" | head -1)
mkdir -p "$work/PHP-Parser-$version/lib"
ln -sfn /usr/share/php/PhpParser "$work/PHP-Parser-$version/lib/PhpParser"
cp "$gen_stub" "$work/gen_stub.php"
if [ "${1:-}" = --check ]; then
  check="$work/check"
  rm -rf "$check" && mkdir -p "$check"
  cp "$root/ext/ephpm.stub.php" "$check/"
  php "$work/gen_stub.php" -f "$check/ephpm.stub.php" >/dev/null
  diff -u "$root/ext/ephpm_arginfo.h" "$check/ephpm_arginfo.h" ||
    { echo "ext/ephpm_arginfo.h is stale: run make stubs and commit it" >&2; exit 1; }
  exit 0
fi
php "$work/gen_stub.php" "$@" "$root/ext/ephpm.stub.php"
