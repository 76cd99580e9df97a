/* ephpm_kv_rate_limit(): the store's exact sliding-window limiter. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "ephpm_args.h"
#include "ephpm_lease.h"
#include "ephpm_library.h"

PHP_FUNCTION(ephpm_kv_rate_limit)
{
	zend_string *key;
	zend_long limit;
	zval *window;
	int64_t window_ns;
	ZEND_PARSE_PARAMETERS_START(3, 3)
		Z_PARAM_STR(key)
		Z_PARAM_LONG(limit)
		Z_PARAM_NUMBER(window)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1)) {
		RETURN_THROWS();
	}
	if (limit < 1 || limit > EPHPM_KV_MAX_RATE_LIMIT) {
		zend_argument_value_error(2, "must be between 1 and %d", EPHPM_KV_MAX_RATE_LIMIT);
		RETURN_THROWS();
	}
	/* A window is a positive duration: 0 would admit nothing ever. */
	if (Z_TYPE_P(window) == IS_LONG && Z_LVAL_P(window) <= 0) {
		zend_argument_value_error(3, "must be greater than 0");
		RETURN_THROWS();
	}
	if (Z_TYPE_P(window) == IS_DOUBLE ? !ephpm_ttl_arg(Z_DVAL_P(window), 3, false, &window_ns)
		: !ephpm_number_ttl_arg(window, 3, &window_ns)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_lease_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	int64_t remaining = 0, retry_after_ns = 0;
	ephpm_kv_error err;
	int rc = ops->rate_limit(STR_ARGS(key), limit, window_ns, &remaining, &retry_after_ns, &err);
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	array_init_size(return_value, 3);
	add_assoc_bool(return_value, "allowed", rc == 1);
	add_assoc_long(return_value, "remaining", remaining);
	add_assoc_double(return_value, "retry_after", (double)retry_after_ns / EPHPM_NS_PER_SEC);
}
