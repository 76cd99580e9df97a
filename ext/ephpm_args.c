#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "ephpm_args.h"

#define MAX_SECONDS (INT64_MAX / EPHPM_NS_PER_SEC)

bool ephpm_seconds_to_ns(double sec, uint32_t arg_num, bool allow_zero, int64_t *ns)
{
	if (UNEXPECTED(!zend_finite(sec))) {
		zend_argument_value_error(arg_num, "must be a finite number");
		return false;
	}
	if (UNEXPECTED(sec < 0 || (!allow_zero && sec == 0))) {
		zend_argument_value_error(arg_num, allow_zero ? "must be greater than or equal to 0" : "must be greater than 0");
		return false;
	}
	if (UNEXPECTED(sec >= (double)MAX_SECONDS)) {
		zend_argument_value_error(arg_num, "must be at most %lld seconds", (long long)MAX_SECONDS);
		return false;
	}
	*ns = (int64_t)(sec * EPHPM_NS_PER_SEC);
	if (*ns == 0 && sec > 0) {
		*ns = 1;
	}
	return true;
}

bool ephpm_number_to_ns(const zval *seconds, uint32_t arg_num, int64_t *ns)
{
	if (Z_TYPE_P(seconds) == IS_DOUBLE) {
		return ephpm_seconds_to_ns(Z_DVAL_P(seconds), arg_num, true, ns);
	}
	zend_long sec = Z_LVAL_P(seconds);
	if (UNEXPECTED(sec < 0)) {
		zend_argument_value_error(arg_num, "must be greater than or equal to 0");
		return false;
	}
	if (UNEXPECTED(sec > MAX_SECONDS)) {
		zend_argument_value_error(arg_num, "must be at most %lld seconds", (long long)MAX_SECONDS);
		return false;
	}
	*ns = (int64_t)sec * EPHPM_NS_PER_SEC;
	return true;
}
