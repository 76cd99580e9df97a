#!/usr/bin/env bash
# Builds Debian packages with dpkg-deb (no debhelper: the project's own make
# builds the binaries, and these are the files a package needs around them).
# Usage:
#   build/deb.sh php PHP_VERSION EPHPM_SO EXTENSION_DIR OUTDIR
#       php<V>-ephpm: ephpm.so and libephpm_kv.so in EXTENSION_DIR (php-config
#       --extension-dir of that PHP), an ini in mods-available that postinst
#       enables with Debian's PHP module helper (phpenmod) and postrm disables.
#   build/deb.sh server OUTDIR
#       ephpm-kv: the server, its systemd unit, sysusers and tmpfiles files.
# The library is build/libephpm_kv.so for every PHP version: it speaks a C ABI
# (go/capi/ephpm_kv_ops.h), not PHP's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define PHP_EPHPM_VERSION "\(.*\)"/\1/p' "$root/ext/php_ephpm.h")
arch=$(dpkg --print-architecture)
maintainer="ephpm-kv maintainers <maintainers@users.noreply.a-seed-c6d735c7.example>"

# common PKG DIR: the files every package carries (copyright, changelog),
# control's common fields and md5sums, then dpkg-deb.
common() {
  local pkg=$1 dir=$2 doc="$2/usr/share/doc/$1"
  mkdir -p "$doc" "$dir/usr/share/lintian/overrides"
  {
    echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    echo "Upstream-Name: ephpm-kv"
    echo
    echo "Files: *"
    echo "Copyright: $(sed -n 's/^Copyright (c) //p' "$root/LICENSE" | head -1)"
    echo "License: Expat"
    sed -n '/^Permission/,$p' "$root/LICENSE" | sed 's/^$/./; s/^/ /'
  } >"$doc/copyright"
  # A native package's changelog: the release, pointing at the project's own.
  printf '%s (%s) unstable; urgency=medium\n\n  * Release %s; see CHANGELOG.md upstream.\n\n -- %s  %s\n' \
    "$pkg" "$version" "$version" "$maintainer" "$(date -R -d @"${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct)}")" |
    gzip -9n >"$doc/changelog.gz"
  # the fields every package has, before the ones its kind wrote
  { printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %s\nPriority: optional\n' \
      "$pkg" "$version" "$arch" "$maintainer" "$(du -sk --exclude=DEBIAN "$dir" | cut -f1)"
    cat "$dir/DEBIAN/control"; } >"$dir/DEBIAN/control.new"
  mv "$dir/DEBIAN/control.new" "$dir/DEBIAN/control"
  find "$dir" -type d -exec chmod 0755 {} +
  (cd "$dir" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum >DEBIAN/md5sums)
  chmod 0644 "$dir/DEBIAN/md5sums"
  dpkg-deb --root-owner-group -Zxz --build "$dir" "$outdir/${pkg}_${version}_${arch}.deb" >/dev/null
  echo "$outdir/${pkg}_${version}_${arch}.deb"
}

kind=${1:?usage: build/deb.sh php|server ...}
shift
case "$kind" in
php)
  phpv=$1 so=$2 extdir=$3 outdir=$4
  api=$(basename "$extdir")
  pkg=php$phpv-ephpm
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  mkdir -p "$dir/DEBIAN" "$dir$extdir" "$dir/etc/php/$phpv/mods-available" "$outdir"
  install -m 0644 "$so" "$dir$extdir/ephpm.so"
  install -m 0644 "$root/build/libephpm_kv.so" "$dir$extdir/libephpm_kv.so"
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$dir$extdir/ephpm.so"
  printf '; priority=20\n; ephpm-kv (the ephpm.* settings: the project README'"'"'s ini table)\nextension=ephpm.so\n' \
    >"$dir/etc/php/$phpv/mods-available/ephpm.ini"
  chmod 0644 "$dir/etc/php/$phpv/mods-available/ephpm.ini"
  echo "/etc/php/$phpv/mods-available/ephpm.ini" >"$dir/DEBIAN/conffiles"
  cat >"$dir/DEBIAN/control" <<EOF
Depends: php$phpv-common, phpapi-$api, libc6
Section: php
Description: key-value and lock store for PHP $phpv (ephpm-kv)
 Locks whose release cannot free someone else's lock (compare-and-delete in
 one step), fencing tokens, read/write locks, semaphores, a rate limiter, a
 locking session handler and a cache, shared by the php-fpm workers of a host
 through a shared memory segment, or through an ephpm-kv server, Redis or etcd.
EOF
  # As Debian's own PHP extension packages (dh_php, php8.2-opcache): enable
  # for every SAPI on configure; disable in postrm on remove, once the files
  # are gone (a remove that fails before then leaves the module enabled).
  # SCRIPT WHEN ACTION: the maintainer script that runs php_invoke ACTION
  # when dpkg calls it with WHEN
  php_script() {
    cat >"$dir/DEBIAN/$1" <<EOF
#!/bin/sh
set -e
if [ "\$1" = "$2" ] && [ -e /usr/lib/php/php-maintscript-helper ]; then
    . /usr/lib/php/php-maintscript-helper
    php_invoke $3 $phpv ALL ephpm
fi
EOF
  }
  php_script postinst configure enmod
  php_script postrm remove dismod
  chmod 0755 "$dir/DEBIAN/postinst" "$dir/DEBIAN/postrm"
  mkdir -p "$dir/usr/share/lintian/overrides"
  cat >"$dir/usr/share/lintian/overrides/$pkg" <<EOF
# A Go c-shared library, dlopen()ed by path by ephpm.so: stripping it would
# take the symbols Go's runtime reads for its tracebacks.
$pkg: unstripped-binary-or-object [usr/lib/php/$api/libephpm_kv.so]
EOF
  common "$pkg" "$dir"
  ;;
server)
  outdir=$1
  pkg=ephpm-kv
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  mkdir -p "$dir/DEBIAN" "$dir/usr/bin" "$dir/lib/systemd/system" "$dir/usr/lib/sysusers.d" "$dir/usr/lib/tmpfiles.d" \
    "$dir/usr/share/man/man1" "$outdir"
  # Static (no cgo), without the symbol table: nothing here needs either.
  (cd "$root/go" && CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o "$dir/usr/bin/ephpm-kv" ./cmd/ephpm-kv)
  install -m 0644 "$root/packaging/systemd/ephpm-kv.service" "$dir/lib/systemd/system/"
  install -m 0644 "$root/packaging/sysusers.d/ephpm-kv.conf" "$dir/usr/lib/sysusers.d/"
  install -m 0644 "$root/packaging/tmpfiles.d/ephpm-kv.conf" "$dir/usr/lib/tmpfiles.d/"
  "$root/build/ephpm-kv-man.sh" "$dir/usr/bin/ephpm-kv" | gzip -9n >"$dir/usr/share/man/man1/ephpm-kv.1.gz"
  cat >"$dir/DEBIAN/control" <<EOF
Depends: systemd | systemd-standalone-sysusers | opensysusers
Section: database
Description: key-value and lock store server speaking RESP (ephpm-kv)
 The ephpm-kv server: locks with compare-and-delete release, fencing tokens,
 leases and a cache, over RESP (redis-cli and phpredis work), with snapshots
 that outlive a restart. PHP reaches it through the ephpm extension
 (ephpm.server=unix:///run/ephpm-kv/ephpm-kv.sock). Runs as its own user;
 members of the ephpm-kv group may use its socket.
EOF
  # The user before the directory that names it; then the unit as
  # dh_installsystemd's scripts handle one: enabled on first install (also
  # in a chroot or an image, for its first boot), left as the admin set it
  # on upgrades, started where systemd runs.
  cat >"$dir/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = "configure" ]; then
    systemd-sysusers ephpm-kv.conf
    mkdir -p /var/lib/ephpm-kv
    chown ephpm-kv:ephpm-kv /var/lib/ephpm-kv
    chmod 0700 /var/lib/ephpm-kv
fi
if [ "$1" = "configure" ] || [ "$1" = "abort-upgrade" ] || [ "$1" = "abort-deconfigure" ] || [ "$1" = "abort-remove" ]; then
    deb-systemd-helper unmask ephpm-kv.service >/dev/null || true
    if deb-systemd-helper --quiet was-enabled ephpm-kv.service; then
        deb-systemd-helper enable ephpm-kv.service >/dev/null || true
    else
        deb-systemd-helper update-state ephpm-kv.service >/dev/null || true
    fi
    if [ -d /run/systemd/system ]; then
        systemd-tmpfiles --create ephpm-kv.conf >/dev/null || true
        systemctl --system daemon-reload >/dev/null || true
        if [ -n "$2" ]; then action=restart; else action=start; fi
        deb-systemd-invoke "$action" ephpm-kv.service >/dev/null || true
    fi
fi
EOF
  cat >"$dir/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "$1" = "remove" ]; then
    deb-systemd-invoke stop ephpm-kv.service >/dev/null || true
fi
EOF
  # Purge takes the snapshot with it; the user stays, as Debian leaves system
  # users (files elsewhere may still belong to it).
  cat >"$dir/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ -d /run/systemd/system ] && [ "$1" = "remove" ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
if command -v deb-systemd-helper >/dev/null; then
    if [ "$1" = "remove" ]; then
        deb-systemd-helper mask ephpm-kv.service >/dev/null || true
    fi
    if [ "$1" = "purge" ]; then
        deb-systemd-helper purge ephpm-kv.service >/dev/null || true
        deb-systemd-helper unmask ephpm-kv.service >/dev/null || true
    fi
fi
if [ "$1" = "purge" ]; then
    rm -rf /var/lib/ephpm-kv
fi
EOF
  chmod 0755 "$dir/DEBIAN/postinst" "$dir/DEBIAN/prerm" "$dir/DEBIAN/postrm"
  mkdir -p "$dir/usr/share/lintian/overrides"
  cat >"$dir/usr/share/lintian/overrides/$pkg" <<EOF
# Go links statically with CGO_ENABLED=0: no libc to depend on.
$pkg: statically-linked-binary [usr/bin/ephpm-kv]
EOF
  common "$pkg" "$dir"
  ;;
*) echo "usage: build/deb.sh php|server ..." >&2; exit 2 ;;
esac
