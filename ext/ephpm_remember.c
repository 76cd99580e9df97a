/* ephpm_kv_remember: a value computed once across all processes.
 *
 * A miss claims "ephpm_remember:<key>" with a random token (setnx, held);
 * the claimer computes, writes the value and gives the claim back with
 * compare-and-delete. Everyone else sleeps on the claim's release (the
 * segment's futex; a backoff elsewhere), then reads the value. A claimer
 * that dies holds the claim until it expires: max($wait, 30 s). A compute
 * that runs longer than that may run twice; nothing is ever lost. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_exceptions.h"

#include "php_ephpm.h"
#include "ephpm_acquire.h"
#include "ephpm_args.h"
#include "ephpm_escape.h"
#include "ephpm_get.h"
#include "ephpm_library.h"
#include "ephpm_lock.h"

#define CLAIM_PREFIX "ephpm_remember:"
#define CLAIM_PREFIX_LEN (sizeof(CLAIM_PREFIX) - 1)
#define CLAIM_TTL_MIN_NS (30 * EPHPM_NS_PER_SEC)

typedef struct {
	const ephpm_kv_ops *ops;
	zend_string *key, *claim;
	char token[EPHPM_TOKEN_LEN + 1];
	int64_t claim_ttl_ns;
	zend_string *value; /* found by an attempt */
	bool claimed;
} remember_attempt;

/* One attempt: the value if it is there, else the claim. 1 when either is
 * ours, 0 while another process computes. */
static int try_value_or_claim(void *ctx, ephpm_kv_error *err)
{
	remember_attempt *a = ctx;
	int rc;
	if ((a->value = ephpm_get(a->ops, STR_ARGS(a->key), &rc, err)) || rc < 0) {
		return a->value ? 1 : -1;
	}
	rc = a->ops->setnx(STR_ARGS(a->claim), a->token, EPHPM_TOKEN_LEN, a->claim_ttl_ns, err);
	if (rc != 1) {
		return rc;
	}
	a->claimed = true;
	/* Its computer may have written it and let go between our two calls. */
	if ((a->value = ephpm_get(a->ops, STR_ARGS(a->key), &rc, err)) || rc < 0) {
		return a->value ? 1 : -1;
	}
	return 1;
}

/* Gives the claim back (compare-and-delete: a claim that expired and was
 * taken by another computer stays theirs); a store error throws, chained
 * to any exception pending. Not in a child the compute forked: the claim is
 * the parent's. */
static void release_claim(remember_attempt *a)
{
	if (!a->claimed || ephpm_library_forked()) {
		return;
	}
	a->claimed = false;
	ephpm_kv_error err;
	if (a->ops->del_if_eq(STR_ARGS(a->claim), a->token, EPHPM_TOKEN_LEN, &err) < 0) {
		ephpm_throw_store_error(&err);
	}
}

/* Calls compute($key) into retval. false with an exception pending (also a
 * TypeError for a result that is not a string). A fatal error inside it
 * gives the claim back before the request unwinds. */
static bool compute_value(remember_attempt *a, zend_fcall_info *fci, zend_fcall_info_cache *fcc, zval *retval)
{
	zval arg;
	ZVAL_STR(&arg, a->key);
	fci->retval = retval;
	fci->params = &arg;
	fci->param_count = 1;
	bool called = false;
	zend_try {
		called = zend_call_function(fci, fcc) == SUCCESS;
	} zend_catch {
		release_claim(a);
		zend_bailout();
	} zend_end_try();
	if (!called || EG(exception)) {
		zval_ptr_dtor(retval);
		ZVAL_UNDEF(retval);
		return false;
	}
	if (Z_TYPE_P(retval) != IS_STRING) {
		zend_type_error("%s(): Return value of argument #2 ($compute) must be of type string, %s returned",
			get_active_function_name(), zend_zval_type_name(retval));
		zval_ptr_dtor(retval);
		ZVAL_UNDEF(retval);
		return false;
	}
	return true;
}

PHP_FUNCTION(ephpm_kv_remember)
{
	zend_string *key;
	zend_fcall_info fci;
	zend_fcall_info_cache fcc;
	zval *ttl = NULL;
	bool evictable = true;
	double wait = 30;
	int64_t ttl_ns = 0, wait_ns;
	ZEND_PARSE_PARAMETERS_START(2, 5)
		Z_PARAM_STR(key)
		Z_PARAM_FUNC(fci, fcc)
		Z_PARAM_OPTIONAL
		Z_PARAM_NUMBER(ttl)
		Z_PARAM_BOOL(evictable)
		Z_PARAM_DOUBLE(wait)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1) || (ttl && !ephpm_number_ttl_arg(ttl, 3, &ttl_ns))
		|| !ephpm_wait_arg(wait, 5, &wait_ns)) {
		RETURN_THROWS();
	}
	if (ZSTR_LEN(key) > EPHPM_KV_MAX_KEY_SIZE - CLAIM_PREFIX_LEN) {
		zend_argument_value_error(1, "must not be longer than %d bytes (its claim key adds %d)",
			(int)(EPHPM_KV_MAX_KEY_SIZE - CLAIM_PREFIX_LEN), (int)CLAIM_PREFIX_LEN);
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	remember_attempt a = {
		.ops = ops, .key = key,
		.claim_ttl_ns = MAX(MIN(wait_ns, EPHPM_KV_MAX_TTL_SECONDS * EPHPM_NS_PER_SEC), CLAIM_TTL_MIN_NS),
	};
	if (!ephpm_new_token(a.token)) {
		RETURN_THROWS();
	}
	a.claim = zend_string_concat2(CLAIM_PREFIX, CLAIM_PREFIX_LEN, STR_ARGS(key));
	switch (ephpm_acquire_with(try_value_or_claim, &a, ops, STR_ARGS(a.claim), wait_ns)) {
	case EPHPM_ACQUIRE_OK:
		break;
	case EPHPM_ACQUIRE_TIMEOUT: {
		zend_string *shown = ephpm_escape(STR_ARGS(key));
		zend_throw_exception_ex(ephpm_lock_timeout_exception_ce, 0,
			"Another process was still computing \"%s\" after %.3F seconds", ZSTR_VAL(shown), wait);
		zend_string_release(shown);
		goto out;
	}
	case EPHPM_ACQUIRE_ERROR:
		release_claim(&a);
		goto out;
	}
	if (a.value) {
		release_claim(&a);
		if (EG(exception)) {
			zend_string_release(a.value);
			goto out;
		}
		RETVAL_NEW_STR(a.value);
		goto out;
	}
	if (compute_value(&a, &fci, &fcc, return_value)) {
		ephpm_kv_error err;
		zend_string *v = Z_STR_P(return_value);
		int rc = evictable && EPHPM_OPS_HAS(ops, set_evictable)
			? ops->set_evictable(STR_ARGS(key), STR_ARGS(v), ttl_ns, &err)
			: ops->set(STR_ARGS(key), STR_ARGS(v), ttl_ns, &err);
		if (rc < 0) {
			ephpm_throw_store_error(&err);
		}
	}
	release_claim(&a);
	if (EG(exception)) {
		zval_ptr_dtor(return_value);
		ZVAL_UNDEF(return_value);
	}
out:
	zend_string_release(a.claim);
}
