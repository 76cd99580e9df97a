/* The holder object of Ephpm\ReadWriteLock and Ephpm\Semaphore: acquiring
 * (with a writer's intent while it waits), renewal, release by token, and
 * release of a forgotten holder, as Ephpm\Lock does for its lock. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_exceptions.h"

#include "php_ephpm.h"
#include "ephpm_acquire.h"
#include "ephpm_args.h"
#include "ephpm_escape.h"
#include "ephpm_holder.h"
#include "ephpm_lease.h"
#include "ephpm_library.h"

/* How long a waiting writer's intent outlives the wait left: longer than
 * one nap between tries (at most 100 ms) and its round trip, so readers
 * stay refused from one try to the next. */
#define INTENT_MARGIN_NS (250 * 1000000LL)

static zend_object_handlers lease_handlers;

typedef struct ephpm_lease {
	ephpm_holder h;
	/* CLOCK_MONOTONIC ns until which the lease is live as far as this
	 * process knows: taken before the call that granted or renewed it, so
	 * never later than the store's own expiry. */
	int64_t deadline;
	zend_object std;
} ephpm_lease;

static zend_always_inline ephpm_lease *lease_from(zend_object *obj)
{
	return (ephpm_lease *)((char *)obj - XtOffsetOf(ephpm_lease, std));
}

#define LEASE_NAME(l) ((l)->h.name)
#define LEASE_TOKEN(l) ((l)->h.token)

/* A holder's own op (release, renew) finding its name replaced by another
 * kind of value (a plain set, or a del and a rate limit since): its lease
 * went with the old value, as a Lock's does when its key is overwritten. */
static int gone_if_replaced(int rc, const ephpm_kv_error *err)
{
	return rc < 0 && err->code == EPHPM_KV_E_WRONG_TYPE ? 0 : rc;
}

/* Release by token. 1 released, 0 no longer ours, -1 store error. */
static int give_back(ephpm_holder *h, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	return gone_if_replaced(ops->lease_release(STR_ARGS(h->name), STR_ARGS(h->token), err), err);
}

/* Warnings name the class (ReadWriteLock, Semaphore). */
static const ephpm_holder_kind lease_kind = {give_back, NULL, NULL};

static zend_object *lease_create(zend_class_entry *ce)
{
	ephpm_lease *lease = zend_object_alloc(sizeof(ephpm_lease), ce);
	zend_object_std_init(&lease->std, ce);
	object_properties_init(&lease->std, ce);
	lease->std.handlers = &lease_handlers;
	ephpm_holder_init(&lease->h, &lease_kind, &lease->std); /* released until ephpm_lease_take() fills it in */
	return &lease->std;
}

static void lease_dtor(zend_object *obj)
{
	zend_objects_destroy_object(obj);
	ephpm_holder_release_unused(&lease_from(obj)->h, "on destruction");
}

static void lease_free(zend_object *obj)
{
	ephpm_holder_free(&lease_from(obj)->h);
	zend_object_std_dtor(obj);
}

void ephpm_lease_release_held(void)
{
	ephpm_holder_release_all(&EPHPM_G(held_leases));
}

void ephpm_lease_init_class(zend_class_entry *ce)
{
	ce->create_object = lease_create;
	memcpy(&lease_handlers, &std_object_handlers, sizeof(zend_object_handlers));
	lease_handlers.offset = XtOffsetOf(ephpm_lease, std);
	lease_handlers.dtor_obj = lease_dtor;
	lease_handlers.free_obj = lease_free;
	lease_handlers.clone_obj = NULL;
}

const ephpm_kv_ops *ephpm_lease_ops(void)
{
	const ephpm_kv_ops *ops = ephpm_ops();
	if (ops && !EPHPM_OPS_HAS(ops, rate_limit)) {
		zend_throw_exception(ephpm_kv_exception_ce, "ephpm-kv: the library has no lease or rate-limit "
			"operations: build it and the extension from the same source", EPHPM_KV_E_CONFIG);
		return NULL;
	}
	return ops;
}

typedef struct {
	const ephpm_kv_ops *ops;
	zend_string *name;
	const char *token;
	int32_t mode;
	int64_t limit, ttl_ns;
	int64_t deadline;  /* of the wait: 0 none, INT64_MAX no end */
	int64_t started;   /* monotonic ns before the last try */
	int64_t fence;
	bool intended;     /* a refused try recorded a writer's intent */
} lease_attempt;

static int try_lease(void *ctx, ephpm_kv_error *err)
{
	lease_attempt *a = ctx;
	a->started = ephpm_monotonic_ns();
	int64_t intent = 0;
	if (a->mode == EPHPM_KV_LEASE_EXCLUSIVE && a->deadline > 0) {
		/* Until the wait ends (and a little: the next try renews it), at
		 * most the lease's ttl: a writer that gives up or dies leaves
		 * readers refused no longer than that. */
		int64_t left = a->deadline > a->started ? a->deadline - a->started : 0;
		intent = left >= a->ttl_ns ? a->ttl_ns : MIN(a->ttl_ns, left + INTENT_MARGIN_NS);
	}
	int rc = a->ops->lease_acquire(STR_ARGS(a->name), a->token, EPHPM_TOKEN_LEN, a->mode, a->limit, a->ttl_ns,
		intent, &a->fence, err);
	/* Only a refusal says the intent was recorded: after a first try that
	 * failed there is nothing to drop, and no second wait on a store that
	 * does not answer. */
	if (rc == 0 && intent > 0) {
		a->intended = true;
	}
	return rc;
}

ephpm_acquire_result ephpm_lease_take(const ephpm_kv_ops *ops, zend_class_entry *ce, zend_string *name,
	int32_t mode, int64_t limit, int64_t ttl_ns, int64_t wait_ns, zval *kind, zval *return_value)
{
	char token[EPHPM_TOKEN_LEN + 1];
	if (!ephpm_new_token(token)) {
		zval_ptr_dtor(kind);
		return EPHPM_ACQUIRE_ERROR;
	}
	lease_attempt a = {
		.ops = ops, .name = name, .token = token, .mode = mode, .limit = limit, .ttl_ns = ttl_ns,
	};
	if (wait_ns > 0) {
		int64_t now = ephpm_monotonic_ns();
		a.deadline = wait_ns > INT64_MAX - now ? INT64_MAX : now + wait_ns;
	}
	ephpm_acquire_result rc = ephpm_acquire_with(try_lease, &a, ops, STR_ARGS(name), wait_ns);
	if (rc != EPHPM_ACQUIRE_OK && a.intended) {
		/* Readers must not stay refused for a writer that left, whether its
		 * wait ran out or a try failed (a store error after a try that
		 * recorded the intent). After a timeout a failure throws: null must
		 * mean only "someone else holds it"; after an error the first
		 * error is the one thrown (the intent then expires by itself). */
		ephpm_kv_error err;
		if (ops->lease_release(STR_ARGS(name), token, EPHPM_TOKEN_LEN, &err) < 0 && rc == EPHPM_ACQUIRE_TIMEOUT) {
			ephpm_throw_store_error(&err);
			rc = EPHPM_ACQUIRE_ERROR;
		}
	}
	if (rc != EPHPM_ACQUIRE_OK) {
		zval_ptr_dtor(kind);
		return rc;
	}
	object_init_ex(return_value, ce);
	ephpm_lease *lease = lease_from(Z_OBJ_P(return_value));
	ephpm_holder_hold(&lease->h, name, token, EPHPM_TOKEN_LEN, ttl_ns, &EPHPM_G(held_leases));
	ZVAL_STR_COPY(OBJ_PROP_NUM(&lease->std, EPHPM_LEASE_PROP_NAME), LEASE_NAME(lease));
	ZVAL_STR_COPY(OBJ_PROP_NUM(&lease->std, EPHPM_LEASE_PROP_TOKEN), LEASE_TOKEN(lease));
	ZVAL_LONG(OBJ_PROP_NUM(&lease->std, EPHPM_LEASE_PROP_FENCE), a.fence);
	ZVAL_COPY_VALUE(OBJ_PROP_NUM(&lease->std, EPHPM_LEASE_PROP_KIND), kind);
	lease->deadline = a.started + ttl_ns;
	return EPHPM_ACQUIRE_OK;
}

void ephpm_lease_refresh(INTERNAL_FUNCTION_PARAMETERS)
{
	double ttl;
	bool ttl_is_null = true;
	ZEND_PARSE_PARAMETERS_START(0, 1)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_is_null)
	ZEND_PARSE_PARAMETERS_END();
	ephpm_lease *lease = lease_from(Z_OBJ_P(ZEND_THIS));
	int64_t ttl_ns = lease->h.ttl_ns;
	if (!ttl_is_null && !ephpm_ttl_arg(ttl, 1, false, &ttl_ns)) {
		RETURN_THROWS();
	}
	if (lease->h.released) {
		RETURN_FALSE;
	}
	const ephpm_kv_ops *ops = ephpm_lease_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int64_t started = ephpm_monotonic_ns();
	int rc = gone_if_replaced(ops->lease_renew(STR_ARGS(LEASE_NAME(lease)), STR_ARGS(LEASE_TOKEN(lease)), ttl_ns,
		&err), &err);
	if (rc < 0) {
		/* Unanswered is not unapplied: the store may have set the new ttl,
		 * shorter than the time left. Count only on the earlier of the
		 * two, so isAcquired() never renews the lease back past it. */
		lease->deadline = MIN(lease->deadline, started + ttl_ns);
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	if (rc == 1) {
		lease->deadline = started + ttl_ns;
	}
	RETURN_BOOL(rc);
}

void ephpm_lease_release(INTERNAL_FUNCTION_PARAMETERS)
{
	ZEND_PARSE_PARAMETERS_NONE();
	ephpm_holder_release_method(&lease_from(Z_OBJ_P(ZEND_THIS))->h, ephpm_lease_ops, return_value);
}

/* The time left of this holder's lease, EPHPM_KV_TTL_MISSING when lost or
 * released; false with an exception pending on a store error. A read
 * (lease_ttl), as Ephpm\Lock's ttl_if_eq: it never extends the lease. A
 * library older than lease_ttl has no such read: there the holder is
 * renewed to the time this process counts as left (its expiry in the
 * store stays about where it was), and past that deadline it is lost
 * without asking. */
static bool lease_left(ephpm_lease *lease, int64_t *left_ns)
{
	*left_ns = EPHPM_KV_TTL_MISSING;
	if (lease->h.released || ephpm_store_lost()) {
		return true; /* a lease on a segment others no longer see is not held */
	}
	const ephpm_kv_ops *ops = ephpm_lease_ops();
	if (!ops) {
		return false;
	}
	ephpm_kv_error err;
	int rc;
	if (EPHPM_OPS_HAS(ops, lease_ttl)) {
		rc = gone_if_replaced(ops->lease_ttl(STR_ARGS(LEASE_NAME(lease)), STR_ARGS(LEASE_TOKEN(lease)), left_ns,
			&err), &err);
	} else {
		int64_t left = lease->deadline - ephpm_monotonic_ns();
		if (left <= 0) {
			return true;
		}
		rc = gone_if_replaced(ops->lease_renew(STR_ARGS(LEASE_NAME(lease)), STR_ARGS(LEASE_TOKEN(lease)), left,
			&err), &err);
		if (rc == 1) {
			*left_ns = left;
		}
	}
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		return false;
	}
	if (rc == 0) {
		*left_ns = EPHPM_KV_TTL_MISSING;
	}
	return true;
}

void ephpm_lease_is_acquired(INTERNAL_FUNCTION_PARAMETERS)
{
	ZEND_PARSE_PARAMETERS_NONE();
	int64_t left_ns;
	if (!lease_left(lease_from(Z_OBJ_P(ZEND_THIS)), &left_ns)) {
		RETURN_THROWS();
	}
	RETURN_BOOL(left_ns != EPHPM_KV_TTL_MISSING);
}

void ephpm_lease_remaining(INTERNAL_FUNCTION_PARAMETERS)
{
	ZEND_PARSE_PARAMETERS_NONE();
	int64_t left_ns;
	if (!lease_left(lease_from(Z_OBJ_P(ZEND_THIS)), &left_ns)) {
		RETURN_THROWS();
	}
	RETURN_DOUBLE(left_ns > 0 ? (double)left_ns / EPHPM_NS_PER_SEC : 0.0);
}
