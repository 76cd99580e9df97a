#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "ephpm_get.h"

zend_string *ephpm_get(const ephpm_kv_ops *ops, const char *key, size_t key_len, int *rc, ephpm_kv_error *err)
{
	char inline_buf[EPHPM_GET_INLINE_SIZE];
	size_t len;
	*rc = ops->get(key, key_len, inline_buf, sizeof inline_buf, &len, err);
	if (*rc <= 0) {
		return NULL;
	}
	if (len <= sizeof inline_buf) {
		return zend_string_init(inline_buf, len, 0);
	}
	return ephpm_get_large(ops, key, key_len, len, rc, err);
}

/* Larger values are copied once, straight into the returned string. */
zend_string *ephpm_get_large(const ephpm_kv_ops *ops, const char *key, size_t key_len, size_t len,
	int *rc, ephpm_kv_error *err)
{
	/* The value may be replaced by a larger one between calls: loop. */
	for (;;) {
		size_t cap = len;
		zend_string *value = zend_string_alloc(cap, 0);
		*rc = ops->get(key, key_len, ZSTR_VAL(value), cap, &len, err);
		if (*rc == 1 && len <= cap) {
			ZSTR_LEN(value) = len;
			ZSTR_VAL(value)[len] = '\0';
			return value;
		}
		zend_string_efree(value);
		if (*rc <= 0) {
			return NULL;
		}
	}
}
