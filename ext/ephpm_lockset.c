/* Ephpm\Lock::acquireAll() and Ephpm\LockSet: several locks taken all or
 * nothing, in one canonical order, so that two callers asking for [a, b]
 * and [b, a] never wait on each other forever. Each member is a plain
 * Ephpm\Lock (its own token, fence, tracking and request-end release). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "php.h"
#include "zend_exceptions.h"

#include "php_ephpm.h"
#include "ephpm_acquire.h"
#include "ephpm_args.h"
#include "ephpm_escape.h"
#include "ephpm_library.h"
#include "ephpm_lock.h"
#include "ephpm_lockset.h"

zend_class_entry *ephpm_lockset_ce;
static zend_object_handlers lockset_handlers;

/* Property slot, as declared in the stub. */
#define PROP_LOCKS 0

typedef struct {
	/* The members every method uses, shared with the readonly property
	 * that shows them: ArrayObject, ArrayIterator and array_walk() can
	 * still replace that property (with anything), so it is never read. */
	zend_array *locks;
	zend_object std;
} ephpm_lockset;

static zend_always_inline ephpm_lockset *lockset_from(zend_object *obj)
{
	return (ephpm_lockset *)((char *)obj - XtOffsetOf(ephpm_lockset, std));
}

#define SET_LOCKS(obj) (lockset_from(obj)->locks)

static zend_object *lockset_create(zend_class_entry *ce)
{
	ephpm_lockset *set = zend_object_alloc(sizeof(ephpm_lockset), ce);
	zend_object_std_init(&set->std, ce);
	object_properties_init(&set->std, ce);
	set->std.handlers = &lockset_handlers;
	return &set->std;
}

/* A forgotten release() frees the members in reverse order too (each one
 * attempt, a warning on failure, as a Lock's destructor). */
static void lockset_dtor(zend_object *obj)
{
	zend_objects_destroy_object(obj);
	if (!SET_LOCKS(obj)) {
		return;
	}
	zval *member;
	ZEND_HASH_REVERSE_FOREACH_VAL(SET_LOCKS(obj), member) {
		ephpm_lock_release_unused(Z_OBJ_P(member), "on destruction");
	} ZEND_HASH_FOREACH_END();
}

static void lockset_free(zend_object *obj)
{
	if (SET_LOCKS(obj)) {
		zend_array_release(SET_LOCKS(obj));
	}
	zend_object_std_dtor(obj);
}

/* Bytewise, shorter first on a common prefix: the one order every caller
 * takes the names in. */
static int compare_names(const void *a, const void *b)
{
	const zend_string *x = *(zend_string *const *)a, *y = *(zend_string *const *)b;
	int c = memcmp(ZSTR_VAL(x), ZSTR_VAL(y), MIN(ZSTR_LEN(x), ZSTR_LEN(y)));
	if (c) {
		return c;
	}
	return ZSTR_LEN(x) < ZSTR_LEN(y) ? -1 : ZSTR_LEN(x) > ZSTR_LEN(y);
}

/* The names, checked and sorted (emalloc'd, borrowed strings); NULL with an
 * exception pending. */
static zend_string **sorted_names(HashTable *names, uint32_t *count)
{
	uint32_t n = zend_hash_num_elements(names);
	if (n == 0) {
		zend_argument_value_error(1, "must not be empty");
		return NULL;
	}
	zend_string **sorted = safe_emalloc(n, sizeof(zend_string *), 0);
	uint32_t i = 0;
	zval *zv;
	ZEND_HASH_FOREACH_VAL(names, zv) {
		ZVAL_DEREF(zv);
		if (Z_TYPE_P(zv) != IS_STRING) {
			zend_argument_type_error(1, "must contain only strings, %s given", zend_zval_type_name(zv));
			goto fail;
		}
		if (Z_STRLEN_P(zv) == 0) {
			zend_argument_value_error(1, "must not contain an empty name");
			goto fail;
		}
		if (Z_STRLEN_P(zv) > EPHPM_KV_MAX_KEY_SIZE) {
			zend_argument_value_error(1, "must not contain a name longer than %d bytes", EPHPM_KV_MAX_KEY_SIZE);
			goto fail;
		}
		sorted[i++] = Z_STR_P(zv);
	} ZEND_HASH_FOREACH_END();
	qsort(sorted, n, sizeof(zend_string *), compare_names);
	for (i = 1; i < n; i++) {
		if (zend_string_equals(sorted[i - 1], sorted[i])) {
			zend_string *shown = ephpm_escape(STR_ARGS(sorted[i]));
			zend_argument_value_error(1, "must not contain \"%s\" more than once", ZSTR_VAL(shown));
			zend_string_release(shown);
			goto fail;
		}
	}
	*count = n;
	return sorted;
fail:
	efree(sorted);
	return NULL;
}

/* Gives back what a failed acquireAll() took, newest first. After a store
 * error the rest are not tried (each would wait as long): their TTL frees
 * them. With an exception already pending (the store failed while
 * acquiring) a failed release is a warning; after a timeout it throws, as
 * null must mean only "someone else holds one". */
static void release_taken(const ephpm_kv_ops *ops, HashTable *taken)
{
	ephpm_kv_error err;
	bool gave_up = false;
	zval *member;
	ZEND_HASH_REVERSE_FOREACH_VAL(taken, member) {
		if (!gave_up && ephpm_lock_release(Z_OBJ_P(member), ops, &err) < 0) {
			gave_up = true;
			if (EG(exception)) {
				zend_string *shown = ephpm_escape(STR_ARGS(ephpm_lock_name(Z_OBJ_P(member))));
				php_error_docref(NULL, E_WARNING, "Could not release lock \"%s\" after a failed acquireAll(): %s",
					ZSTR_VAL(shown), err.message);
				zend_string_release(shown);
			} else {
				ephpm_throw_store_error(&err);
			}
		}
		if (gave_up) {
			ephpm_lock_abandon(Z_OBJ_P(member));
		}
	} ZEND_HASH_FOREACH_END();
}

ZEND_METHOD(Ephpm_Lock, acquireAll)
{
	HashTable *names;
	double ttl = 30, wait = 0;
	int64_t ttl_ns, wait_ns;
	uint32_t n;
	ZEND_PARSE_PARAMETERS_START(1, 3)
		Z_PARAM_ARRAY_HT(names)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE(ttl)
		Z_PARAM_DOUBLE(wait)
	ZEND_PARSE_PARAMETERS_END();
	zend_string **sorted = sorted_names(names, &n);
	if (!sorted) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = NULL;
	if (!ephpm_ttl_arg(ttl, 2, false, &ttl_ns) || !ephpm_wait_arg(wait, 3, &wait_ns) || !(ops = ephpm_ops())) {
		efree(sorted);
		RETURN_THROWS();
	}
	/* One deadline for the whole set (INT64_MAX: none), each member waiting
	 * only for what is left of it. */
	int64_t deadline = 0;
	if (wait_ns > 0) {
		int64_t now = ephpm_monotonic_ns();
		deadline = wait_ns > INT64_MAX - now ? INT64_MAX : now + wait_ns;
	}
	zval locks;
	array_init_size(&locks, n);
	ephpm_acquire_result rc = EPHPM_ACQUIRE_OK;
	for (uint32_t i = 0; i < n && rc == EPHPM_ACQUIRE_OK; i++) {
		int64_t left = 0;
		if (deadline == INT64_MAX) {
			left = INT64_MAX;
		} else if (deadline > 0) {
			int64_t now = ephpm_monotonic_ns();
			left = deadline > now ? deadline - now : 0; /* 0: one last try */
		}
		zval member;
		rc = ephpm_lock_take(ops, sorted[i], ttl_ns, left, &member);
		if (rc == EPHPM_ACQUIRE_OK) {
			zend_symtable_add_new(Z_ARRVAL(locks), sorted[i], &member);
		}
	}
	efree(sorted);
	if (rc != EPHPM_ACQUIRE_OK) {
		release_taken(ops, Z_ARRVAL(locks));
		zval_ptr_dtor(&locks);
		if (EG(exception)) {
			RETURN_THROWS();
		}
		RETURN_NULL();
	}
	object_init_ex(return_value, ephpm_lockset_ce);
	SET_LOCKS(Z_OBJ_P(return_value)) = Z_ARRVAL(locks);
	GC_ADDREF(Z_ARRVAL(locks));
	ZVAL_COPY_VALUE(OBJ_PROP_NUM(Z_OBJ_P(return_value), PROP_LOCKS), &locks);
}

ZEND_METHOD(Ephpm_LockSet, __construct)
{
	/* private: sets come from Lock::acquireAll() */
}

ZEND_METHOD(Ephpm_LockSet, get)
{
	zend_string *name;
	ZEND_PARSE_PARAMETERS_START(1, 1)
		Z_PARAM_STR(name)
	ZEND_PARSE_PARAMETERS_END();
	zval *member = zend_symtable_find(SET_LOCKS(Z_OBJ_P(ZEND_THIS)), name);
	if (!member) {
		zend_argument_value_error(1, "is not a member of this set");
		RETURN_THROWS();
	}
	RETURN_COPY(member);
}

/* Releases newest first. A store error throws at once: the members not yet
 * tried stay held (and tracked, so the destructor or the request's end
 * tries them again). */
ZEND_METHOD(Ephpm_LockSet, release)
{
	ZEND_PARSE_PARAMETERS_NONE();
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	bool all = true;
	ephpm_kv_error err;
	zval *member;
	ZEND_HASH_REVERSE_FOREACH_VAL(SET_LOCKS(Z_OBJ_P(ZEND_THIS)), member) {
		int rc = ephpm_lock_release(Z_OBJ_P(member), ops, &err);
		if (rc < 0) {
			ephpm_throw_store_error(&err);
			RETURN_THROWS();
		}
		all = all && rc == 1;
	} ZEND_HASH_FOREACH_END();
	RETURN_BOOL(all);
}

/* Renews every member still ours, also after finding one lost (the caller
 * decides what a broken set means). */
ZEND_METHOD(Ephpm_LockSet, refresh)
{
	double ttl;
	bool ttl_is_null = true;
	int64_t ttl_ns = 0;
	ZEND_PARSE_PARAMETERS_START(0, 1)
		Z_PARAM_OPTIONAL
		Z_PARAM_DOUBLE_OR_NULL(ttl, ttl_is_null)
	ZEND_PARSE_PARAMETERS_END();
	if (!ttl_is_null && !ephpm_ttl_arg(ttl, 1, false, &ttl_ns)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	bool all = true;
	ephpm_kv_error err;
	zval *member;
	ZEND_HASH_FOREACH_VAL(SET_LOCKS(Z_OBJ_P(ZEND_THIS)), member) {
		int rc = ephpm_lock_refresh(Z_OBJ_P(member), ops, ttl_ns, &err);
		if (rc < 0) {
			ephpm_throw_store_error(&err);
			RETURN_THROWS();
		}
		all = all && rc == 1;
	} ZEND_HASH_FOREACH_END();
	RETURN_BOOL(all);
}

ZEND_METHOD(Ephpm_LockSet, isAcquired)
{
	ZEND_PARSE_PARAMETERS_NONE();
	if (ephpm_store_lost()) {
		RETURN_FALSE; /* as Ephpm\Lock's */
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	zval *member;
	ZEND_HASH_FOREACH_VAL(SET_LOCKS(Z_OBJ_P(ZEND_THIS)), member) {
		int rc = ephpm_lock_held(Z_OBJ_P(member), ops, &err);
		if (rc < 0) {
			ephpm_throw_store_error(&err);
			RETURN_THROWS();
		}
		if (rc == 0) {
			RETURN_FALSE;
		}
	} ZEND_HASH_FOREACH_END();
	RETURN_TRUE;
}

void ephpm_lockset_init_class(zend_class_entry *ce)
{
	ephpm_lockset_ce = ce;
	ce->create_object = lockset_create;
	memcpy(&lockset_handlers, &std_object_handlers, sizeof(zend_object_handlers));
	lockset_handlers.offset = XtOffsetOf(ephpm_lockset, std);
	lockset_handlers.dtor_obj = lockset_dtor;
	lockset_handlers.free_obj = lockset_free;
	lockset_handlers.clone_obj = NULL;
}
