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
#include "ephpm_lock.h"

zend_class_entry *ephpm_lock_ce;
zend_class_entry *ephpm_lock_timeout_exception_ce;
static zend_object_handlers lock_handlers;

/* Property slots, in the stub's declaration order. */
#define PROP_NAME 0
#define PROP_TOKEN 1
#define PROP_FENCE 2

typedef struct ephpm_lock {
	ephpm_holder h;
	int64_t watch; /* the watchdog's handle (autoRenew), 0 for none */
	zend_object std;
} ephpm_lock;

static zend_always_inline ephpm_lock *lock_from(zend_object *obj)
{
	return (ephpm_lock *)((char *)obj - XtOffsetOf(ephpm_lock, std));
}

static zend_always_inline ephpm_lock *lock_of(ephpm_holder *h)
{
	return (ephpm_lock *)((char *)h - XtOffsetOf(ephpm_lock, h));
}

#define LOCK_NAME(l) ((l)->h.name)
#define LOCK_TOKEN(l) ((l)->h.token)

/* Stops the watchdog. Not in a forked child (no ops there): the watchdog
 * runs in the parent, whose lock it is, and no Go thread exists here. */
static void stop_watch(ephpm_holder *h)
{
	ephpm_lock *lock = lock_of(h);
	const ephpm_kv_ops *ops = ephpm_library_ops;
	if (lock->watch && ops) {
		ephpm_kv_error err;
		ops->unwatch(lock->watch, &err);
	}
	lock->watch = 0;
}

/* Compare-and-delete. 1 released, 0 no longer ours, -1 store error. */
static int give_back(ephpm_holder *h, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	stop_watch(h); /* no renewal once the holder lets go, even if the delete fails */
	return ops->del_if_eq(STR_ARGS(h->name), STR_ARGS(h->token), err);
}

static const ephpm_holder_kind lock_kind = {give_back, stop_watch, "lock"};

static zend_object *lock_create(zend_class_entry *ce)
{
	ephpm_lock *lock = zend_object_alloc(sizeof(ephpm_lock), ce);
	zend_object_std_init(&lock->std, ce);
	object_properties_init(&lock->std, ce);
	lock->std.handlers = &lock_handlers;
	ephpm_holder_init(&lock->h, &lock_kind, &lock->std); /* released until acquire() fills it in */
	return &lock->std;
}

static int lock_release(ephpm_lock *lock, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	return ephpm_holder_release(&lock->h, ops, err);
}

/* A forgotten release() or an exception must not hold the lock until it
 * expires. After a fatal error or max_execution_time PHP skips destructors
 * but still frees objects, some before RSHUTDOWN (globals), some after it:
 * the free handler and RSHUTDOWN give back what is left. */
static void lock_dtor(zend_object *obj)
{
	zend_objects_destroy_object(obj);
	ephpm_holder_release_unused(&lock_from(obj)->h, "on destruction");
}

static void lock_free(zend_object *obj)
{
	ephpm_holder_free(&lock_from(obj)->h);
	zend_object_std_dtor(obj);
}

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
	object_init_ex(return_value, ephpm_lock_ce);
	ephpm_lock *lock = lock_from(Z_OBJ_P(return_value));
	ephpm_holder_hold(&lock->h, name, token, EPHPM_TOKEN_LEN, ttl_ns, &EPHPM_G(held_locks));
	ZVAL_STR_COPY(OBJ_PROP_NUM(&lock->std, PROP_NAME), LOCK_NAME(lock));
	ZVAL_STR_COPY(OBJ_PROP_NUM(&lock->std, PROP_TOKEN), LOCK_TOKEN(lock));
	ZVAL_LONG(OBJ_PROP_NUM(&lock->std, PROP_FENCE), fence);
	return EPHPM_ACQUIRE_OK;
}

zend_string *ephpm_lock_name(zend_object *obj)
{
	return LOCK_NAME(lock_from(obj));
}

int ephpm_lock_release(zend_object *obj, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	return lock_release(lock_from(obj), ops, err);
}

void ephpm_lock_release_unused(zend_object *obj, const char *when)
{
	ephpm_holder_release_unused(&lock_from(obj)->h, when);
}

void ephpm_lock_abandon(zend_object *obj)
{
	ephpm_holder_abandon(&lock_from(obj)->h);
}

int ephpm_lock_refresh(zend_object *obj, const ephpm_kv_ops *ops, int64_t ttl_ns, ephpm_kv_error *err)
{
	ephpm_lock *lock = lock_from(obj);
	if (lock->h.released) {
		return 0;
	}
	return ops->expire_if_eq(STR_ARGS(LOCK_NAME(lock)), STR_ARGS(LOCK_TOKEN(lock)),
		ttl_ns ? ttl_ns : lock->h.ttl_ns, err);
}

int ephpm_lock_held(zend_object *obj, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	ephpm_lock *lock = lock_from(obj);
	int64_t ttl_ns;
	if (lock->h.released) {
		return 0;
	}
	if (ops->ttl_if_eq(STR_ARGS(LOCK_NAME(lock)), STR_ARGS(LOCK_TOKEN(lock)), &ttl_ns, err) < 0) {
		return -1;
	}
	return ttl_ns != EPHPM_KV_TTL_MISSING;
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
	ephpm_lock *lock = lock_from(Z_OBJ_P(return_value));
	ephpm_kv_error err;
	if (ops->watch(STR_ARGS(name), STR_ARGS(LOCK_TOKEN(lock)), ttl_ns, max_hold_ns, &lock->watch, &err) < 0) {
		/* not held without the renewal the caller asked for */
		ephpm_throw_store_error(&err);
		zval_ptr_dtor(return_value);
		ZVAL_UNDEF(return_value);
		return EPHPM_ACQUIRE_ERROR;
	}
	return EPHPM_ACQUIRE_OK;
}

ZEND_METHOD(Ephpm_Lock, __construct)
{
	/* private: locks come from acquire() and run() */
}

ZEND_METHOD(Ephpm_Lock, acquire)
{
	zend_string *name;
	double ttl = 30, wait = 0, max_hold = 300;
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
	switch (lock_acquire(name, ttl, wait, 3, false, 300, &lock_zv)) {
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
	if (ops && lock_release(lock_from(Z_OBJ(lock_zv)), ops, &err) < 0) {
		ephpm_throw_store_error(&err);
	}
	zval_ptr_dtor(&lock_zv);
}

ZEND_METHOD(Ephpm_Lock, refresh)
{
	double ttl;
	bool ttl_is_null = true;
	ZEND_PARSE_PARAMETERS_START(0, 1)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_is_null)
	ZEND_PARSE_PARAMETERS_END();
	ephpm_lock *lock = lock_from(Z_OBJ_P(ZEND_THIS));
	int64_t ttl_ns = lock->h.ttl_ns;
	if (!ttl_is_null && !ephpm_ttl_arg(ttl, 1, false, &ttl_ns)) {
		RETURN_THROWS();
	}
	if (lock->h.released) {
		RETURN_FALSE;
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ops->expire_if_eq(STR_ARGS(LOCK_NAME(lock)), STR_ARGS(LOCK_TOKEN(lock)), ttl_ns, &err);
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_BOOL(rc);
}

ZEND_METHOD(Ephpm_Lock, release)
{
	ZEND_PARSE_PARAMETERS_NONE();
	ephpm_holder_release_method(&lock_from(Z_OBJ_P(ZEND_THIS))->h, ephpm_ops, return_value);
}

/* ns left while the lock is ours, EPHPM_KV_TTL_MISSING otherwise; false
 * with an exception pending on a store error. */
static bool lock_ttl(ephpm_lock *lock, int64_t *ttl_ns)
{
	*ttl_ns = EPHPM_KV_TTL_MISSING;
	if (lock->h.released || ephpm_store_lost()) {
		return true; /* a lock on a segment others no longer see is not held */
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		return false;
	}
	ephpm_kv_error werr;
	if (lock->watch && ops->watch_state(lock->watch, &werr) == EPHPM_KV_WATCH_LOST) {
		return true; /* the watchdog's owner check failed: no round trip */
	}
	ephpm_kv_error err;
	if (ops->ttl_if_eq(STR_ARGS(LOCK_NAME(lock)), STR_ARGS(LOCK_TOKEN(lock)), ttl_ns, &err) < 0) {
		ephpm_throw_store_error(&err);
		return false;
	}
	return true;
}

ZEND_METHOD(Ephpm_Lock, isAcquired)
{
	int64_t ttl_ns;
	ZEND_PARSE_PARAMETERS_NONE();
	if (!lock_ttl(lock_from(Z_OBJ_P(ZEND_THIS)), &ttl_ns)) {
		RETURN_THROWS();
	}
	RETURN_BOOL(ttl_ns != EPHPM_KV_TTL_MISSING);
}

ZEND_METHOD(Ephpm_Lock, remaining)
{
	int64_t ttl_ns;
	ZEND_PARSE_PARAMETERS_NONE();
	if (!lock_ttl(lock_from(Z_OBJ_P(ZEND_THIS)), &ttl_ns)) {
		RETURN_THROWS();
	}
	RETURN_DOUBLE(ttl_ns > 0 ? (double)ttl_ns / EPHPM_NS_PER_SEC : 0.0);
}

void ephpm_lock_init_class(zend_class_entry *ce)
{
	ephpm_lock_ce = ce;
	ce->create_object = lock_create;
	memcpy(&lock_handlers, &std_object_handlers, sizeof(zend_object_handlers));
	lock_handlers.offset = XtOffsetOf(ephpm_lock, std);
	lock_handlers.dtor_obj = lock_dtor;
	lock_handlers.free_obj = lock_free;
	lock_handlers.clone_obj = NULL;
}
