#ifndef EPHPM_GET_H
#define EPHPM_GET_H

#include "php.h"
#include "ephpm_kv_ops.h"

/* Reads key into a new string. Returns the string, or NULL with *rc = 0
 * when absent, or NULL with *rc < 0 and err filled on a store error. */
zend_string *ephpm_get(const ephpm_kv_ops *ops, const char *key, size_t key_len, int *rc, ephpm_kv_error *err);

#endif
