/* One key held by a token, for Ephpm\Lock and Ephpm\Leader (see
 * ephpm_keyhold.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"

#include "php_ephpm.h"
#include "ephpm_args.h"
#include "ephpm_holder.h"
#include "ephpm_keyhold.h"
#include "ephpm_library.h"

static zend_object_handlers keyhold_handlers;

/* Until ephpm_keyhold_new() gives the object its own. */
static const ephpm_holder_kind unheld_kind = EPHPM_KEYHOLD_KIND(NULL);

static zend_always_inline ephpm_keyhold *keyhold_of(ephpm_holder *h)
{
	return (ephpm_keyhold *)((char *)h - XtOffsetOf(ephpm_keyhold, h));
}

/* Stops the watchdog. Not in a forked child (no ops there): the watchdog
 * runs in the parent, whose hold it is, and no Go thread exists here. */
void ephpm_keyhold_stop_watch(ephpm_holder *h)
{
	ephpm_keyhold *k = keyhold_of(h);
	const ephpm_kv_ops *ops = ephpm_library_ops;
	if (k->watch && ops) {
		ephpm_kv_error err;
		ops->unwatch(k->watch, &err);
	}
	k->watch = 0;
}

/* Compare-and-delete. 1 released, 0 no longer ours, -1 store error. */
int ephpm_keyhold_give_back(ephpm_holder *h, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	ephpm_keyhold_stop_watch(h); /* no renewal once the holder lets go, even if the delete fails */
	return ops->del_if_eq(STR_ARGS(h->name), STR_ARGS(h->token), err);
}

static zend_object *keyhold_create(zend_class_entry *ce)
{
	ephpm_keyhold *k = zend_object_alloc(sizeof(ephpm_keyhold), ce);
	zend_object_std_init(&k->std, ce);
	object_properties_init(&k->std, ce);
	k->std.handlers = &keyhold_handlers;
	ephpm_holder_init(&k->h, &unheld_kind, &k->std); /* released until ephpm_keyhold_new() fills it in */
	return &k->std;
}

/* A forgotten release() or an exception must not hold the key until it
 * expires. After a fatal error or max_execution_time PHP skips destructors
 * but still frees objects, some before RSHUTDOWN (globals), some after it:
 * the free handler and RSHUTDOWN give back what is left. */
static void keyhold_dtor(zend_object *obj)
{
	zend_objects_destroy_object(obj);
	ephpm_holder_release_unused(&ephpm_keyhold_from(obj)->h, "on destruction");
}

static void keyhold_free(zend_object *obj)
{
	ephpm_holder_free(&ephpm_keyhold_from(obj)->h);
	zend_object_std_dtor(obj);
}

void ephpm_keyhold_init_class(zend_class_entry *ce)
{
	ce->create_object = keyhold_create;
	if (keyhold_handlers.offset == 0) {
		memcpy(&keyhold_handlers, &std_object_handlers, sizeof(zend_object_handlers));
		keyhold_handlers.offset = XtOffsetOf(ephpm_keyhold, std);
		keyhold_handlers.dtor_obj = keyhold_dtor;
		keyhold_handlers.free_obj = keyhold_free;
		keyhold_handlers.clone_obj = NULL;
	}
}

ephpm_keyhold *ephpm_keyhold_new(zend_class_entry *ce, const ephpm_holder_kind *kind, zval *zv, zend_string *key,
	const char *token, size_t token_len, int64_t ttl_ns)
{
	object_init_ex(zv, ce);
	ephpm_keyhold *k = ephpm_keyhold_from(Z_OBJ_P(zv));
	k->h.kind = kind;
	ephpm_holder_hold(&k->h, key, token, token_len, ttl_ns, &EPHPM_G(held_locks));
	return k;
}

bool ephpm_keyhold_watch(zval *zv, const ephpm_kv_ops *ops, int64_t max_hold_ns)
{
	ephpm_keyhold *k = ephpm_keyhold_from(Z_OBJ_P(zv));
	ephpm_kv_error err;
	if (ops->watch(STR_ARGS(k->h.name), STR_ARGS(k->h.token), k->h.ttl_ns, max_hold_ns, &k->watch, &err) < 0) {
		ephpm_throw_store_error(&err);
		zval_ptr_dtor(zv); /* its destructor gives the key back */
		ZVAL_UNDEF(zv);
		return false;
	}
	return true;
}

int ephpm_keyhold_refresh(ephpm_keyhold *k, const ephpm_kv_ops *ops, int64_t ttl_ns, ephpm_kv_error *err)
{
	if (k->h.released) {
		return 0;
	}
	return ops->expire_if_eq(STR_ARGS(k->h.name), STR_ARGS(k->h.token), ttl_ns ? ttl_ns : k->h.ttl_ns, err);
}

int ephpm_keyhold_held(ephpm_keyhold *k, const ephpm_kv_ops *ops, ephpm_kv_error *err)
{
	int64_t ttl_ns;
	if (k->h.released) {
		return 0;
	}
	if (ops->ttl_if_eq(STR_ARGS(k->h.name), STR_ARGS(k->h.token), &ttl_ns, err) < 0) {
		return -1;
	}
	return ttl_ns != EPHPM_KV_TTL_MISSING;
}

void ephpm_keyhold_refresh_method(INTERNAL_FUNCTION_PARAMETERS)
{
	double ttl;
	bool ttl_is_null = true;
	ZEND_PARSE_PARAMETERS_START(0, 1)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_is_null)
	ZEND_PARSE_PARAMETERS_END();
	ephpm_keyhold *k = ephpm_keyhold_from(Z_OBJ_P(ZEND_THIS));
	int64_t ttl_ns = 0;
	if (!ttl_is_null && !ephpm_ttl_arg(ttl, 1, false, &ttl_ns)) {
		RETURN_THROWS();
	}
	if (k->h.released) {
		RETURN_FALSE;
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	int rc = ephpm_keyhold_refresh(k, ops, ttl_ns, &err);
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_BOOL(rc);
}

void ephpm_keyhold_release_method(INTERNAL_FUNCTION_PARAMETERS)
{
	ZEND_PARSE_PARAMETERS_NONE();
	ephpm_holder_release_method(&ephpm_keyhold_from(Z_OBJ_P(ZEND_THIS))->h, ephpm_ops, return_value);
}

/* ns left while the key is ours, EPHPM_KV_TTL_MISSING otherwise; false
 * with an exception pending on a store error. */
static bool keyhold_ttl(ephpm_keyhold *k, int64_t *ttl_ns)
{
	*ttl_ns = EPHPM_KV_TTL_MISSING;
	if (k->h.released || ephpm_store_lost()) {
		return true; /* a hold on a segment others no longer see is not held */
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		return false;
	}
	ephpm_kv_error werr;
	if (k->watch && ops->watch_state(k->watch, &werr) == EPHPM_KV_WATCH_LOST) {
		return true; /* the watchdog's owner check failed: no round trip */
	}
	ephpm_kv_error err;
	if (ops->ttl_if_eq(STR_ARGS(k->h.name), STR_ARGS(k->h.token), ttl_ns, &err) < 0) {
		ephpm_throw_store_error(&err);
		return false;
	}
	return true;
}

void ephpm_keyhold_held_method(INTERNAL_FUNCTION_PARAMETERS)
{
	int64_t ttl_ns;
	ZEND_PARSE_PARAMETERS_NONE();
	if (!keyhold_ttl(ephpm_keyhold_from(Z_OBJ_P(ZEND_THIS)), &ttl_ns)) {
		RETURN_THROWS();
	}
	RETURN_BOOL(ttl_ns != EPHPM_KV_TTL_MISSING);
}

void ephpm_keyhold_remaining_method(INTERNAL_FUNCTION_PARAMETERS)
{
	int64_t ttl_ns;
	ZEND_PARSE_PARAMETERS_NONE();
	if (!keyhold_ttl(ephpm_keyhold_from(Z_OBJ_P(ZEND_THIS)), &ttl_ns)) {
		RETURN_THROWS();
	}
	RETURN_DOUBLE(ttl_ns > 0 ? (double)ttl_ns / EPHPM_NS_PER_SEC : 0.0);
}
