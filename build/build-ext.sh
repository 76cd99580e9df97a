#!/usr/bin/env bash
# Builds ephpm.so with phpize in build/out/phpize, a copy of the sources:
# phpize writes a Makefile and a build/ folder of its own, which must not
# land on the project's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/build/out/phpize"

mkdir -p "$work/ext" "$work/go/capi"
cp -p "$root/config.m4" "$work/"
cp "$root"/ext/*.c "$root"/ext/*.h "$work/ext/"
cp "$root/go/capi/ephpm_kv_ops.h" "$work/go/capi/"

cd "$work"
if [ ! -f Makefile ] || [ config.m4 -nt configure ]; then
  phpize >/dev/null 2>&1
  # The Go library is built by the project Makefile (build/libephpm_kv.so).
  ./configure --enable-ephpm --without-ephpm-go ${EPHPM_CONFIGURE_FLAGS:-} >/dev/null
fi
make -s >/dev/null
cp modules/ephpm.so "$root/build/ephpm.so"
