/* Ephpm\Leader: leader election. A leadership is a key hold
 * (ephpm_keyhold.c) whose token is the record the store keeps under the
 * election (the leader's value, term and a random token): resign(),
 * refresh(), isLeader(), remaining() and the watchdog are a Lock's,
 * compare-and-delete and owner-only renewal against that record. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "ephpm_acquire.h"
#include "ephpm_args.h"
#include "ephpm_keyhold.h"
#include "ephpm_leader.h"
#include "ephpm_library.h"

zend_class_entry *ephpm_leader_ce;

/* Property slots, in the stub's declaration order. */
#define PROP_ELECTION 0
#define PROP_VALUE 1
#define PROP_TERM 2

/* Warnings name the class (Ephpm\Leader). */
static const ephpm_holder_kind leader_kind = EPHPM_KEYHOLD_KIND(NULL);

/* The ops table, checked to have the election ops; NULL with an exception
 * pending otherwise. */
static const ephpm_kv_ops *leader_ops(void)
{
	const ephpm_kv_ops *ops = ephpm_ops();
	if (ops && !(EPHPM_OPS_HAS(ops, leader_campaign) && EPHPM_OPS_HAS(ops, leader_current))) {
		ephpm_throw_missing_ops("leader election");
		return NULL;
	}
	return ops;
}

typedef struct {
	const ephpm_kv_ops *ops;
	zend_string *election, *value;
	const char *token;
	int64_t ttl_ns, term;
	char *rec;             /* receives the record when elected: rec_cap bytes, as the contract sizes it */
	size_t rec_cap, rec_len;
} campaign_attempt;

static int try_campaign(void *ctx, ephpm_kv_error *err)
{
	campaign_attempt *a = ctx;
	return a->ops->leader_campaign(STR_ARGS(a->election), a->token, EPHPM_TOKEN_LEN, STR_ARGS(a->value), a->ttl_ns,
		&a->term, a->rec, a->rec_cap, &a->rec_len, err);
}

/* Campaigns with a new token until elected or wait_ns passes; on success
 * return_value holds the new, tracked Leader. */
static ephpm_acquire_result leader_campaign(const ephpm_kv_ops *ops, zend_string *election, zend_string *value,
	int64_t ttl_ns, int64_t wait_ns, zval *return_value)
{
	char token[EPHPM_TOKEN_LEN + 1];
	if (!ephpm_new_token(token)) {
		return EPHPM_ACQUIRE_ERROR;
	}
	campaign_attempt a = {
		.ops = ops, .election = election, .value = value, .token = token, .ttl_ns = ttl_ns,
		.rec_cap = ZSTR_LEN(value) + EPHPM_TOKEN_LEN + EPHPM_KV_LEADER_OVERHEAD,
	};
	a.rec = emalloc(a.rec_cap);
	ephpm_acquire_result rc = ephpm_acquire_with(try_campaign, &a, ops, STR_ARGS(election), wait_ns);
	if (rc == EPHPM_ACQUIRE_OK) {
		ephpm_keyhold *k = ephpm_keyhold_new(ephpm_leader_ce, &leader_kind, return_value, election, a.rec,
			a.rec_len, ttl_ns);
		ZVAL_STR_COPY(OBJ_PROP_NUM(&k->std, PROP_ELECTION), k->h.name);
		ZVAL_STR_COPY(OBJ_PROP_NUM(&k->std, PROP_VALUE), value);
		ZVAL_LONG(OBJ_PROP_NUM(&k->std, PROP_TERM), a.term);
	}
	efree(a.rec);
	return rc;
}

ZEND_METHOD(Ephpm_Leader, __construct)
{
	/* private: leaders come from campaign() */
}

ZEND_METHOD(Ephpm_Leader, campaign)
{
	zend_string *election, *value;
	double ttl = 30, wait = 0;
	bool auto_renew = false;
	int64_t ttl_ns, wait_ns;
	ZEND_PARSE_PARAMETERS_START(2, 5)
		Z_PARAM_STR(election)
		Z_PARAM_STR(value)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(ttl)
		Z_PARAM_DOUBLE(wait)
		Z_PARAM_BOOL(auto_renew)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(election, 1) || !ephpm_ttl_arg(ttl, 3, false, &ttl_ns) || !ephpm_wait_arg(wait, 4, &wait_ns)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = leader_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	switch (leader_campaign(ops, election, value, ttl_ns, wait_ns, return_value)) {
	case EPHPM_ACQUIRE_OK:
		break;
	case EPHPM_ACQUIRE_TIMEOUT:
		RETURN_NULL();
	case EPHPM_ACQUIRE_ERROR:
		RETURN_THROWS();
	}
	/* Renewed as a Lock's watchdog renews it, with no limit of its own: a
	 * leadership lasts until resign() or the end of the request (a daemon's
	 * leader may lead for days). */
	if (auto_renew && !ephpm_keyhold_watch(return_value, ops, EPHPM_KV_MAX_TTL_SECONDS * (int64_t)EPHPM_NS_PER_SEC)) {
		RETURN_THROWS();
	}
}

ZEND_METHOD(Ephpm_Leader, current)
{
	zend_string *election;
	ZEND_PARSE_PARAMETERS_START(1, 1)
		Z_PARAM_STR(election)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(election, 1)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = leader_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	/* The value may be replaced by a larger one between calls: loop. */
	size_t cap = 256, len;
	int64_t term, remaining_ns;
	ephpm_kv_error err;
	zend_string *value = zend_string_alloc(cap, 0);
	int rc;
	while ((rc = ops->leader_current(STR_ARGS(election), ZSTR_VAL(value), cap, &len, &term, &remaining_ns, &err)) == 1
		&& len > cap) {
		cap = len;
		zend_string_efree(value);
		value = zend_string_alloc(cap, 0);
	}
	if (rc != 1) {
		zend_string_efree(value);
		if (rc < 0) {
			ephpm_throw_store_error(&err);
			RETURN_THROWS();
		}
		RETURN_NULL();
	}
	value = zend_string_truncate(value, len, 0);
	ZSTR_VAL(value)[len] = '\0';
	array_init_size(return_value, 3);
	add_assoc_str(return_value, "value", value);
	add_assoc_long(return_value, "term", term);
	add_assoc_double(return_value, "remaining", remaining_ns > 0 ? (double)remaining_ns / EPHPM_NS_PER_SEC : 0.0);
}

ZEND_METHOD(Ephpm_Leader, isLeader)
{
	ephpm_keyhold_held_method(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Leader, refresh)
{
	ephpm_keyhold_refresh_method(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Leader, resign)
{
	ephpm_keyhold_release_method(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

ZEND_METHOD(Ephpm_Leader, remaining)
{
	ephpm_keyhold_remaining_method(INTERNAL_FUNCTION_PARAM_PASSTHRU);
}

void ephpm_leader_init_class(zend_class_entry *ce)
{
	ephpm_leader_ce = ce;
	ephpm_keyhold_init_class(ce);
}
