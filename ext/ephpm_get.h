#ifndef EPHPM_GET_H
#define EPHPM_GET_H

#include "php.h"
#include "ephpm_kv_ops.h"

/* Reads key into a new string. Returns the string, or NULL with *rc = 0
 * when absent, or NULL with *rc < 0 and err filled on a store error. */
zend_string *ephpm_get(const ephpm_kv_ops *ops, const char *key, size_t key_len, int *rc, ephpm_kv_error *err);

/* Values up to this size come back through a stack buffer in one call. */
#define EPHPM_GET_INLINE_SIZE 512

/* The rest of a read whose first call found a value of len bytes too large
 * for its buffer: reads it again into a string of that size (looping while
 * it keeps growing). Results as for ephpm_get. */
zend_string *ephpm_get_large(const ephpm_kv_ops *ops, const char *key, size_t key_len, size_t len,
	int *rc, ephpm_kv_error *err);

#endif
