/*
 * session.save_handler = ephpm. Data lives at session:<sid> with a TTL of
 * session.gc_maxlifetime. With ephpm.session_locking, read takes
 * session_lock:<sid> with a random token and reads the data in the same
 * call (lock_and_get: one round trip in server mode); write renews the lock
 * and writes only while the lock still holds our token, then releases it
 * (set_if_locked: a request that lost its lock must not overwrite the next
 * holder's data); close/destroy release a lock still held with del_if_eq.
 * A session request that writes is two round trips. A store failure is an
 * exception, never mistaken for contention.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_exceptions.h"
#include "ext/session/php_session.h"

#include "php_ephpm.h"
#include "ephpm_acquire.h"
#include "ephpm_args.h"
#include "ephpm_escape.h"
#include "ephpm_get.h"
#include "ephpm_library.h"
#include "ephpm_session.h"

#define DATA_PREFIX "session:"
#define LOCK_PREFIX "session_lock:"

typedef struct {
	zend_string *lock_key; /* session_lock:<sid> while we hold it, else NULL */
	char token[EPHPM_TOKEN_LEN + 1];
} ephpm_session;

static zend_string *prefixed(const char *prefix, size_t prefix_len, const zend_string *sid)
{
	return zend_string_concat2(prefix, prefix_len, ZSTR_VAL(sid), ZSTR_LEN(sid));
}
#define DATA_KEY(sid) prefixed(DATA_PREFIX, sizeof(DATA_PREFIX) - 1, sid)
#define LOCK_KEY(sid) prefixed(LOCK_PREFIX, sizeof(LOCK_PREFIX) - 1, sid)

/* The ini handlers accepted these settings through the same conversions,
 * so these cannot fail; the defaults are only a fallback. */
static int64_t lock_ttl_ns(void)
{
	int64_t ns;
	return ephpm_ttl_ns(EPHPM_G(session_lock_ttl), false, &ns) == EPHPM_SECONDS_OK ? ns : 30 * EPHPM_NS_PER_SEC;
}

static int64_t lock_wait_ns(void)
{
	int64_t ns;
	return ephpm_wait_ns(EPHPM_G(session_lock_wait), true, &ns) == EPHPM_SECONDS_OK ? ns : 30 * EPHPM_NS_PER_SEC;
}

/* session.gc_maxlifetime is PHP's own setting, which we cannot refuse at
 * startup. Past the one maximum TTL (100 years) it is capped with a warning
 * rather than refused: refusing would fail every session write over a
 * setting that only asks to keep data very long, and wrapping would expire
 * sessions at once. */
static int64_t lifetime_ns(zend_long maxlifetime)
{
	if (maxlifetime <= 0) {
		return 0;
	}
	if (maxlifetime > EPHPM_KV_MAX_TTL_SECONDS) {
		php_error_docref(NULL, E_WARNING, "session.gc_maxlifetime of " ZEND_LONG_FMT " seconds is more than "
			"ephpm-kv's maximum TTL; sessions expire after %lld seconds (100 years) instead",
			maxlifetime, (long long)EPHPM_KV_MAX_TTL_SECONDS);
		return EPHPM_KV_MAX_TTL_SECONDS * EPHPM_NS_PER_SEC;
	}
	return (int64_t)maxlifetime * EPHPM_NS_PER_SEC;
}

static zend_result store_error(const ephpm_kv_error *err)
{
	ephpm_throw_store_error(err);
	return FAILURE;
}

/* Whether PHP code runs that could catch an exception. None does when PHP
 * reads the session before the script (session.auto_start) or writes it
 * after (at the end of the request, or from session_register_shutdown()). */
static bool code_can_catch(void)
{
	for (zend_execute_data *ex = EG(current_execute_data); ex; ex = ex->prev_execute_data) {
		if (ex->func && ZEND_USER_CODE(ex->func->type)) {
			return true;
		}
	}
	return false;
}

/* A store failure is an exception where code can catch it (session_start(),
 * session_write_close()). Where none can, it would end the request with
 * "Fatal error: Uncaught ... in [no active file]": a warning says it instead,
 * which PHP follows with its own ("Failed to write session data"), as for
 * its files handler. (With no frame at all, before or after the script,
 * nothing is thrown: ephpm_throw_store_error warns itself.) */
static zend_result warn_if_uncaught(zend_result result)
{
	zend_object *ex = EG(exception);
	if (result == SUCCESS || !ex || !instanceof_function(ex->ce, ephpm_kv_exception_ce) || code_can_catch()) {
		return result;
	}
	zval rv;
	zend_string *message = zval_get_string(zend_read_property_ex(zend_get_exception_base(ex), ex,
		ZSTR_KNOWN(ZEND_STR_MESSAGE), true, &rv));
	zend_clear_exception();
	php_error_docref(NULL, E_WARNING, "%s", ZSTR_VAL(message));
	zend_string_release(message);
	return result;
}

/* Gives the lock back with compare-and-delete: a lock that expired and was
 * taken by another request is left alone. */
static zend_result release_lock(const ephpm_kv_ops *ops, ephpm_session *session)
{
	zend_result result = SUCCESS;
	if (!session->lock_key) {
		return SUCCESS;
	}
	ephpm_kv_error err;
	if (ops->del_if_eq(STR_ARGS(session->lock_key), session->token, EPHPM_TOKEN_LEN, &err) < 0) {
		result = store_error(&err);
	}
	zend_string_release(session->lock_key);
	session->lock_key = NULL;
	return result;
}

/* One attempt of lock_and_read: the lock and, with it, the data. */
typedef struct {
	const ephpm_kv_ops *ops;
	zend_string *lock_key, *data_key;
	const char *token;
	int64_t lock_ttl_ns;
	int found;  /* 1 data found, 0 missing */
	size_t len; /* the data's length when found */
	char buf[EPHPM_GET_INLINE_SIZE];
} lock_read;

static int try_lock_and_get(void *ctx, ephpm_kv_error *err)
{
	lock_read *r = ctx;
	int rc = r->ops->lock_and_get(STR_ARGS(r->lock_key), r->token, EPHPM_TOKEN_LEN, r->lock_ttl_ns,
		STR_ARGS(r->data_key), r->buf, sizeof r->buf, &r->len, err);
	if (rc <= 0) {
		return rc; /* held, or a store error */
	}
	r->found = rc == 2;
	return 1;
}

/* A read's result as session data: a store error fails, no data is empty. */
static zend_result data_read(zend_string **val, int rc, const ephpm_kv_error *err)
{
	if (rc < 0) {
		return store_error(err);
	}
	if (!*val) {
		*val = ZSTR_EMPTY_ALLOC();
	}
	return SUCCESS;
}

/* The session's data, read with a plain get (not locked, or already). */
static zend_result read_data(const ephpm_kv_ops *ops, zend_string *data_key, zend_string **val)
{
	ephpm_kv_error err;
	int rc;
	*val = ephpm_get(ops, STR_ARGS(data_key), &rc, &err);
	return data_read(val, rc, &err);
}

/* Takes the session's lock and reads its data, in one call per attempt.
 * When the lock stays taken for ephpm.session_lock_wait: fails, or reads
 * without the lock (ephpm.session_lock_timeout_fail = 0), with a warning. */
static zend_result lock_and_read(const ephpm_kv_ops *ops, ephpm_session *session, zend_string *sid,
	zend_string *data_key, zend_string **val)
{
	if (!ephpm_new_token(session->token)) {
		return FAILURE;
	}
	lock_read r = {
		.ops = ops, .lock_key = LOCK_KEY(sid), .data_key = data_key, .token = session->token,
		.lock_ttl_ns = lock_ttl_ns(),
	};
	double wait = EPHPM_G(session_lock_wait);
	ephpm_acquire_result rc = ephpm_acquire_with(try_lock_and_get, &r, ops, STR_ARGS(r.lock_key), lock_wait_ns());
	if (rc == EPHPM_ACQUIRE_OK) {
		session->lock_key = r.lock_key;
		if (!r.found) {
			*val = ZSTR_EMPTY_ALLOC();
			return SUCCESS;
		}
		if (r.len <= sizeof r.buf) {
			*val = zend_string_init(r.buf, r.len, 0);
			return SUCCESS;
		}
		ephpm_kv_error err;
		int get_rc;
		/* NULL when gone meanwhile: only a non-locking writer does that */
		*val = ephpm_get_large(ops, STR_ARGS(data_key), r.len, &get_rc, &err);
		return data_read(val, get_rc, &err);
	}
	zend_string_release(r.lock_key);
	if (rc == EPHPM_ACQUIRE_ERROR) {
		return FAILURE;
	}
	zend_string *shown = ephpm_escape(STR_ARGS(sid));
	if (EPHPM_G(session_lock_timeout_fail)) {
		php_error_docref(NULL, E_WARNING, "Could not lock session %s within %.3F seconds "
			"(ephpm.session_lock_wait): another request holds it", ZSTR_VAL(shown), wait);
		zend_string_release(shown);
		return FAILURE;
	}
	php_error_docref(NULL, E_WARNING, "Could not lock session %s within %.3F seconds "
		"(ephpm.session_lock_wait): proceeding without the lock, so a concurrent request's "
		"changes to this session may be lost", ZSTR_VAL(shown), wait);
	zend_string_release(shown);
	return read_data(ops, data_key, val);
}

/* The lock was lost before a write: say so and forget it (it is not ours
 * to release any more). */
static zend_result lost_lock(ephpm_session *session, zend_string *sid)
{
	zend_string *shown = ephpm_escape(STR_ARGS(sid));
	php_error_docref(NULL, E_WARNING, "Session %s was not written: its lock expired "
		"(ephpm.session_lock_ttl = %.3F seconds) and another request may hold it now",
		ZSTR_VAL(shown), EPHPM_G(session_lock_ttl));
	zend_string_release(shown);
	zend_string_release(session->lock_key);
	session->lock_key = NULL;
	return FAILURE;
}

/* Before a timestamp update: still ours? Renewing proves it and keeps it. */
static zend_result renew_lock(const ephpm_kv_ops *ops, ephpm_session *session, zend_string *sid)
{
	if (!session->lock_key) {
		return SUCCESS;
	}
	ephpm_kv_error err;
	int rc = ops->expire_if_eq(STR_ARGS(session->lock_key), session->token, EPHPM_TOKEN_LEN,
		lock_ttl_ns(), &err);
	if (rc < 0) {
		return store_error(&err);
	}
	return rc == 0 ? lost_lock(session, sid) : SUCCESS;
}

static zend_result write_data(const ephpm_kv_ops *ops, zend_string *sid, zend_string *val, zend_long maxlifetime)
{
	ephpm_kv_error err;
	zend_string *data_key = DATA_KEY(sid);
	int rc = ops->set(STR_ARGS(data_key), STR_ARGS(val), lifetime_ns(maxlifetime), &err);
	zend_string_release(data_key);
	return rc < 0 ? store_error(&err) : SUCCESS;
}

/* 1 exists, 0 not, -1 store error (exception pending). */
static int data_exists(const ephpm_kv_ops *ops, zend_string *sid)
{
	ephpm_kv_error err;
	zend_string *data_key = DATA_KEY(sid);
	int rc = ops->exists(STR_ARGS(data_key), &err);
	zend_string_release(data_key);
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		return -1;
	}
	return rc;
}

/* Whether sid fits in our keys (session_lock:<sid> is the longer one). A
 * cookie can carry any length; characters are PHP's to check. */
static bool sid_usable(const zend_string *sid)
{
	return ZSTR_LEN(sid) <= EPHPM_KV_MAX_KEY_SIZE - (sizeof(LOCK_PREFIX) - 1);
}

PS_OPEN_FUNC(ephpm)
{
	/* PHP opens the handler before it looks at the id: dropping an id that
	 * cannot be a key here makes PHP issue a new one, as for no id at all,
	 * in strict mode or not, instead of failing on the key later. */
	if (PS(id) && !sid_usable(PS(id))) {
		zend_string_release(PS(id));
		PS(id) = NULL;
	}
	PS_SET_MOD_DATA(ecalloc(1, sizeof(ephpm_session)));
	return SUCCESS;
}

static zend_result close_session(void **mod_data)
{
	ephpm_session *session = PS_GET_MOD_DATA();
	zend_result result = SUCCESS;
	if (!session) {
		return SUCCESS;
	}
	if (session->lock_key && ephpm_library_forked()) {
		/* the parent's lock: it releases it, this child only forgets it */
		zend_string_release(session->lock_key);
		session->lock_key = NULL;
	} else if (session->lock_key) {
		const ephpm_kv_ops *ops = ephpm_ops();
		result = ops ? release_lock(ops, session) : FAILURE;
		if (session->lock_key) {
			zend_string_release(session->lock_key);
		}
	}
	efree(session);
	PS_SET_MOD_DATA(NULL);
	return result;
}

PS_CLOSE_FUNC(ephpm)
{
	return warn_if_uncaught(close_session(mod_data));
}

static zend_result read_session(void **mod_data, zend_string *key, zend_string **val)
{
	ephpm_session *session = PS_GET_MOD_DATA();
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		return FAILURE;
	}
	zend_string *data_key = DATA_KEY(key);
	zend_result result = EPHPM_G(session_locking) && !session->lock_key
		? lock_and_read(ops, session, key, data_key, val)
		: read_data(ops, data_key, val);
	zend_string_release(data_key);
	return result;
}

PS_READ_FUNC(ephpm)
{
	return warn_if_uncaught(read_session(mod_data, key, val));
}

static zend_result write_session(void **mod_data, zend_string *key, zend_string *val, zend_long maxlifetime)
{
	ephpm_session *session = PS_GET_MOD_DATA();
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		return FAILURE;
	}
	if (!session->lock_key) {
		return write_data(ops, key, val, maxlifetime);
	}
	/* Renew, write and release in one call: nothing is written once the
	 * lock is lost. PHP closes the session right after every write
	 * (session_write_close(), the request's end, session_regenerate_id()),
	 * so the lock is given back here, after the write, instead of in
	 * close: one round trip fewer. */
	ephpm_kv_error err;
	zend_string *data_key = DATA_KEY(key);
	int rc = ops->set_if_locked(STR_ARGS(data_key), STR_ARGS(val), lifetime_ns(maxlifetime),
		STR_ARGS(session->lock_key), session->token, EPHPM_TOKEN_LEN, lock_ttl_ns(), 1, &err);
	zend_string_release(data_key);
	if (rc < 0) {
		return store_error(&err); /* close still releases */
	}
	if (rc == 0) {
		return lost_lock(session, key);
	}
	zend_string_release(session->lock_key);
	session->lock_key = NULL;
	return SUCCESS;
}

PS_WRITE_FUNC(ephpm)
{
	return warn_if_uncaught(write_session(mod_data, key, val, maxlifetime));
}

PS_DESTROY_FUNC(ephpm)
{
	ephpm_session *session = PS_GET_MOD_DATA();
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		return FAILURE;
	}
	ephpm_kv_error err;
	zend_string *data_key = DATA_KEY(key);
	int rc = ops->del(STR_ARGS(data_key), &err);
	zend_string_release(data_key);
	if (rc < 0) {
		return store_error(&err);
	}
	return release_lock(ops, session);
}

PS_GC_FUNC(ephpm)
{
	/* Every session carries a TTL: expiry does the collecting. */
	*nrdels = 0;
	return 0;
}

PS_CREATE_SID_FUNC(ephpm)
{
	const ephpm_kv_ops *ops = ephpm_ops();
	for (int attempt = 0; attempt < 3; attempt++) {
		zend_string *sid = php_session_create_id(mod_data);
		int exists = ops ? data_exists(ops, sid) : -1;
		if (exists == 0) {
			return sid;
		}
		if (exists < 0 && !code_can_catch()) {
			/* Before the script (session.auto_start) PHP would end the
			 * request on NULL ("Failed to create session ID"): after the
			 * warning, an id the store could not check, whose read then
			 * fails the session, not the request. */
			warn_if_uncaught(FAILURE);
			return sid;
		}
		zend_string_release(sid);
		if (exists < 0) {
			return NULL;
		}
	}
	php_error_docref(NULL, E_WARNING, "Could not create a session ID that is not in use after 3 attempts");
	return NULL;
}

PS_VALIDATE_SID_FUNC(ephpm)
{
	if (!sid_usable(key)) {
		return FAILURE;
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	return warn_if_uncaught(ops && data_exists(ops, key) == 1 ? SUCCESS : FAILURE);
}

static zend_result update_timestamp(void **mod_data, zend_string *key, zend_string *val, zend_long maxlifetime)
{
	if (ephpm_library_forked()) {
		/* Unchanged data in a child forked with the session open: the
		 * parent keeps it alive; failing here would be noise at exit. */
		return SUCCESS;
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops || renew_lock(ops, PS_GET_MOD_DATA(), key) == FAILURE) {
		return FAILURE;
	}
	ephpm_kv_error err;
	zend_string *data_key = DATA_KEY(key);
	int rc = ops->expire(STR_ARGS(data_key), lifetime_ns(maxlifetime), &err);
	zend_string_release(data_key);
	if (rc < 0) {
		return store_error(&err);
	}
	/* Gone meanwhile (expired, or never written because it was empty). */
	return rc == 1 ? SUCCESS : write_data(ops, key, val, maxlifetime);
}

PS_UPDATE_TIMESTAMP_FUNC(ephpm)
{
	return warn_if_uncaught(update_timestamp(mod_data, key, val, maxlifetime));
}

const ps_module ps_mod_ephpm = {
	PS_MOD_UPDATE_TIMESTAMP(ephpm)
};
