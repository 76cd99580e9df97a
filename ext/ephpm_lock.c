/* Ephpm\Lock: token locks with owner-only renewal and fencing tokens. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_exceptions.h"
#include "zend_interfaces.h"

#include "php_ephpm.h"
#include "ephpm_acquire.h"
#include "ephpm_args.h"
#include "ephpm_escape.h"
#include "ephpm_library.h"
#include "ephpm_holder.h"
#include "ephpm_keyhold.h"
#include "ephpm_lock.h"

zend_class_entry *ephpm_lock_ce;
zend_class_entry *ephpm_lock_timeout_exception_ce;

/* Property slots, in the stub's declaration order. */
#define PROP_NAME 0
#define PROP_TOKEN 1
#define PROP_FENCE 2

/* The object is a key hold (ephpm_keyhold.c): the lock's key, its token. */
static const ephpm_holder_kind lock_kind = EPHPM_KEYHOLD_KIND("lock");

void ephpm_lock_release_held(void)
{
	ephpm_holder_release_all(&EPHPM_G(held_locks));
	if (EPHPM_G(end_unreleased) > 1) {
		php_error_docref(NULL, E_WARNING, "%ld more locks or leases were not released at the end of the request: the store "
			"did not answer; they are freed when their TTL runs out", (long)EPHPM_G(end_unreleased) - 1);
	}
	EPHPM_G(end_unreleased) = 0;
}

ephpm_acquire_result ephpm_lock_take(const ephpm_kv_ops *ops, zend_string *name, int64_t ttl_ns, int64_t wait_ns,
	zval *return_value)
{
	int64_t fence;
	char token[EPHPM_TOKEN_LEN + 1];
	if (!ephpm_new_token(token)) {
		return EPHPM_ACQUIRE_ERROR;
	}
	ephpm_acquire_result rc = ephpm_acquire(ops, STR_ARGS(name), token, EPHPM_TOKEN_LEN, ttl_ns, wait_ns, &fence);
	if (rc != EPHPM_ACQUIRE_OK) {
		return rc;
	}
	ephpm_keyhold *lock = ephpm_keyhold_new(ephpm_lock_ce, &lock_kind, return_value, name, token, EPHPM_TOKEN_LEN,
		ttl_ns);
	ZVAL_STR_COPY(OBJ_PROP_NUM(&lock->std, PROP_NAME), lock->h.name);
	ZVAL_STR_COPY(OBJ_PROP_NUM(&lock->std, PROP_TOKEN), lock->h.token);
	ZVAL_LONG(OBJ_PROP_NUM(&lock->std, PROP_FENCE), fence);
	return EPHPM_ACQUIRE_OK;
}

zend_string *ephpm_lock_name(zend_object *obj)
{
	return ephpm_keyhold_from(obj)->h.name;
}

int ephpm_lock_release(zend_object *obj, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	return ephpm_holder_release(&ephpm_keyhold_from(obj)->h, ops, err);
}

void ephpm_lock_release_unused(zend_object *obj, const char *when)
{
	ephpm_holder_release_unused(&ephpm_keyhold_from(obj)->h, when);
}

void ephpm_lock_abandon(zend_object *obj)
{
	ephpm_holder_abandon(&ephpm_keyhold_from(obj)->h);
}

int ephpm_lock_refresh(zend_object *obj, const ephpm_kv_ops *ops, int64_t ttl_ns, ephpm_kv_error *err)
{
	return ephpm_keyhold_refresh(ephpm_keyhold_from(obj), ops, ttl_ns, err);
}

int ephpm_lock_held(zend_object *obj, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	return ephpm_keyhold_held(ephpm_keyhold_from(obj), ops, err);
}

/* Acquires name; on success return_value holds the new Lock. Returns false
 * on timeout (return_value untouched) or with an exception pending. */
static ephpm_acquire_result lock_acquire(zend_string *name, double ttl, double wait, uint32_t ttl_arg,
	bool auto_renew, double max_hold, zval *return_value)
{
	int64_t ttl_ns, wait_ns, max_hold_ns = 0;
	if (!ephpm_check_key(name, 1) || !ephpm_ttl_arg(ttl, ttl_arg, false, &ttl_ns)
		|| !ephpm_wait_arg(wait, ttl_arg + 1, &wait_ns)) {
		return EPHPM_ACQUIRE_ERROR;
	}
	/* checked with or without autoRenew: a bad value is a bug either way */
	if (!ephpm_ttl_arg(max_hold, ttl_arg + 3, false, &max_hold_ns)) {
		return EPHPM_ACQUIRE_ERROR;
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		return EPHPM_ACQUIRE_ERROR;
	}
	ephpm_acquire_result rc = ephpm_lock_take(ops, name, ttl_ns, wait_ns, return_value);
	if (rc != EPHPM_ACQUIRE_OK || !auto_renew) {
		return rc;
	}
	return ephpm_keyhold_watch(return_value, ops, max_hold_ns) ? EPHPM_ACQUIRE_OK : EPHPM_ACQUIRE_ERROR;
}

ZEND_METHOD(Ephpm_Lock, __construct)
{
	/* private: locks come from acquire() and run() */
}

ZEND_METHOD(Ephpm_Lock, acquire)
{
	zend_string *name;
	double ttl = 30, wait = 0, max_hold = EPHPM_KEYHOLD_MAX_HOLD;
	bool auto_renew = false;
	ZEND_PARSE_PARAMETERS_START(1, 5)
		Z_PARAM_STR(name)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(ttl)
		Z_PARAM_DOUBLE(wait)
		Z_PARAM_BOOL(auto_renew)
		Z_PARAM_DOUBLE(max_hold)
	ZEND_PARSE_PARAMETERS_END();
	switch (lock_acquire(name, ttl, wait, 2, auto_renew, max_hold, return_value)) {
	case EPHPM_ACQUIRE_OK:
		return;
	case EPHPM_ACQUIRE_TIMEOUT:
		RETURN_NULL();
	case EPHPM_ACQUIRE_ERROR:
		RETURN_THROWS();
	}
}

ZEND_METHOD(Ephpm_Lock, run)
{
	zend_string *name;
	zend_fcall_info fci;
	zend_fcall_info_cache fcc;
	double ttl = 30, wait = 0;
	zval lock_zv;
	ZEND_PARSE_PARAMETERS_START(2, 4)
		Z_PARAM_STR(name)
		Z_PARAM_FUNC(fci, fcc)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(ttl)
		Z_PARAM_DOUBLE(wait)
	ZEND_PARSE_PARAMETERS_END();
	switch (lock_acquire(name, ttl, wait, 3, false, EPHPM_KEYHOLD_MAX_HOLD, &lock_zv)) {
	case EPHPM_ACQUIRE_OK:
		break;
	case EPHPM_ACQUIRE_TIMEOUT: {
		zend_string *shown = ephpm_escape(STR_ARGS(name));
		zend_throw_exception_ex(ephpm_lock_timeout_exception_ce, 0,
			"Could not acquire lock \"%s\" within %.3F seconds", ZSTR_VAL(shown), wait);
		zend_string_release(shown);
		RETURN_THROWS();
	}
	case EPHPM_ACQUIRE_ERROR:
		RETURN_THROWS();
	}
	fci.retval = return_value;
	fci.params = &lock_zv;
	fci.param_count = 1;
	zend_call_function(&fci, &fcc);

	/* Always release, also when $fn threw (a store error then chains).
	 * Not in a child $fn forked: the lock is the parent's, whose run()
	 * releases it. */
	ephpm_kv_error err;
	const ephpm_kv_ops *ops = ephpm_library_forked() ? NULL : ephpm_ops();
	if (ops && ephpm_lock_release(Z_OBJ(lock_zv), ops, &err) < 0) {
		ephpm_throw_store_error(&err);
	}
	zval_ptr_dtor(&lock_zv);
}

ZEND_METHOD(Ephpm_Lock, refresh)
{
	ephpm_keyhold_refresh_method(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Lock, release)
{
	ephpm_keyhold_release_method(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Lock, isAcquired)
{
	ephpm_keyhold_held_method(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Lock, remaining)
{
	ephpm_keyhold_remaining_method(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

void ephpm_lock_init_class(zend_class_entry *ce)
{
	ephpm_lock_ce = ce;
	ephpm_keyhold_init_class(ce);
}
