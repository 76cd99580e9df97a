/* ephpm_kv_*: argument checks and PHP types around the ops table. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "zend_exceptions.h"

#include "php_ephpm.h"
#include "ephpm_library.h"
#include "ephpm_args.h"
#include "ephpm_get.h"

/* Fetches the ops table or returns (an exception is pending). */
#define EPHPM_OPS(ops) \
	const ephpm_kv_ops *ops = ephpm_ops(); \
	if (UNEXPECTED(!ops)) { RETURN_THROWS(); }

/* A negative rc throws; otherwise returns rc as bool. */
#define RETURN_RC_BOOL(rc, err) do { \
	if (UNEXPECTED((rc) < 0)) { ephpm_throw_store_error(&(err)); RETURN_THROWS(); } \
	RETURN_BOOL(rc); } while (0)

/* What the functions of one key pass to their op and get back. */
typedef struct {
	zend_long by;   /* incr */
	int64_t ttl_ns; /* incr */
	int64_t out;    /* ttl, incr */
} key_call;

typedef int (*key_op)(const ephpm_kv_ops *ops, zend_string *key, key_call *c, ephpm_kv_error *err);

/* parse -> ops -> throw, once for the functions of one key (as APCu's
 * apc_store_helper serves its stores). Arguments: (string $key), or with
 * counter incr's (string $key, int $by = 1, int|float $ttl = 0). Returns
 * op's result (>= 0), or -1 with an exception pending. */
static zend_always_inline int key_helper(INTERNAL_FUNCTION_PARAMETERS, key_op op, bool counter, key_call *c)
{
	zend_string *key;
	zval *ttl = NULL;
	c->by = 1;
	c->ttl_ns = 0;
	ZEND_PARSE_PARAMETERS_START(1, counter ? 3 : 1)
		Z_PARAM_STR(key)
		Z_PARAM_OPTIONAL
		Z_PARAM_LONG(c->by)
		Z_PARAM_NUMBER(ttl)
	ZEND_PARSE_PARAMETERS_END_EX(return -1);
	if (!ephpm_check_key(key, 1) || (ttl && !ephpm_number_ttl_arg(ttl, 3, &c->ttl_ns))) {
		return -1;
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (UNEXPECTED(!ops)) {
		return -1;
	}
	ephpm_kv_error err;
	int rc = op(ops, key, c, &err);
	if (UNEXPECTED(rc < 0)) {
		ephpm_throw_store_error(&err);
		return -1;
	}
	return rc;
}

static int op_del(const ephpm_kv_ops *ops, zend_string *key, key_call *c, ephpm_kv_error *err)
{
	return ops->del(STR_ARGS(key), err);
}

static int op_exists(const ephpm_kv_ops *ops, zend_string *key, key_call *c, ephpm_kv_error *err)
{
	return ops->exists(STR_ARGS(key), err);
}

static int op_ttl(const ephpm_kv_ops *ops, zend_string *key, key_call *c, ephpm_kv_error *err)
{
	return ops->ttl(STR_ARGS(key), &c->out, err);
}

static int op_incr(const ephpm_kv_ops *ops, zend_string *key, key_call *c, ephpm_kv_error *err)
{
	return ops->incr(STR_ARGS(key), c->by, c->ttl_ns, &c->out, err);
}

PHP_FUNCTION(ephpm_kv_get)
{
	zend_string *key, *value;
	ZEND_PARSE_PARAMETERS_START(1, 1)
		Z_PARAM_STR(key)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc;
	if ((value = ephpm_get(ops, STR_ARGS(key), &rc, &err))) {
		RETURN_NEW_STR(value);
	}
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_NULL();
}

/* The keys of get_multi's array, checked (borrowed strings, emalloc'd
 * arrays); false with an exception pending. */
static bool multi_keys(HashTable *keys, zend_string ***strs, const char ***ptrs, size_t **lens)
{
	uint32_t n = zend_hash_num_elements(keys), i = 0;
	*strs = safe_emalloc(n, sizeof(zend_string *), 0);
	*ptrs = safe_emalloc(n, sizeof(char *), 0);
	*lens = safe_emalloc(n, sizeof(size_t), 0);
	zval *zv;
	ZEND_HASH_FOREACH_VAL(keys, zv) {
		ZVAL_DEREF(zv);
		if (Z_TYPE_P(zv) != IS_STRING) {
			zend_argument_type_error(1, "must contain only strings, %s given", zend_zval_type_name(zv));
			goto fail;
		}
		if (Z_STRLEN_P(zv) == 0) {
			zend_argument_value_error(1, "must not contain an empty key");
			goto fail;
		}
		if (Z_STRLEN_P(zv) > EPHPM_KV_MAX_KEY_SIZE) {
			zend_argument_value_error(1, "must not contain a key longer than %d bytes", EPHPM_KV_MAX_KEY_SIZE);
			goto fail;
		}
		(*strs)[i] = Z_STR_P(zv);
		(*ptrs)[i] = Z_STRVAL_P(zv);
		(*lens)[i] = Z_STRLEN_P(zv);
		i++;
	} ZEND_HASH_FOREACH_END();
	return true;
fail:
	efree(*strs);
	efree(*ptrs);
	efree(*lens);
	return false;
}

/* How many of the keys were live and went, in one crossing into the store
 * (a loop of dels on a library older than del_multi). */
PHP_FUNCTION(ephpm_kv_del_multi)
{
	HashTable *keys;
	ZEND_PARSE_PARAMETERS_START(1, 1)
		Z_PARAM_ARRAY_HT(keys)
	ZEND_PARSE_PARAMETERS_END();
	uint32_t n = zend_hash_num_elements(keys);
	if (n == 0) {
		RETURN_LONG(0);
	}
	zend_string **strs;
	const char **ptrs;
	size_t *lens;
	if (!multi_keys(keys, &strs, &ptrs, &lens)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	ephpm_kv_error err;
	int64_t deleted = 0;
	int rc = 1;
	if (ops && EPHPM_OPS_HAS(ops, del_multi)) {
		rc = ops->del_multi(n, ptrs, lens, &deleted, &err);
	} else if (ops) {
		for (uint32_t i = 0; i < n && rc >= 0; i++) {
			rc = ops->del(ptrs[i], lens[i], &err);
			deleted += rc > 0;
		}
	}
	efree(strs);
	efree(ptrs);
	efree(lens);
	if (!ops) {
		RETURN_THROWS();
	}
	if (rc < 0) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	RETURN_LONG(deleted);
}

/* key => value for the keys found, in one crossing into the store (a loop
 * of gets on a library older than get_multi). */
PHP_FUNCTION(ephpm_kv_get_multi)
{
	HashTable *keys;
	ZEND_PARSE_PARAMETERS_START(1, 1)
		Z_PARAM_ARRAY_HT(keys)
	ZEND_PARSE_PARAMETERS_END();
	uint32_t n = zend_hash_num_elements(keys);
	if (n == 0) {
		RETURN_EMPTY_ARRAY();
	}
	zend_string **strs;
	const char **ptrs;
	size_t *lens;
	if (!multi_keys(keys, &strs, &ptrs, &lens)) {
		RETURN_THROWS();
	}
	const ephpm_kv_ops *ops = ephpm_ops();
	if (!ops) {
		efree(strs);
		efree(ptrs);
		efree(lens);
		RETURN_THROWS();
	}
	ephpm_kv_error err;
	array_init_size(return_value, n);
	if (!EPHPM_OPS_HAS(ops, get_multi)) {
		for (uint32_t i = 0; i < n; i++) {
			int rc;
			zend_string *value = ephpm_get(ops, ptrs[i], lens[i], &rc, &err);
			if (rc < 0) {
				goto store_error;
			}
			if (value) {
				zval zv;
				ZVAL_STR(&zv, value);
				zend_symtable_update(Z_ARRVAL_P(return_value), strs[i], &zv);
			}
		}
		goto done;
	}
	int64_t *vlens = safe_emalloc(n, sizeof(int64_t), 0);
	size_t cap = MIN((size_t)n * 256, 64 * 1024), need = 0;
	char *buf = emalloc(cap);
	int rc;
	while ((rc = ops->get_multi(n, ptrs, lens, buf, cap, vlens, &need, &err)) == 0) {
		cap = need; /* they may grow again before the next try: loop */
		buf = erealloc(buf, cap);
	}
	if (rc > 0) {
		size_t at = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (vlens[i] >= 0) {
				zval zv;
				ZVAL_STRINGL_FAST(&zv, buf + at, (size_t)vlens[i]);
				zend_symtable_update(Z_ARRVAL_P(return_value), strs[i], &zv);
				at += (size_t)vlens[i];
			}
		}
	}
	efree(buf);
	efree(vlens);
	if (rc < 0) {
		goto store_error;
	}
done:
	efree(strs);
	efree(ptrs);
	efree(lens);
	return;
store_error:
	efree(strs);
	efree(ptrs);
	efree(lens);
	zval_ptr_dtor(return_value);
	ZVAL_UNDEF(return_value);
	ephpm_throw_store_error(&err);
	RETURN_THROWS();
}

/* set, setnx and add share their arguments; set and add also take
 * $evictable (setnx writes a lock: always held). */
typedef enum { STORE_SET, STORE_SETNX, STORE_ADD } store_mode;

static void store_value(INTERNAL_FUNCTION_PARAMETERS, store_mode mode)
{
	zend_string *key, *value;
	zval *ttl = NULL;
	bool evictable = false;
	int64_t ttl_ns = 0;
	ZEND_PARSE_PARAMETERS_START(2, mode == STORE_SETNX ? 3 : 4)
		Z_PARAM_STR(key)
		Z_PARAM_STR(value)
		Z_PARAM_OPTIONAL
		Z_PARAM_NUMBER(ttl)
		Z_PARAM_BOOL(evictable)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1) || (ttl && !ephpm_number_ttl_arg(ttl, 3, &ttl_ns))) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc;
	if (mode == STORE_SET) {
		rc = evictable && EPHPM_OPS_HAS(ops, set_evictable)
			? ops->set_evictable(STR_ARGS(key), STR_ARGS(value), ttl_ns, &err)
			: ops->set(STR_ARGS(key), STR_ARGS(value), ttl_ns, &err);
	} else if (mode == STORE_ADD && evictable && EPHPM_OPS_HAS(ops, setnx_evictable)) {
		rc = ops->setnx_evictable(STR_ARGS(key), STR_ARGS(value), ttl_ns, &err);
	} else {
		rc = ops->setnx(STR_ARGS(key), STR_ARGS(value), ttl_ns, &err);
	}
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_set)
{
	store_value(INTERNAL_FUNCTION_PARAM_PASSTHRU, STORE_SET);
}

PHP_FUNCTION(ephpm_kv_setnx)
{
	store_value(INTERNAL_FUNCTION_PARAM_PASSTHRU, STORE_SETNX);
}

PHP_FUNCTION(ephpm_kv_add)
{
	store_value(INTERNAL_FUNCTION_PARAM_PASSTHRU, STORE_ADD);
}

PHP_FUNCTION(ephpm_kv_del)
{
	key_call c;
	int rc = key_helper(INTERNAL_FUNCTION_PARAM_PASSTHRU, op_del, false, &c);
	if (rc < 0) {
		RETURN_THROWS();
	}
	RETURN_LONG(rc);
}

PHP_FUNCTION(ephpm_kv_del_if_eq)
{
	zend_string *key, *token;
	ZEND_PARSE_PARAMETERS_START(2, 2)
		Z_PARAM_STR(key)
		Z_PARAM_STR(token)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->del_if_eq(STR_ARGS(key), STR_ARGS(token), &err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_exists)
{
	key_call c;
	int rc = key_helper(INTERNAL_FUNCTION_PARAM_PASSTHRU, op_exists, false, &c);
	if (rc < 0) {
		RETURN_THROWS();
	}
	RETURN_BOOL(rc);
}

PHP_FUNCTION(ephpm_kv_expire)
{
	zend_string *key;
	zval *ttl;
	int64_t ttl_ns;
	ZEND_PARSE_PARAMETERS_START(2, 2)
		Z_PARAM_STR(key)
		Z_PARAM_NUMBER(ttl)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1) || !ephpm_number_ttl_arg(ttl, 2, &ttl_ns)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->expire(STR_ARGS(key), ttl_ns, &err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_expire_if_eq)
{
	zend_string *key, *token;
	zval *ttl;
	int64_t ttl_ns;
	ZEND_PARSE_PARAMETERS_START(3, 3)
		Z_PARAM_STR(key)
		Z_PARAM_STR(token)
		Z_PARAM_NUMBER(ttl)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(key, 1) || !ephpm_number_ttl_arg(ttl, 3, &ttl_ns)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->expire_if_eq(STR_ARGS(key), STR_ARGS(token), ttl_ns, &err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_ttl)
{
	key_call c;
	if (key_helper(INTERNAL_FUNCTION_PARAM_PASSTHRU, op_ttl, false, &c) < 0) {
		RETURN_THROWS();
	}
	if (c.out == EPHPM_KV_TTL_PERSISTENT || c.out == EPHPM_KV_TTL_MISSING) {
		RETURN_LONG(c.out);
	}
	RETURN_DOUBLE((double)c.out / EPHPM_NS_PER_SEC);
}

PHP_FUNCTION(ephpm_kv_incr)
{
	key_call c;
	if (key_helper(INTERNAL_FUNCTION_PARAM_PASSTHRU, op_incr, true, &c) < 0) {
		RETURN_THROWS();
	}
	RETURN_LONG(c.out);
}

PHP_FUNCTION(ephpm_kv_flush)
{
	ZEND_PARSE_PARAMETERS_NONE();
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->flush(&err);
	RETURN_RC_BOOL(rc, err);
}

PHP_FUNCTION(ephpm_kv_stats)
{
	ZEND_PARSE_PARAMETERS_NONE();
	EPHPM_OPS(ops);
	ephpm_kv_stats st;
	ephpm_kv_error err;
	if (UNEXPECTED(ops->stats(&st, &err) < 0)) {
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	array_init_size(return_value, 16);
	add_assoc_string(return_value, "engine", ephpm_engine_name(ephpm_library_engine()));
	add_assoc_long(return_value, "keys", st.keys);
	add_assoc_long(return_value, "bytes_used", st.bytes_used);
	add_assoc_long(return_value, "bytes_limit", st.bytes_limit);
	add_assoc_long(return_value, "hits", st.hits);
	add_assoc_long(return_value, "misses", st.misses);
	add_assoc_long(return_value, "expired", st.expired);
	add_assoc_long(return_value, "rejected", st.rejected);
	add_assoc_long(return_value, "compressed", st.compressed);
	add_assoc_long(return_value, "max_value_size", st.max_value_size);
	add_assoc_long(return_value, "compress_min", st.compress_min);
	add_assoc_long(return_value, "fences", st.fences);
	add_assoc_long(return_value, "quarantined", st.quarantined);
	add_assoc_long(return_value, "evicted", st.evicted);
	add_assoc_long(return_value, "bytes_evictable", st.bytes_evictable);
}

PHP_FUNCTION(ephpm_kv_fence)
{
	zend_string *resource;
	zend_long fence;
	ZEND_PARSE_PARAMETERS_START(2, 2)
		Z_PARAM_STR(resource)
		Z_PARAM_LONG(fence)
	ZEND_PARSE_PARAMETERS_END();
	if (!ephpm_check_key(resource, 1)) {
		RETURN_THROWS();
	}
	EPHPM_OPS(ops);
	ephpm_kv_error err;
	int rc = ops->fence(STR_ARGS(resource), fence, &err);
	RETURN_RC_BOOL(rc, err);
}

/* scan()'s kinds by EPHPM_KV_KIND_*: kv.KeyKind's names (go/capi's
 * scan_test.go holds them to Go's). */
static const char *const scan_kinds[] = {
	[EPHPM_KV_KIND_VALUE] = "value",
	[EPHPM_KV_KIND_EVICTABLE] = "evictable",
	[EPHPM_KV_KIND_LEASES] = "leases",
	[EPHPM_KV_KIND_RATELOG] = "ratelog",
};

/* The keys of scan()'s buffer, from at, into out as key => ['kind' =>,
 * 'ttl' =>, 'size' =>, 'fence' =>]; false when they do not parse. */
static bool unpack_scan(const char *buf, size_t len, size_t at, zval *out)
{
	while (at < len) {
		int64_t head[5]; /* kind, ttl_ns, size, fence, key length */
		if (len - at < sizeof head) {
			return false;
		}
		memcpy(head, buf + at, sizeof head);
		at += sizeof head;
		if (head[4] < 0 || (uint64_t)head[4] > len - at) {
			return false;
		}
		const char *kind = "unknown"; /* a kind newer than this extension */
		if (head[0] > 0 && (size_t)head[0] < sizeof scan_kinds / sizeof *scan_kinds && scan_kinds[head[0]]) {
			kind = scan_kinds[head[0]];
		}
		zval info;
		array_init_size(&info, 4);
		add_assoc_string(&info, "kind", kind);
		add_assoc_double(&info, "ttl", head[1] == EPHPM_KV_TTL_PERSISTENT ? -1.0
			: head[1] <= 0 ? 0.0 : (double)head[1] / EPHPM_NS_PER_SEC);
		add_assoc_long(&info, "size", head[2]);
		add_assoc_long(&info, "fence", head[3]);
		/* A decimal key becomes an int key, as in any PHP array; a key
		 * reported twice (a walk may) is one entry. */
		zend_symtable_str_update(Z_ARRVAL_P(out), buf + at, (size_t)head[4], &info);
		at += (size_t)head[4];
	}
	return true;
}

/* One step of a walk over the keys, as phpredis's scan(): $cursor null
 * starts it, "" means it is done; each call sets $cursor to where the next
 * one goes on. */
PHP_FUNCTION(ephpm_kv_scan)
{
	zval *cursor_ref;
	zend_string *pattern = NULL;
	zend_long count = 100;
	ZEND_PARSE_PARAMETERS_START(1, 3)
		Z_PARAM_ZVAL(cursor_ref)
		Z_PARAM_OPTIONAL
		Z_PARAM_STR(pattern)
		Z_PARAM_LONG(count)
	ZEND_PARSE_PARAMETERS_END();
	zval *cursor = cursor_ref;
	ZVAL_DEREF(cursor);
	if (Z_TYPE_P(cursor) != IS_NULL && Z_TYPE_P(cursor) != IS_STRING) {
		zend_argument_type_error(1, "must be of type ?string, %s given", zend_zval_type_name(cursor));
		RETURN_THROWS();
	}
	if (pattern && ZSTR_LEN(pattern) > EPHPM_KV_MAX_KEY_SIZE) {
		zend_argument_value_error(2, "must not be longer than %d bytes", EPHPM_KV_MAX_KEY_SIZE);
		RETURN_THROWS();
	}
	if (count < 1 || count > EPHPM_KV_MAX_SCAN_COUNT) {
		zend_argument_value_error(3, "must be between 1 and %d", EPHPM_KV_MAX_SCAN_COUNT);
		RETURN_THROWS();
	}
	if (Z_TYPE_P(cursor) == IS_STRING && Z_STRLEN_P(cursor) == 0) {
		RETURN_EMPTY_ARRAY(); /* the walk is done */
	}
	EPHPM_OPS(ops);
	if (!EPHPM_OPS_HAS(ops, scan)) {
		ephpm_throw_missing_ops("key listing");
		RETURN_THROWS();
	}
	char *buf = NULL;
	size_t len = 0;
	ephpm_kv_error err;
	bool started = Z_TYPE_P(cursor) == IS_STRING;
	int rc = ops->scan(started ? Z_STRVAL_P(cursor) : "", started ? Z_STRLEN_P(cursor) : 0,
		pattern ? ZSTR_VAL(pattern) : "", pattern ? ZSTR_LEN(pattern) : 0, count, &buf, &len, &err);
	if (rc < 0) {
		free(buf);
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	int64_t next_len = -1;
	if (len >= sizeof next_len) {
		memcpy(&next_len, buf, sizeof next_len);
	}
	array_init(return_value);
	if (next_len < 0 || (uint64_t)next_len > len - sizeof next_len
		|| !unpack_scan(buf, len, sizeof next_len + (size_t)next_len, return_value)) {
		free(buf);
		zval_ptr_dtor(return_value);
		ZVAL_NULL(return_value);
		err.code = EPHPM_KV_E_INTERNAL;
		snprintf(err.message, sizeof err.message, "a scan page of %zu bytes does not parse", len);
		ephpm_throw_store_error(&err);
		RETURN_THROWS();
	}
	if (Z_ISREF_P(cursor_ref)) {
		if (next_len > 0) {
			ZEND_TRY_ASSIGN_REF_STRINGL(cursor_ref, buf + sizeof next_len, (size_t)next_len);
		} else {
			ZEND_TRY_ASSIGN_REF_EMPTY_STRING(cursor_ref);
		}
	}
	free(buf);
	if (UNEXPECTED(EG(exception))) { /* a typed reference refused the cursor */
		zval_ptr_dtor(return_value);
		ZVAL_NULL(return_value);
		RETURN_THROWS();
	}
}
