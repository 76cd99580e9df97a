#!/usr/bin/env bash
# Installs the bridge package (php/, ephpm/ephpm-kv-bridge) with Composer into
# a new application at APP_DIR, offline: php/ as a path repository (copied,
# as a release would be), beside each framework package this Debian has
# installed, at its Debian version, so that Composer checks the bridge's
# constraints against the frameworks the suites run on. Those are empty
# stand-ins (the suites load the frameworks from /usr/share/php): a root
# "provide" would not do, since Composer checks no conflict against it.
# Composer runs with the extension loaded: ext-ephpm is a real requirement.
# Prints APP_DIR/vendor.
# Usage: build/composer-bridge.sh APP_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
app=${1:?usage: build/composer-bridge.sh APP_DIR}
command -v composer >/dev/null || { echo "composer-bridge.sh: composer is not installed (build/deps.sh bridges)" >&2; exit 1; }
mkdir -p "$app"

# Debian package -> Composer name; the version is Debian's upstream part
# (8.83.26+dfsg-2 -> 8.83.26, 6.4.0~rc1-1 -> 6.4.0).
packages=() requires=()
for pair in php-symfony-lock:symfony/lock php-symfony-cache:symfony/cache php-symfony-messenger:symfony/messenger \
  php-laravel-framework:laravel/framework php-psr-simple-cache:psr/simple-cache; do
  v=$(dpkg-query -W -f='${Status} ${Version}' "${pair%%:*}" 2>/dev/null | awk '/install ok installed/ {print $4}')
  [ -n "$v" ] || continue
  v=${v#*:}
  v=${v%%[+~-]*}
  stub=$app/stand-ins/${pair#*:}
  mkdir -p "$stub" && echo "stands for Debian's ${pair%%:*} $v, in /usr/share/php" >"$stub/README"
  packages+=("{\"type\": \"package\", \"package\": {\"name\": \"${pair#*:}\", \"version\": \"$v\", \"dist\": {\"type\": \"path\", \"url\": \"$stub\"}}}")
  requires+=("\"${pair#*:}\": \"$v\"")
done
join() { local IFS=,; echo "$*"; }
cat >"$app/composer.json" <<EOF
{"name": "ephpm/bridge-test-app", "type": "project",
 "repositories": [{"packagist.org": false}, {"type": "path", "url": "$root/php", "options": {"symlink": false}}${packages:+, $(join "${packages[@]}")}],
 "require": {"ephpm/ephpm-kv-bridge": "*@dev"${requires:+, $(join "${requires[@]}")}},
 "config": {"allow-plugins": false}}
EOF
COMPOSER_HOME="$app/.composer-home" COMPOSER_NO_INTERACTION=1 \
  php -d "extension=$root/build/ephpm.so" "$(command -v composer)" install -d "$app" --no-progress --quiet >"$app/install.log" 2>&1 ||
  { cat "$app/install.log" >&2; echo "composer-bridge.sh: composer install of the bridge failed (above)" >&2; exit 1; }
[ -f "$app/vendor/ephpm/ephpm-kv-bridge/src/Symfony/EphpmStore.php" ] ||
  { echo "composer-bridge.sh: the bridge is not in $app/vendor" >&2; exit 1; }
echo "$app/vendor"
