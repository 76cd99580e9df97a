#!/usr/bin/env bash
# The PHP 8.4 lane: a Debian 13 (trixie) chroot under build/out/trixie, with
# PHP 8.4 and trixie's framework packages, where the extension is built and
# the suites run with the project at the same absolute path as on the host.
# Usage: build/trixie.sh ensure [quiet]  create the chroot unless it is complete and current
#        build/trixie.sh build           build/out/php84/ephpm.so (phpize, configure, make in the chroot)
#        build/trixie.sh run CMD [ARG...] CMD in the chroot, as root, in the project directory
# Inside `run`, build/ephpm.so is the PHP 8.4 build (when it was built): the
# phpt suite, build/phpunit-modes.sh and the tests' child processes all load
# build/ephpm.so, so they run unchanged. E.g.
#   build/trixie.sh run build/phpt.sh shm phpt84-shm.log
#   build/trixie.sh run build/phpunit-modes.sh php/tests/bootstrap.php php/tests/Symfony shm-named
# Needs root, and `make all` first (build/libephpm_kv.so and build/ephpm-kv
# come from the host: the chroot has no Go).
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/build/out/trixie
stamp=$dir/.ephpm-trixie-stamp
lock=$root/build/out/trixie.lock
suite=trixie
# The host's own Debian mirror (apt's sources), else debootstrap's default.
# apt_sources: the host's apt sources without comments (which may name
# mirrors that are not used, such as a snapshot archive).
apt_sources() { cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null | sed 's/#.*//'; }
mirror=$(apt_sources | grep -oE '^(URIs:|deb)[[:space:]]+https?://[^[:space:]]+/debian/?([[:space:]]|$)' |
  awk '{print $2; exit}' || true)
mirror=${mirror%/}
setup=3 # raised when ensure's steps change, so an older chroot is rebuilt

# What the lanes need, by trixie's names (build/deps.sh has bookworm's):
# PHP 8.4 with phpize and php-fpm; gcc and make for phpize builds (and
# library_older_table.phpt's cc); cgi-fcgi for the php-fpm proof; composer and the bridges' PHPUnit suites on Debian's
# framework packages (phpunit, Symfony Lock/Cache, Messenger with the
# Console and EventDispatcher that messenger:consume runs on, the container
# that loads php/config/symfony.yaml, Laravel, PSR-16,
# WordPress); redis-server and openssl for the phpt tests that start a
# Redis (and the redis mode). The ephpm-kv server is the host's static build.
packages=(php8.4-cli php8.4-dev php8.4-fpm libfcgi-bin gcc make libc6-dev
  phpunit composer php-symfony-lock php-symfony-cache php-symfony-dependency-injection php-symfony-config php-symfony-yaml
  php-symfony-messenger php-symfony-console php-symfony-event-dispatcher
  php-laravel-framework php-psr-simple-cache wordpress
  redis-server openssl)

[ "$(id -u)" -eq 0 ] || { echo "trixie.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 1; }
mkdir -p "$root/build/out"

# The stamp: what the chroot was made for. Written last, so a chroot without
# it (an interrupted ensure) is rebuilt from scratch.
stamp_text() { printf 'setup %s\nsuite %s\nmirror %s\npackages %s\n' "$setup" "$suite" "$mirror" "${packages[*]}"; }

# Nothing may be mounted under the chroot before rm -rf: the project itself
# is bind-mounted inside it. Mounts are only ever made in a private mount
# namespace (inner below), so this guards against anything else.
no_mounts_under() {
  # grep reads all of findmnt's output: with -q, findmnt could die of
  # SIGPIPE and pipefail would make a match look like no match
  if findmnt -rn -o TARGET | grep "^$1\(/\|$\)" >/dev/null; then
    echo "trixie.sh: something is mounted under $1; refusing to remove it:" >&2
    findmnt -rn -o TARGET | grep "^$1\(/\|$\)" >&2
    exit 1
  fi
}

# CMD in the chroot. Each call runs in a mount namespace of its own
# (unshare), so its mounts are never seen by the host or by a concurrent
# call, and vanish with it even if it is killed; inner also unmounts them on
# exit. fd 9 (the lock) is closed: a daemon left behind must not hold it.
in_chroot() { unshare --mount --propagation private -- "$self" __inner "$@" 9>&-; }

inner() {
  local mounted=() status=0
  # unmount in reverse order, also when CMD or a mount failed
  cleanup() {
    local i
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
      umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}"
    done
  }
  trap cleanup EXIT
  trap 'exit 130' INT HUP
  trap 'exit 143' TERM
  mount -t proc proc "$dir/proc"; mounted+=("$dir/proc")
  mount --bind /dev "$dir/dev"; mounted+=("$dir/dev")
  mount --bind /dev/shm "$dir/dev/shm"; mounted+=("$dir/dev/shm") # the shm engine's named segments
  mount --bind /dev/pts "$dir/dev/pts"; mounted+=("$dir/dev/pts")
  mkdir -p "$dir$root"
  mount --bind "$root" "$dir$root"; mounted+=("$dir$root")
  # The 8.4 build over build/ephpm.so, in this namespace only: the host's
  # 8.2 build stays as it is for the host's own runs.
  if [ -f "$root/build/out/php84/ephpm.so" ] && [ -f "$root/build/ephpm.so" ]; then
    mount --bind "$root/build/out/php84/ephpm.so" "$dir$root/build/ephpm.so"; mounted+=("$dir$root/build/ephpm.so")
  fi
  # A clean environment: the host's PATH, TMPDIR and the like name host
  # paths. Kept: the suites' own settings (PHPT_TESTS, PHPT_OWN_TREE, EPHPM_*).
  local envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
    DEBIAN_FRONTEND=noninteractive TERM="${TERM:-dumb}")
  local v
  for v in $(compgen -e); do
    case "$v" in PHPT_TESTS | PHPT_OWN_TREE | EPHPM_* | CI) envs+=("$v=${!v}") ;; esac
  done
  chroot "$dir" /usr/bin/env -i "${envs[@]}" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$root" "$@" || status=$?
  exit $status
}

# The chroot is complete and made for these packages: its stamp, and the
# PHP it was made for (an interrupted rm -rf could leave the stamp alone).
current() { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(stamp_text)" ] && [ -x "$dir/usr/bin/php8.4" ]; }

ensure() { # [quiet]: say nothing when the chroot is reused
  # Reuse: under a shared lock, held until this script ends, so that no
  # ensure rebuilds the chroot under a running command.
  exec 9>"$lock"
  # another ensure (make test's background one) may be making the chroot:
  # wait for it, but not for ever
  flock -w 1200 -s 9 || { echo "trixie.sh: the chroot is still being made after 20 min (build/out/trixie-ensure.log):" >&2
    tail -5 "$root/build/out/trixie-ensure.log" >&2 2>/dev/null; exit 1; }
  if current; then
    [ -n "${1:-}" ] || echo "trixie: reusing $dir"
    return
  fi
  # Build: exclusive, and checked again (another ensure may have built it).
  flock -u 9
  flock -w 1200 9 || { echo "trixie.sh: waited 20 min for the chroot's lock" >&2; exit 1; }
  if current; then
    flock -s 9
    return
  fi
  local start=$SECONDS
  if ! command -v debootstrap >/dev/null; then
    echo "trixie: installing debootstrap"
    # other sources configured on the host may be unreachable: a partial
    # update is fine as long as Debian's own lists come in
    apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  fi
  no_mounts_under "$dir"
  rm -rf --one-file-system "$dir"
  mkdir -p "$dir"
  echo "trixie: debootstrap --variant=minbase $suite into build/out/trixie"
  # in a namespace of its own too: debootstrap mounts /proc and /sys inside
  unshare --mount --propagation private -- \
    timeout 900 debootstrap --variant=minbase "$suite" "$dir" ${mirror:+"$mirror"} >"$root/build/out/trixie-debootstrap.log" 2>&1 9>&- ||
    { tail -20 "$root/build/out/trixie-debootstrap.log"; echo "trixie.sh: debootstrap failed (log build/out/trixie-debootstrap.log)" >&2; exit 1; }
  # updates and security too: PHP's fixes come through them
  local used security
  used=$(awk '$1 == "deb" {print $2; exit}' "$dir/etc/apt/sources.list")
  # the host's security mirror where it names one (not every mirror carries it)
  security=$(apt_sources | grep -oE 'https?://[^[:space:]]+/debian-security' | head -1 || true)
  security=${security:-${used%/debian}/debian-security}
  cat >"$dir/etc/apt/sources.list" <<EOF
deb $used $suite main
deb $used $suite-updates main
deb $security $suite-security main
EOF
  # minbase writes no /etc/hosts: Go's resolver would then ask DNS for
  # localhost (redis_tls.phpt dials rediss://localhost)
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$dir/etc/hosts"
  # no daemon starts from a postinst (php-fpm, redis-server, apache2): it
  # would outlive the install and hold the chroot's mounts
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
  chmod 755 "$dir/usr/sbin/policy-rc.d"
  echo "trixie: debootstrap done in $((SECONDS - start)) s; apt-get install ${packages[*]}"
  in_chroot timeout 1500 sh -c 'apt-get update -qq -o APT::Update::Error-Mode=any && apt-get install -y -qq --no-install-recommends "$@" && apt-get clean' sh "${packages[@]}" \
    >"$root/build/out/trixie-apt.log" 2>&1 ||
    { tail -30 "$root/build/out/trixie-apt.log"; echo "trixie.sh: apt-get install failed (log build/out/trixie-apt.log)" >&2; exit 1; }
  stamp_text >"$stamp"
  flock -s 9
  echo "trixie: $dir ready in $((SECONDS - start)) s ($(in_chroot php -r 'echo "PHP ", PHP_VERSION;'))"
}

build() {
  local lib=$root/build/libephpm_kv.so work=$root/build/out/php84-ext out=$root/build/out/php84
  [ -f "$lib" ] || { echo "trixie.sh: $lib is missing: run make all on the host first" >&2; exit 1; }
  ensure
  # What a release archive holds (the tracked files, and new ones not
  # ignored), as build/test-package.sh copies it: phpize writes a Makefile
  # and a build/ folder of its own, which must not land on the project's.
  rm -rf "$work" && mkdir -p "$work"
  (cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$work")
  # As PIE does (phpize, configure, make), with --without-ephpm-go: the Go
  # library is the host's build/libephpm_kv.so, not built here. -j1: the
  # machine may be running other work.
  in_chroot sh -c 'cd "$1" && phpize && ./configure --enable-ephpm --without-ephpm-go && make -j1' sh "$work" \
    >"$work.log" 2>&1 || { tail -30 "$work.log"; echo "trixie.sh: the PHP 8.4 build failed (log build/out/php84-ext.log)" >&2; exit 1; }
  # Into place by rename, never by writing over: a process that has the old
  # file mapped keeps it intact. The library beside ephpm.so, where the
  # extension looks for it with no ephpm.library setting.
  mkdir -p "$out"
  cp "$work/modules/ephpm.so" "$out/.ephpm.so.new"
  mv "$out/.ephpm.so.new" "$out/ephpm.so"
  cp "$lib" "$out/.libephpm_kv.so.new"
  mv "$out/.libephpm_kv.so.new" "$out/libephpm_kv.so"
  # loads on 8.4 and answers, through the library beside it
  in_chroot php -n -d "extension=$out/ephpm.so" -r '
    $t = bin2hex(random_bytes(8));
    $ok = ephpm_kv_setnx("trixie:lock", $t, 30) && ephpm_kv_del_if_eq("trixie:lock", $t);
    echo "trixie: build/out/php84/ephpm.so on PHP ", PHP_VERSION, ": ", $ok ? "round trip ok" : "round trip FAILED", "\n";
    exit($ok ? 0 : 1);'
}

case "${1:-}" in
  __inner) shift; inner "$@" ;; # in_chroot's second half, in the new namespace
  ensure) ensure "${2:-}" ;; # ensure quiet: no line when the chroot is reused
  build) build ;;
  run)
    shift
    (($#)) || { echo "usage: build/trixie.sh run CMD [ARG...]" >&2; exit 2; }
    ensure quiet >&2
    in_chroot "$@" ;;
  *) echo "usage: build/trixie.sh ensure | build | run CMD [ARG...]" >&2; exit 2 ;;
esac
