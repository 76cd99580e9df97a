/* Ephpm\Barrier: wait() returns for all the parties of a round together
 * (the store's barrier_wait, which does the waiting). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "ephpm_args.h"
#include "ephpm_library.h"

ZEND_METHOD(Ephpm_Barrier, __construct)
{
	/* private: the class is wait() alone */
}

ZEND_METHOD(Ephpm_Barrier, wait)
{
	zend_string *name;
	zend_long parties;
	double timeout;
	int64_t timeout_ns;
	ZEND_PARSE_PARAMETERS_START(3, 3)
		Z_PARAM_STR(name)
		Z_PARAM_LONG(parties)
		Z_PARAM_DOUBLE(timeout)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(name, 1)) {
		RETURN_THROWS();
	}
	if (parties < 1 || parties > EPHPM_KV_MAX_BARRIER_PARTIES) {
		zend_argument_value_error(2, "must be between 1 and %d", EPHPM_KV_MAX_BARRIER_PARTIES);
		RETURN_THROWS();
	}
	/* A positive duration, at most the longest TTL (NAN, INF, 0 refused). */
	if (!ephpm_ttl_arg(timeout, 3, false, &timeout_ns)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	if (!EPHPM_OPS_HAS(ops, barrier_wait)) {
		ephpm_throw_missing_ops("barrier");
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ops->barrier_wait(STR_ARGS(name), parties, timeout_ns, &err);
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_BOOL(rc == 1);
}
