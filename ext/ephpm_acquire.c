#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <time.h>

#include "php.h"

#include "ephpm_acquire.h"
#include "ephpm_library.h"

#define BACKOFF_FIRST_NS (10 * 1000000LL)
#define BACKOFF_MAX_NS (100 * 1000000LL)

int64_t ephpm_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Waits nap ns for the next attempt: asleep on the key's release where the
 * engine can (the shared segment's futex words wake it when the holder lets
 * go), else nanosleep. false with an exception pending on a store error. */
static bool nap_until_release(const ephpm_kv_ops *ops, const char *key, size_t key_len, int64_t nap,
	bool *can_wait)
{
	if (*can_wait) {
		ephpm_kv_error err;
		int rc = ops->wait_release(key, key_len, nap, &err);
		if (rc < 0) {
			ephpm_throw_store_error(&err);
			return false;
		}
		if (rc != 2) {
			return true; /* released, changed, or nap passed: try again */
		}
		*can_wait = false; /* this engine never can */
	}
	struct timespec ts = { .tv_sec = nap / 1000000000LL, .tv_nsec = nap % 1000000000LL };
	nanosleep(&ts, NULL);
	return true;
}

ephpm_acquire_result ephpm_acquire_with(ephpm_try_fn try, void *ctx, const ephpm_kv_ops *ops,
	const char *key, size_t key_len, int64_t wait_ns)
{
	int64_t backoff = BACKOFF_FIRST_NS;
	int64_t deadline = 0;
	if (wait_ns > 0) {
		/* Saturates: a wait too long to add to the clock waits forever. */
		int64_t now = ephpm_monotonic_ns();
		deadline = wait_ns > INT64_MAX - now ? INT64_MAX : now + wait_ns;
	}
	bool can_wait = EPHPM_OPS_HAS(ops, wait_release);
	ephpm_kv_error err;
	for (;;) {
		int rc = try(ctx, &err);
		if (rc == 1) {
			return EPHPM_ACQUIRE_OK;
		}
		if (rc < 0) {
			ephpm_throw_store_error(&err);
			return EPHPM_ACQUIRE_ERROR;
		}
		int64_t now = wait_ns > 0 ? ephpm_monotonic_ns() : 0;
		if (now >= deadline) {
			return EPHPM_ACQUIRE_TIMEOUT;
		}
		if (!nap_until_release(ops, key, key_len, MIN(backoff, deadline - now), &can_wait)) {
			return EPHPM_ACQUIRE_ERROR;
		}
		backoff = MIN(backoff * 2, BACKOFF_MAX_NS);
	}
}

typedef struct {
	const ephpm_kv_ops *ops;
	const char *key, *token;
	size_t key_len, token_len;
	int64_t ttl_ns, *fence;
} fenced_attempt;

static int try_setnx_fenced(void *ctx, ephpm_kv_error *err)
{
	fenced_attempt *a = ctx;
	return a->ops->setnx_fenced(a->key, a->key_len, a->token, a->token_len, a->ttl_ns, a->fence, err);
}

ephpm_acquire_result ephpm_acquire(const ephpm_kv_ops *ops, const char *key, size_t key_len,
	const char *token, size_t token_len, int64_t ttl_ns, int64_t wait_ns, int64_t *fence)
{
	int64_t unused_fence;
	fenced_attempt a = {
		.ops = ops, .key = key, .key_len = key_len, .token = token, .token_len = token_len,
		.ttl_ns = ttl_ns, .fence = fence ? fence : &unused_fence,
	};
	return ephpm_acquire_with(try_setnx_fenced, &a, ops, key, key_len, wait_ns);
}
