#!/usr/bin/env bash
# Builds and installs the extension the way PIE does (phpize, ./configure,
# make, make install) from a copy of the tracked tree, then loads the
# installed ephpm.so with no ephpm.library setting: it must find the Go
# library that make install put beside it, and do a lock round trip.
# Also checks both composer.json files with `composer validate`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# What a release archive holds: the tracked files (and new ones not ignored).
mkdir "$tmp/src"
(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/src")

cd "$tmp/src"
phpize >"$tmp/phpize.log" 2>&1 || { cat "$tmp/phpize.log"; exit 1; }
./configure --enable-ephpm >"$tmp/configure.log" 2>&1 || { tail -20 "$tmp/configure.log"; exit 1; }
nice make -s >"$tmp/make.log" 2>&1 || { tail -30 "$tmp/make.log"; exit 1; }
make install INSTALL_ROOT="$tmp/root" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }

extdir="$tmp/root$(php-config --extension-dir)"
for f in ephpm.so libephpm_kv.so; do
  [ -f "$extdir/$f" ] || { echo "test-package: make install did not install $f into $extdir"; ls -la "$extdir"; exit 1; }
done

# No ephpm.library: the default (beside ephpm.so) must be the installed library;
# no ephpm setting at all, so the default engine (the shared segment) runs.
out=$(php -n -d extension="$extdir/ephpm.so" -r '
  $lib = ini_get("ephpm.library");
  if ($lib !== "") { echo "ephpm.library is set: $lib\n"; exit(1); }
  $t = bin2hex(random_bytes(8));
  $ok = ephpm_kv_setnx("pkg:lock", $t, 30) && !ephpm_kv_setnx("pkg:lock", "other", 30)
      && !ephpm_kv_del_if_eq("pkg:lock", "other") && ephpm_kv_del_if_eq("pkg:lock", $t)
      && !ephpm_kv_exists("pkg:lock");
  echo $ok ? "round trip ok, engine " . ephpm_kv_stats()["engine"] : "round trip FAILED", "\n";
  exit($ok ? 0 : 1);
') || { echo "test-package: $out"; exit 1; }
echo "test-package: PIE-style build installed ephpm.so and libephpm_kv.so; $out"

# The library that answered must be the installed one, not build/'s.
maps=$(php -n -d extension="$extdir/ephpm.so" -d ephpm.shm_size=0 -r '
  ephpm_kv_set("k", "v"); echo file_get_contents("/proc/self/maps");' | grep -o '/[^ ]*libephpm_kv\.so' | sort -u)
[ "$maps" = "$extdir/libephpm_kv.so" ] || { echo "test-package: loaded library is '$maps', want $extdir/libephpm_kv.so"; exit 1; }

# The installed library was linked with async preemption off (Makefile.frag):
# it sends no SIGURG to the thread calling it.
"$root/build/out/abi_sigurg" "$extdir/libephpm_kv.so" || { echo "test-package: the installed library signals its caller's thread"; exit 1; }

# Debian 12's composer (2.5) predates the php-ext schema: its only
# complaint allowed is that php-ext is unknown; anything else fails.
for f in composer.json php/composer.json; do
  composer validate --strict -d "$root/$(dirname "$f")" >"$tmp/validate.log" 2>&1 && continue
  if grep -q '^- ' "$tmp/validate.log" && ! grep '^- ' "$tmp/validate.log" | grep -vq 'The property php-ext is not defined'; then
    continue
  fi
  echo "test-package: composer validate $f failed:"; cat "$tmp/validate.log"; exit 1
done
echo "test-package: composer validate: composer.json and php/composer.json are valid (php-ext unknown to composer $(composer --version 2>/dev/null | awk '{print $3}'))"

# php/composer.json's constraints: the versions the bridge suites run on
# (Symfony 5.4 and 6.4, Laravel 8 and 10, psr/simple-cache 1 and 3; 2 was
# read) install beside it, the majors nobody tested are refused. Offline: the
# bridge as a path repository and each framework package as an inline
# definition.
resolves() { # package version -> 0 when composer would install the bridge beside it
  mkdir -p "$tmp/resolve" && cat >"$tmp/resolve/composer.json" <<EOF
{"repositories": [{"packagist.org": false}, {"type": "path", "url": "$root/php", "options": {"symlink": false}},
  {"type": "package", "package": {"name": "$1", "version": "$2"}}],
 "require": {"ephpm/ephpm-kv-bridge": "*@dev", "$1": "$2"}}
EOF
  COMPOSER_HOME="$tmp/composer-home" composer update -d "$tmp/resolve" --dry-run --no-interaction --ignore-platform-reqs >"$tmp/resolve.log" 2>&1
}
for bad in symfony/lock:6.0.0 symfony/lock:7.0.0 symfony/cache:6.3.0 symfony/cache:7.0.0 laravel/framework:9.52.0 laravel/framework:11.0.0 psr/simple-cache:4.0.0; do
  ! resolves "${bad%%:*}" "${bad#*:}" || { echo "test-package: composer installs the bridge beside ${bad/:/ } (a version it was not tested on)"; exit 1; }
done
for good in symfony/lock:5.4.53 symfony/lock:6.4.30 symfony/cache:5.4.53 symfony/cache:6.4.30 psr/simple-cache:1.0.1 psr/simple-cache:2.0.0 psr/simple-cache:3.0.0 laravel/framework:8.83.26 laravel/framework:10.48.29; do
  resolves "${good%%:*}" "${good#*:}" || { cat "$tmp/resolve.log"; echo "test-package: composer refuses the bridge beside ${good/:/ }"; exit 1; }
done
echo "test-package: composer accepts the bridge beside Symfony 5.4/6.4, Laravel 8/10 and psr/simple-cache 1-3, refuses the majors not tested"

# The IDE stubs (php/stubs/ephpm.stub.php) are what build/gen-ide-stub.php
# makes of ext/ephpm.stub.php, and declare, loaded by a PHP without the
# extension, exactly the extension's API (names, types, defaults, constants).
ext="-d extension=$root/build/ephpm.so"
php -n $ext "$root/build/gen-ide-stub.php" >"$tmp/ide.stub.php"
cmp -s "$tmp/ide.stub.php" "$root/php/stubs/ephpm.stub.php" ||
  { diff "$root/php/stubs/ephpm.stub.php" "$tmp/ide.stub.php"; echo "test-package: php/stubs/ephpm.stub.php is stale: php -n $ext build/gen-ide-stub.php > php/stubs/ephpm.stub.php"; exit 1; }
php -n $ext "$root/build/ide-stub-api.php" >"$tmp/api.ext"
php -n "$root/build/ide-stub-api.php" "$root/php/stubs/ephpm.stub.php" >"$tmp/api.stub"
diff "$tmp/api.ext" "$tmp/api.stub" >"$tmp/api.diff" ||
  { cat "$tmp/api.diff"; echo "test-package: the IDE stub declares another API than the extension (< extension, > stub)"; exit 1; }
echo "test-package: php/stubs/ephpm.stub.php is current and declares the extension's API ($(grep -c '' "$tmp/api.ext") lines of reflection alike)"
