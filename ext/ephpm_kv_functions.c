/* ephpm_kv_*: argument checks and PHP types around the ops table. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_exceptions.h"

#include "php_ephpm.h"
#include "ephpm_library.h"
#include "ephpm_args.h"
#include "ephpm_get.h"

#define KEY_ARG(key) ZSTR_VAL(key), ZSTR_LEN(key)

/* Fetches the ops table or returns (an exception is pending). */
#define EPHPM_OPS(ops) \
	const ephpm_kv_ops *ops = ephpm_ops(); \
	if (UNEXPECTED(!ops)) { RETURN_THROWS(); }

/* A negative rc throws; otherwise returns rc as bool. */
#define RETURN_RC_BOOL(rc, err) do { \
	if (UNEXPECTED((rc) < 0)) { ephpm_throw_store_error(&(err)); RETURN_THROWS(); } \
	RETURN_BOOL(rc); } while (0)

/* Parses a lone (string $key) argument and fetches the ops table; NULL
 * with an exception pending when either fails. */
static const ephpm_kv_ops *key_only_arg(INTERNAL_FUNCTION_PARAMETERS, zend_string **key)
{
	ZEND_PARSE_PARAMETERS_START(1, 1)
		Z_PARAM_STR(*key)
	ZEND_PARSE_PARAMETERS_END_EX(return NULL);
	return ephpm_check_key(*key, 1) ? ephpm_ops() : NULL;
}

PHP_FUNCTION(ephpm_kv_get)
{
	zend_string *key, *value;
	const ephpm_kv_ops *ops = key_only_arg(INTERNAL_FUNCTION_PARAM_PASSTHRU, &key);
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc;
	if ((value = ephpm_get(ops, KEY_ARG(key), &rc, &err))) {
		RETURN_NEW_STR(value);
	}
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_NULL();
}

/* set and setnx share their arguments. */
static void store_value(INTERNAL_FUNCTION_PARAMETERS, bool only_if_absent)
{
	zend_string *key, *value;
	zval *ttl = NULL;
	int64_t ttl_ns = 0;
	ZEND_PARSE_PARAMETERS_START(2, 3)
		Z_PARAM_STR(key)
		Z_PARAM_STR(value)
		Z_PARAM_OPTIONAL
		Z_PARAM_NUMBER(ttl)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1) || (ttl && !ephpm_number_ttl_arg(ttl, 3, &ttl_ns))) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = only_if_absent
		? ops->setnx(KEY_ARG(key), KEY_ARG(value), ttl_ns, &err)
		: ops->set(KEY_ARG(key), KEY_ARG(value), ttl_ns, &err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_set)
{
	store_value(INTERNAL_FUNCTION_PARAM_PASSTHRU, false);
}

PHP_FUNCTION(ephpm_kv_setnx)
{
	store_value(INTERNAL_FUNCTION_PARAM_PASSTHRU, true);
}

PHP_FUNCTION(ephpm_kv_del)
{
	zend_string *key;
	const ephpm_kv_ops *ops = key_only_arg(INTERNAL_FUNCTION_PARAM_PASSTHRU, &key);
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ops->del(KEY_ARG(key), &err);
	if (UNEXPECTED(rc < 0)) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_LONG(rc);
}

PHP_FUNCTION(ephpm_kv_del_if_eq)
{
	zend_string *key, *token;
	ZEND_PARSE_PARAMETERS_START(2, 2)
		Z_PARAM_STR(key)
		Z_PARAM_STR(token)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->del_if_eq(KEY_ARG(key), KEY_ARG(token), &err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_exists)
{
	zend_string *key;
	const ephpm_kv_ops *ops = key_only_arg(INTERNAL_FUNCTION_PARAM_PASSTHRU, &key);
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ops->exists(KEY_ARG(key), &err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_expire)
{
	zend_string *key;
	zval *ttl;
	int64_t ttl_ns;
	ZEND_PARSE_PARAMETERS_START(2, 2)
		Z_PARAM_STR(key)
		Z_PARAM_NUMBER(ttl)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1) || !ephpm_number_ttl_arg(ttl, 2, &ttl_ns)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->expire(KEY_ARG(key), ttl_ns, &err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_expire_if_eq)
{
	zend_string *key, *token;
	zval *ttl;
	int64_t ttl_ns;
	ZEND_PARSE_PARAMETERS_START(3, 3)
		Z_PARAM_STR(key)
		Z_PARAM_STR(token)
		Z_PARAM_NUMBER(ttl)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1) || !ephpm_number_ttl_arg(ttl, 3, &ttl_ns)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->expire_if_eq(KEY_ARG(key), KEY_ARG(token), ttl_ns, &err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_ttl)
{
	zend_string *key;
	const ephpm_kv_ops *ops = key_only_arg(INTERNAL_FUNCTION_PARAM_PASSTHRU, &key);
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int64_t ttl_ns;
	if (UNEXPECTED(ops->ttl(KEY_ARG(key), &ttl_ns, &err) < 0)) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	if (ttl_ns == EPHPM_KV_TTL_PERSISTENT || ttl_ns == EPHPM_KV_TTL_MISSING) {
		RETURN_LONG(ttl_ns);
	}
	RETURN_DOUBLE((double)ttl_ns / EPHPM_NS_PER_SEC);
}

PHP_FUNCTION(ephpm_kv_incr)
{
	zend_string *key;
	zend_long by = 1;
	zval *ttl = NULL;
	int64_t ttl_ns = 0, result;
	ZEND_PARSE_PARAMETERS_START(1, 3)
		Z_PARAM_STR(key)
		Z_PARAM_OPTIONAL
		Z_PARAM_LONG(by)
		Z_PARAM_NUMBER(ttl)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1) || (ttl && !ephpm_number_ttl_arg(ttl, 3, &ttl_ns))) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	if (UNEXPECTED(ops->incr(KEY_ARG(key), by, ttl_ns, &result, &err) < 0)) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_LONG(result);
}

PHP_FUNCTION(ephpm_kv_flush)
{
	ZEND_PARSE_PARAMETERS_NONE();
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->flush(&err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_stats)
{
	ZEND_PARSE_PARAMETERS_NONE();
	EPHPM_OPS(ops);
	ephpm_kv_stats st;
	ephpm_kv_error err;
	if (UNEXPECTED(ops->stats(&st, &err) < 0)) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	array_init_size(return_value, 12);
	add_assoc_string(return_value, "engine", EPHPM_SERVER_MODE() ? "server" : "in-process");
	add_assoc_long(return_value, "keys", st.keys);
	add_assoc_long(return_value, "bytes_used", st.bytes_used);
	add_assoc_long(return_value, "bytes_limit", st.bytes_limit);
	add_assoc_long(return_value, "hits", st.hits);
	add_assoc_long(return_value, "misses", st.misses);
	add_assoc_long(return_value, "expired", st.expired);
	add_assoc_long(return_value, "rejected", st.rejected);
	add_assoc_long(return_value, "compressed", st.compressed);
	add_assoc_long(return_value, "max_value_size", st.max_value_size);
	add_assoc_long(return_value, "compress_min", st.compress_min);
}

PHP_FUNCTION(ephpm_kv_fence)
{
	zend_string *resource;
	zend_long fence;
	ZEND_PARSE_PARAMETERS_START(2, 2)
		Z_PARAM_STR(resource)
		Z_PARAM_LONG(fence)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(resource, 1)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->fence(KEY_ARG(resource), fence, &err);
	RETURN_RC_BOOL(rc, err);
}
