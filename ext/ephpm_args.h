/* Argument checks shared by the functions, the Lock class and sessions. */
#ifndef EPHPM_ARGS_H
#define EPHPM_ARGS_H

#include "php.h"
#include "ephpm_kv_ops.h"

#define EPHPM_NS_PER_SEC 1000000000LL

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

/* Seconds -> ns, ValueError when negative (or zero, unless allow_zero),
 * non-finite or too large. A positive duration never rounds down to 0. */
bool ephpm_seconds_to_ns(double sec, uint32_t arg_num, bool allow_zero, int64_t *ns);

/* The same for an int|float argument (int kept exact). */
bool ephpm_number_to_ns(const zval *seconds, uint32_t arg_num, int64_t *ns);

#endif
