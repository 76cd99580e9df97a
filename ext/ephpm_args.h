/* Argument checks shared by the functions, the Lock class and sessions. */
#ifndef EPHPM_ARGS_H
#define EPHPM_ARGS_H

#include "php.h"
#include "ephpm_kv_ops.h"

#define EPHPM_NS_PER_SEC 1000000000LL

/* A zend_string as the ops table's (pointer, length) pair. */
#define STR_ARGS(s) ZSTR_VAL(s), ZSTR_LEN(s)

/* ValueError unless 1 <= length <= 64 KiB. */
static zend_always_inline bool ephpm_check_key(const zend_string *key, uint32_t arg_num)
{
	if (UNEXPECTED(ZSTR_LEN(key) == 0)) {
		zend_argument_value_error(arg_num, "must not be empty");
		return false;
	}
	if (UNEXPECTED(ZSTR_LEN(key) > EPHPM_KV_MAX_KEY_SIZE)) {
		zend_argument_value_error(arg_num, "must not be longer than %d bytes", EPHPM_KV_MAX_KEY_SIZE);
		return false;
	}
	return true;
}

/*
 * Every number of seconds that becomes nanoseconds goes through one of two
 * checked conversions, so none can wrap:
 *  - a TTL is 0 (no expiry, where allowed) up to EPHPM_KV_MAX_TTL_SECONDS;
 *    anything larger (INF included) is refused, and a positive TTL rounds up
 *    to whole ns, never down to 0 ("no expiry");
 *  - a wait (or timeout) is any finite number >= 0; one too large for int64
 *    ns saturates at INT64_MAX, which means "wait forever", never 0.
 */
typedef enum {
	EPHPM_SECONDS_OK = 0,
	EPHPM_SECONDS_NOT_FINITE, /* NAN; INF for a wait */
	EPHPM_SECONDS_NEGATIVE,
	EPHPM_SECONDS_NOT_POSITIVE, /* <= 0 where only a positive duration makes sense */
	EPHPM_SECONDS_TOO_LARGE,  /* a TTL above EPHPM_KV_MAX_TTL_SECONDS */
} ephpm_seconds_status;

ephpm_seconds_status ephpm_ttl_ns(double sec, bool allow_zero, int64_t *ns);
ephpm_seconds_status ephpm_wait_ns(double sec, bool allow_zero, int64_t *ns);

/* Why status refused a duration, e.g. "must be at most 3153600000 seconds
 * (100 years)", in the style of zend_argument_value_error(); returns buf. */
#define EPHPM_SECONDS_MESSAGE_SIZE 64
const char *ephpm_seconds_message(ephpm_seconds_status status, char *buf, size_t size);

/* The same conversions for PHP arguments: ValueError on refusal. */
bool ephpm_ttl_arg(double sec, uint32_t arg_num, bool allow_zero, int64_t *ns);
bool ephpm_wait_arg(double sec, uint32_t arg_num, int64_t *ns);

/* A TTL given as int|float (int kept exact); 0 allowed. */
bool ephpm_number_ttl_arg(const zval *seconds, uint32_t arg_num, int64_t *ns);

#endif
