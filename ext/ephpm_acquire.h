/* Acquiring a token lock with bounded waiting: shared by Ephpm\Lock and the
 * session handler. */
#ifndef EPHPM_ACQUIRE_H
#define EPHPM_ACQUIRE_H

#include "php.h"
#include "ephpm_kv_ops.h"
#include "ephpm_token.h"

/* CLOCK_MONOTONIC in ns: waits are measured on it. */
int64_t ephpm_monotonic_ns(void);

typedef enum {
	EPHPM_ACQUIRE_ERROR = -1,   /* store failure: an exception is pending */
	EPHPM_ACQUIRE_TIMEOUT = 0,  /* someone else held it for the whole wait */
	EPHPM_ACQUIRE_OK = 1,
} ephpm_acquire_result;

/* One attempt: 1 acquired, 0 someone else holds it, < 0 a store error with
 * err filled. */
typedef int (*ephpm_try_fn)(void *ctx, ephpm_kv_error *err);

/* Calls try, which takes the lock key, until it acquires or wait_ns passes
 * (INT64_MAX: no end). Between attempts it waits 10 ms, doubling, capped at
 * 100 ms, or less when the engine wakes it as key is released (ops'
 * wait_release). A store failure returns at once (the exception thrown): it
 * is never mistaken for contention. */
ephpm_acquire_result ephpm_acquire_with(ephpm_try_fn try, void *ctx, const ephpm_kv_ops *ops,
	const char *key, size_t key_len, int64_t wait_ns);

/* ephpm_acquire_with over setnx_fenced; fence may be NULL. */
ephpm_acquire_result ephpm_acquire(const ephpm_kv_ops *ops, const char *key, size_t key_len,
	const char *token, size_t token_len, int64_t ttl_ns, int64_t wait_ns, int64_t *fence);

#endif
