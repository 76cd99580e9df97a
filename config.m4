dnl ephpm: PHP functions over the ephpm-kv Go store (loaded with dlopen on first use).
PHP_ARG_ENABLE([ephpm],
  [whether to enable ephpm-kv support],
  [AS_HELP_STRING([--enable-ephpm], [Enable ephpm-kv support])],
  [no])

dnl The Go library the extension dlopens. PIE (and phpize builds in general)
dnl run only phpize, configure, make and make install, so the library is built
dnl by make (Makefile.frag) and installed beside ephpm.so, where the extension
dnl looks for it by default. The project's own Makefile builds it separately
dnl and passes --without-ephpm-go.
PHP_ARG_WITH([ephpm-go],
  [Go toolchain for libephpm_kv.so],
  [AS_HELP_STRING([[--with-ephpm-go[=GO]]],
    [Go (>= 1.26) to build libephpm_kv.so with, installed beside ephpm.so (default: go on PATH, then /usr/local/go/bin/go; no: do not build it)])],
  [yes], [no])

if test "$PHP_EPHPM" != "no"; then
  AC_DEFINE(HAVE_EPHPM, 1, [ Have ephpm-kv support ])
  PHP_ADD_LIBRARY(dl, 1, EPHPM_SHARED_LIBADD)
  PHP_ADD_LIBRARY(pthread, 1, EPHPM_SHARED_LIBADD)
  PHP_SUBST(EPHPM_SHARED_LIBADD)
  PHP_NEW_EXTENSION(ephpm,
    ext/ephpm.c ext/ephpm_library.c ext/ephpm_args.c ext/ephpm_kv_functions.c \
    ext/ephpm_acquire.c ext/ephpm_get.c ext/ephpm_lock.c ext/ephpm_lockset.c ext/ephpm_session.c ext/ephpm_shm.c \
    ext/ephpm_holder.c ext/ephpm_lease.c ext/ephpm_rwlock.c ext/ephpm_semaphore.c ext/ephpm_ratelimit.c ext/ephpm_remember.c ext/ephpm_escape.c \
    ext/ephpm_keyhold.c ext/ephpm_leader.c ext/ephpm_barrier.c ext/ephpm_queue.c ext/ephpm_token.c,
    $ext_shared,, -DZEND_ENABLE_STATIC_TSRMLS_CACHE=1 -Wall -Wextra -Wno-unused-parameter)
  dnl ext_srcdir is set by PHP_NEW_EXTENSION. The ops table header lives
  dnl with the Go code that exports it.
  PHP_ADD_INCLUDE([$ext_srcdir/go/capi])
  PHP_ADD_INCLUDE([$ext_srcdir/ext])
  PHP_ADD_EXTENSION_DEP(ephpm, session)
  PHP_ADD_EXTENSION_DEP(ephpm, spl)

  if test "$PHP_EPHPM_GO" != "no"; then
    if test "$PHP_EPHPM_GO" = "yes"; then
      AC_PATH_PROG([EPHPM_GO], [go], [], [$PATH:/usr/local/go/bin])
    else
      EPHPM_GO=$PHP_EPHPM_GO
    fi
    if test -z "$EPHPM_GO" || test ! -x "$EPHPM_GO"; then
      AC_MSG_ERROR([ephpm needs Go >= 1.26 to build libephpm_kv.so: install it (https://go.dev/dl/), or give its path with --with-ephpm-go=/path/to/go])
    fi
    AC_MSG_CHECKING([whether $EPHPM_GO is Go >= 1.26])
    ephpm_go_version=`"$EPHPM_GO" env GOVERSION 2>/dev/null | sed -n 's/^go\([[0-9]]*\)\.\([[0-9]]*\).*/\1 \2/p'`
    set -- $ephpm_go_version
    if test -n "$1" && { test "$1" -gt 1 || { test "$1" -eq 1 && test "$2" -ge 26; }; }; then
      AC_MSG_RESULT([yes])
    else
      AC_MSG_RESULT([no])
      AC_MSG_ERROR([ephpm needs Go >= 1.26, $EPHPM_GO is `"$EPHPM_GO" env GOVERSION 2>/dev/null`])
    fi
    PHP_SUBST([EPHPM_GO])
    PHP_ADD_MAKEFILE_FRAGMENT([$ext_srcdir/Makefile.frag])
  fi
fi
