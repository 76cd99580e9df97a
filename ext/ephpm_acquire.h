/* Acquiring a token lock with bounded waiting: shared by Ephpm\Lock and the
 * session handler. */
#ifndef EPHPM_ACQUIRE_H
#define EPHPM_ACQUIRE_H

#include "php.h"
#include "ephpm_kv_ops.h"

/* 128 random bits from PHP's CSPRNG as 32 hex chars. */
#define EPHPM_TOKEN_LEN 32

/* Fills token (EPHPM_TOKEN_LEN + 1 bytes); false with an exception pending
 * when the CSPRNG fails. */
bool ephpm_new_token(char *token);

typedef enum {
	EPHPM_ACQUIRE_ERROR = -1,   /* store failure: an exception is pending */
	EPHPM_ACQUIRE_TIMEOUT = 0,  /* someone else held it for the whole wait */
	EPHPM_ACQUIRE_OK = 1,
} ephpm_acquire_result;

/* Tries setnx_fenced until it succeeds or wait_ns passes (INT64_MAX: no
 * end), sleeping 10 ms, doubling, capped at 100 ms. A store failure returns at once: it is never
 * mistaken for contention. fence may be NULL. */
ephpm_acquire_result ephpm_acquire(const ephpm_kv_ops *ops, const char *key, size_t key_len,
	const char *token, size_t token_len, int64_t ttl_ns, int64_t wait_ns, int64_t *fence);

#endif
