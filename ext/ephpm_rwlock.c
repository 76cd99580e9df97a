/* Ephpm\ReadWriteLock: many readers or one writer on a name, each holder a
 * lease of its own (ephpm_lease.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "ephpm_args.h"
#include "ephpm_lease.h"
#include "ephpm_rwlock.h"

zend_class_entry *ephpm_rwlock_ce;

static void rwlock_acquire(INTERNAL_FUNCTION_PARAMETERS, int32_t mode)
{
	zend_string *name;
	double ttl = 30, wait = 0;
	int64_t ttl_ns, wait_ns;
	ZEND_PARSE_PARAMETERS_START(1, 3)
		Z_PARAM_STR(name)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(ttl)
		Z_PARAM_DOUBLE(wait)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(name, 1) || !ephpm_ttl_arg(ttl, 2, false, &ttl_ns) || !ephpm_wait_arg(wait, 3, &wait_ns)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_lease_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	zval kind;
	ZVAL_STRING(&kind, mode == EPHPM_KV_LEASE_SHARED ? "read" : "write");
	switch (ephpm_lease_take(ops, ephpm_rwlock_ce, name, mode, 0, ttl_ns, wait_ns, &kind, return_value)) {
	case EPHPM_ACQUIRE_OK:
		return;
	case EPHPM_ACQUIRE_TIMEOUT:
		RETURN_NULL();
	case EPHPM_ACQUIRE_ERROR:
		RETURN_THROWS();
	}
}

ZEND_METHOD(Ephpm_ReadWriteLock, __construct)
{
	/* private: holders come from read() and write() */
}

ZEND_METHOD(Ephpm_ReadWriteLock, read)
{
	rwlock_acquire(INTERNAL_FUNCTION_PARAM_PASSTHRU, EPHPM_KV_LEASE_SHARED);
}

ZEND_METHOD(Ephpm_ReadWriteLock, write)
{
	rwlock_acquire(INTERNAL_FUNCTION_PARAM_PASSTHRU, EPHPM_KV_LEASE_EXCLUSIVE);
}

ZEND_METHOD(Ephpm_ReadWriteLock, refresh)
{
	ephpm_lease_refresh(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_ReadWriteLock, release)
{
	ephpm_lease_release(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_ReadWriteLock, isAcquired)
{
	ephpm_lease_is_acquired(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_ReadWriteLock, remaining)
{
	ephpm_lease_remaining(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

void ephpm_rwlock_init_class(zend_class_entry *ce)
{
	ephpm_rwlock_ce = ce;
	ephpm_lease_init_class(ce);
}
