dnl ephpm: PHP functions over the ephpm-kv Go store (loaded with dlopen on first use).
PHP_ARG_ENABLE([ephpm],
  [whether to enable ephpm-kv support],
  [AS_HELP_STRING([--enable-ephpm], [Enable ephpm-kv support])],
  [no])

if test "$PHP_EPHPM" != "no"; then
  AC_DEFINE(HAVE_EPHPM, 1, [ Have ephpm-kv support ])
  PHP_ADD_LIBRARY(dl, 1, EPHPM_SHARED_LIBADD)
  PHP_ADD_LIBRARY(pthread, 1, EPHPM_SHARED_LIBADD)
  PHP_SUBST(EPHPM_SHARED_LIBADD)
  PHP_NEW_EXTENSION(ephpm,
    ext/ephpm.c ext/ephpm_library.c ext/ephpm_args.c ext/ephpm_kv_functions.c \
    ext/ephpm_acquire.c ext/ephpm_get.c ext/ephpm_lock.c ext/ephpm_session.c ext/ephpm_shm.c,
    $ext_shared,, -DZEND_ENABLE_STATIC_TSRMLS_CACHE=1 -Wall -Wextra -Wno-unused-parameter)
  dnl ext_srcdir is set by PHP_NEW_EXTENSION. The ops table header lives
  dnl with the Go code that exports it.
  PHP_ADD_INCLUDE([$ext_srcdir/go/capi])
  PHP_ADD_INCLUDE([$ext_srcdir/ext])
  PHP_ADD_EXTENSION_DEP(ephpm, session)
  PHP_ADD_EXTENSION_DEP(ephpm, spl)
fi
