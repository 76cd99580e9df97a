/* Ephpm\Semaphore: at most N holders of a name, each a leased permit
 * (ephpm_lease.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "ephpm_args.h"
#include "ephpm_lease.h"
#include "ephpm_library.h"
#include "ephpm_semaphore.h"

zend_class_entry *ephpm_semaphore_ce;

ZEND_METHOD(Ephpm_Semaphore, __construct)
{
	/* private: permits come from acquire() */
}

ZEND_METHOD(Ephpm_Semaphore, acquire)
{
	zend_string *name;
	zend_long permits;
	double ttl = 30, wait = 0;
	int64_t ttl_ns, wait_ns;
	ZEND_PARSE_PARAMETERS_START(2, 4)
		Z_PARAM_STR(name)
		Z_PARAM_LONG(permits)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(ttl)
		Z_PARAM_DOUBLE(wait)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(name, 1)) {
		RETURN_THROWS();
	}
	if (permits < 1 || permits > EPHPM_KV_MAX_LEASE_HOLDERS) {
		zend_argument_value_error(2, "must be between 1 and %d", EPHPM_KV_MAX_LEASE_HOLDERS);
		RETURN_THROWS();
	}
	if (!ephpm_ttl_arg(ttl, 3, false, &ttl_ns) || !ephpm_wait_arg(wait, 4, &wait_ns)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_lease_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	zval kind;
	ZVAL_LONG(&kind, permits);
	switch (ephpm_lease_take(ops, ephpm_semaphore_ce, name, EPHPM_KV_LEASE_PERMIT, permits, ttl_ns, wait_ns, &kind,
		return_value)) {
	case EPHPM_ACQUIRE_OK:
		return;
	case EPHPM_ACQUIRE_TIMEOUT:
		RETURN_NULL();
	case EPHPM_ACQUIRE_ERROR:
		RETURN_THROWS();
	}
}

ZEND_METHOD(Ephpm_Semaphore, holders)
{
	zend_string *name;
	ZEND_PARSE_PARAMETERS_START(1, 1)
		Z_PARAM_STR(name)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(name, 1)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_lease_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	int64_t count;
	ephpm_kv_error err;
	if (ops->lease_count(STR_ARGS(name), &count, &err) < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_LONG(count);
}

ZEND_METHOD(Ephpm_Semaphore, refresh)
{
	ephpm_lease_refresh(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Semaphore, release)
{
	ephpm_lease_release(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Semaphore, isAcquired)
{
	ephpm_lease_is_acquired(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Semaphore, remaining)
{
	ephpm_lease_remaining(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

void ephpm_semaphore_init_class(zend_class_entry *ce)
{
	ephpm_semaphore_ce = ce;
	ephpm_lease_init_class(ce);
}
