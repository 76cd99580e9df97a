#!/usr/bin/env bash
# Installs what the build and tests need on Debian, only when missing.
# Usage: build/deps.sh [demo] [bench] [valgrind] [server-tests] [status] [redis] [bridges] [packaging] [etcd] [trixie]
set -euo pipefail

need=(php8.2-cli php8.2-dev php-parser gcc libc6-dev) # gcc: cgo and the extension
for extra in "$@"; do
  case "$extra" in
    demo) need+=(redis-tools redis-server etcd-server etcd-client) ;; # the server demo reads the lock with redis-cli; the backends demo runs on Redis and etcd
    bench) need+=(php8.2-apcu php8.2-redis php8.2-sqlite3 redis-server redis-tools php8.2-fpm php8.2-opcache nginx-light wrk
      php8.2-memcached memcached libfcgi-bin) ;;
    valgrind) need+=(valgrind) ;;
    server-tests) need+=(php8.2-fpm libfcgi-bin php8.2-redis redis-tools) ;;
    # php/status.php's checks (php-tests/fpm): headless Chromium renders it; promtool is unpacked below
    status) need+=(chromium) ;;
    redis) need+=(redis-server redis-tools) ;; # the Redis backend's tests (Go, phpt) against Debian's Redis 7; redis-cli builds the Redis Cluster
    # the framework bridges' PHPUnit suites (php/tests/), on Debian's framework packages; composer installs the bridge
    # (Messenger's suite runs messenger:consume: Console, EventDispatcher)
    bridges) need+=(phpunit php-symfony-lock php-symfony-cache php-symfony-dependency-injection php-symfony-config php-symfony-yaml
      php-symfony-messenger php-symfony-console php-symfony-event-dispatcher
      php-laravel-framework wordpress php-psr-simple-cache composer) ;;
    # composer validate; systemd-analyze, systemd-sysusers and setpriv for the
    # unit's test; php-fpm -t for the pool snippets; lintian and man for the .debs
    packaging) need+=(composer git systemd util-linux php8.2-fpm libfcgi-bin lintian man-db) ;;
    # the etcd backend's tests: a 3-member cluster on loopback (build/etcd-cluster.sh)
    etcd) need+=(etcd-server etcd-client) ;;
    trixie) need+=(debootstrap) ;; # the PHP 8.4 lane's Debian 13 chroot (build/trixie.sh)
    *) echo "deps.sh: unknown extra '$extra'" >&2; exit 2 ;;
  esac
done

missing=()
for pkg in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

command -v go >/dev/null || export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || { echo "deps.sh: Go is not installed (need Go >= 1.26 on PATH)" >&2; exit 1; }
command -v phpize >/dev/null || { echo "deps.sh: phpize missing after install" >&2; exit 1; }

# promtool for the status page's Prometheus output (php-tests/fpm): Debian
# ships it only inside the prometheus package, whose install would start a
# Prometheus server; so its promtool (a Go binary that needs only libc) is unpacked into
# build/out and run by path, never installed.
for extra in "$@"; do
  [ "$extra" = status ] || continue
  promtool=$(cd "$(dirname "$0")" && pwd)/out/promtool/promtool
  [ -e "$promtool" ] || command -v promtool >/dev/null && continue
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq prometheus 2>/dev/null || { apt-get update -qq && apt-get download -qq prometheus; }) &&
    dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x" &&
    mkdir -p "$(dirname "$promtool")" &&
    cp "$tmp/x/usr/bin/promtool" "$promtool" ||
    echo "deps.sh: could not unpack promtool from prometheus: the status page's checks run without it" >&2
  rm -rf "$tmp"
done

# Yac for the lock bench: php8.2-yac conflicts with php8.2-apcu as a Debian
# package, so its yac.so (which needs only libc) is unpacked into build/out
# and loaded by path, never installed.
for extra in "$@"; do
  [ "$extra" = bench ] || continue
  yac=$(cd "$(dirname "$0")" && pwd)/out/yac/yac.so
  [ -e "$yac" ] && continue
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq php8.2-yac 2>/dev/null || { apt-get update -qq && apt-get download -qq php8.2-yac; }) &&
    dpkg-deb -x "$tmp"/php8.2-yac_*.deb "$tmp/x" &&
    mkdir -p "$(dirname "$yac")" &&
    cp "$(find "$tmp/x" -name yac.so)" "$yac" ||
    echo "deps.sh: could not unpack php8.2-yac: the lock bench runs without its Yac row" >&2
  rm -rf "$tmp"
done
