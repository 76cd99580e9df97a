#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "php.h"
#include "ephpm_args.h"

#define MAX_TTL_NS (EPHPM_KV_MAX_TTL_SECONDS * EPHPM_NS_PER_SEC)
/* 2^63 as a double: the first value an int64 cannot hold. */
#define INT64_LIMIT 9223372036854775808.0

static ephpm_seconds_status check_sign(double sec, bool allow_zero)
{
	if (zend_isnan(sec)) {
		return EPHPM_SECONDS_NOT_FINITE;
	}
	if (!allow_zero && sec <= 0) { /* -0.0 too */
		return EPHPM_SECONDS_NOT_POSITIVE;
	}
	if (sec < 0) {
		return EPHPM_SECONDS_NEGATIVE;
	}
	return EPHPM_SECONDS_OK;
}

ephpm_seconds_status ephpm_ttl_ns(double sec, bool allow_zero, int64_t *ns)
{
	ephpm_seconds_status status = check_sign(sec, allow_zero);
	if (status != EPHPM_SECONDS_OK) {
		return status;
	}
	/* Also catches +INF. The maximum is exact in a double, and so is its
	 * product with 1e9, so no value that passes can round above it. */
	if (sec > (double)EPHPM_KV_MAX_TTL_SECONDS) {
		return EPHPM_SECONDS_TOO_LARGE;
	}
	double rounded = ceil(sec * (double)EPHPM_NS_PER_SEC);
	*ns = rounded >= (double)MAX_TTL_NS ? MAX_TTL_NS : (int64_t)rounded;
	return EPHPM_SECONDS_OK;
}

ephpm_seconds_status ephpm_wait_ns(double sec, bool allow_zero, int64_t *ns)
{
	if (zend_isinf(sec) && sec > 0) {
		return EPHPM_SECONDS_NOT_FINITE;
	}
	ephpm_seconds_status status = check_sign(sec, allow_zero);
	if (status != EPHPM_SECONDS_OK) {
		return status;
	}
	double rounded = ceil(sec * (double)EPHPM_NS_PER_SEC);
	*ns = rounded >= INT64_LIMIT ? INT64_MAX : (int64_t)rounded;
	return EPHPM_SECONDS_OK;
}

const char *ephpm_seconds_message(ephpm_seconds_status status, char *buf, size_t size)
{
	const char *text = "";
	switch (status) {
	case EPHPM_SECONDS_NOT_FINITE:
		text = "must be a finite number";
		break;
	case EPHPM_SECONDS_NEGATIVE:
		text = "must be greater than or equal to 0";
		break;
	case EPHPM_SECONDS_NOT_POSITIVE:
		text = "must be greater than 0";
		break;
	case EPHPM_SECONDS_TOO_LARGE:
		snprintf(buf, size, "must be at most %lld seconds (100 years)", (long long)EPHPM_KV_MAX_TTL_SECONDS);
		return buf;
	case EPHPM_SECONDS_OK:
		break;
	}
	snprintf(buf, size, "%s", text);
	return buf;
}

static bool arg_status(ephpm_seconds_status status, uint32_t arg_num)
{
	if (UNEXPECTED(status != EPHPM_SECONDS_OK)) {
		char msg[EPHPM_SECONDS_MESSAGE_SIZE];
		zend_argument_value_error(arg_num, "%s", ephpm_seconds_message(status, msg, sizeof msg));
		return false;
	}
	return true;
}

bool ephpm_ttl_arg(double sec, uint32_t arg_num, bool allow_zero, int64_t *ns)
{
	return arg_status(ephpm_ttl_ns(sec, allow_zero, ns), arg_num);
}

bool ephpm_wait_arg(double sec, uint32_t arg_num, int64_t *ns)
{
	return arg_status(ephpm_wait_ns(sec, true, ns), arg_num);
}

bool ephpm_number_ttl_arg(const zval *seconds, uint32_t arg_num, int64_t *ns)
{
	if (Z_TYPE_P(seconds) == IS_DOUBLE) {
		return ephpm_ttl_arg(Z_DVAL_P(seconds), arg_num, true, ns);
	}
	zend_long sec = Z_LVAL_P(seconds);
	if (UNEXPECTED(sec < 0)) {
		return arg_status(EPHPM_SECONDS_NEGATIVE, arg_num);
	}
	if (UNEXPECTED(sec > EPHPM_KV_MAX_TTL_SECONDS)) {
		return arg_status(EPHPM_SECONDS_TOO_LARGE, arg_num);
	}
	*ns = (int64_t)sec * EPHPM_NS_PER_SEC;
	return true;
}
