/*
 * Drives the ops table of the built library from many pthreads, the way a
 * threaded PHP SAPI would, and checks the lock invariants through the C ABI.
 * Usage: abi_stress path/to/libephpm_kv.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ephpm_kv_ops.h"

#define THREADS 32
#define ROUNDS 2000
#define CHURN_PER_THREAD 3000
#define CHURN_KEYS 4
#define SEC 1000000000LL

static const ephpm_kv_ops *ops;
static int passed, failed;

#define CHECK(cond, ...) do { \
	if (cond) { passed++; } else { failed++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* One-winner rounds: every thread races setnx on one key; exactly one wins,
 * only the winner's token releases it. */
static pthread_barrier_t barrier;
static atomic_int winners, bad_releases, round_failures;

static void *race_thread(void *arg)
{
	long id = (long)arg;
	char token[32];
	int len = snprintf(token, sizeof token, "token-%ld", id);
	ephpm_kv_error err;
	for (int r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(&barrier);
		int won = ops->setnx("race", 4, token, len, 60 * SEC, &err);
		if (won < 0) { round_failures++; }
		if (won == 1) { atomic_fetch_add(&winners, 1); }
		pthread_barrier_wait(&barrier);
		if (id == 0) {
			if (atomic_load(&winners) != 1) { atomic_fetch_add(&round_failures, 1); }
			atomic_store(&winners, 0);
		}
		/* Losers try to release with their own token first: must be no-ops. */
		if (won == 0 && ops->del_if_eq("race", 4, token, len, &err) != 0) { atomic_fetch_add(&bad_releases, 1); }
		pthread_barrier_wait(&barrier);
		if (won == 1 && ops->del_if_eq("race", 4, token, len, &err) != 1) { atomic_fetch_add(&bad_releases, 1); }
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

/* Acquire/release churn over a few keys: a holder is alone while it holds,
 * and its token release always succeeds. */
static atomic_int inside[CHURN_KEYS], overlaps, lost_releases, churn_errors;

static void *churn_thread(void *arg)
{
	long id = (long)arg;
	char token[32], key[16];
	int tlen = snprintf(token, sizeof token, "churn-%ld", id);
	ephpm_kv_error err;
	for (int n = 0; n < CHURN_PER_THREAD; ) {
		int k = (int)((id + n) % CHURN_KEYS);
		int klen = snprintf(key, sizeof key, "churn:%d", k);
		int rc = ops->setnx(key, klen, token, tlen, 60 * SEC, &err);
		if (rc < 0) { atomic_fetch_add(&churn_errors, 1); return NULL; }
		if (rc == 0) { sched_yield(); continue; }
		if (atomic_fetch_add(&inside[k], 1) != 0) { atomic_fetch_add(&overlaps, 1); }
		atomic_fetch_sub(&inside[k], 1);
		if (ops->del_if_eq(key, klen, token, tlen, &err) != 1) { atomic_fetch_add(&lost_releases, 1); }
		n++;
	}
	return NULL;
}

/* Fenced churn: each holder's fence is larger than the previous holder's,
 * and the resource accepts it. */
static int64_t last_fence; /* written only while holding "fenced" */
static atomic_int fence_regressions, fence_refusals;

static void *fenced_thread(void *arg)
{
	long id = (long)arg;
	char token[32];
	int tlen = snprintf(token, sizeof token, "fenced-%ld", id);
	ephpm_kv_error err;
	for (int n = 0; n < CHURN_PER_THREAD / 4; ) {
		int64_t fence = 0;
		int rc = ops->setnx_fenced("fenced", 6, token, tlen, 60 * SEC, &fence, &err);
		if (rc < 0) { atomic_fetch_add(&churn_errors, 1); return NULL; }
		if (rc == 0) { sched_yield(); continue; }
		if (fence <= last_fence) { atomic_fetch_add(&fence_regressions, 1); }
		last_fence = fence;
		if (ops->fence("resource", 8, fence, &err) != 1) { atomic_fetch_add(&fence_refusals, 1); }
		if (ops->del_if_eq("fenced", 6, token, tlen, &err) != 1) { atomic_fetch_add(&lost_releases, 1); }
		n++;
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *))
{
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++) { pthread_create(&t[i], NULL, fn, (void *)i); }
	for (int i = 0; i < THREADS; i++) { pthread_join(t[i], NULL); }
}

/* get with the caller-buffer protocol: small buffer first, retry larger. */
static void check_get_roundtrip(size_t size)
{
	ephpm_kv_error err;
	char *value = malloc(size + 1), small[16];
	for (size_t i = 0; i < size; i++) { value[i] = (char)(i * 7); } /* includes NULs */
	CHECK(ops->set("bin\0key", 7, value, size, 0, &err) == 1, "set %zu bytes: %s", size, err.message);
	size_t len = 0;
	int rc = ops->get("bin\0key", 7, small, sizeof small, &len, &err);
	CHECK(rc == 1 && len == size, "get len rc=%d len=%zu want %zu", rc, len, size);
	char *buf = small;
	if (len > sizeof small) {
		buf = malloc(len);
		rc = ops->get("bin\0key", 7, buf, len, &len, &err);
	}
	CHECK(rc == 1 && len == size && memcmp(buf, value, size) == 0, "get content of %zu bytes", size);
	if (buf != small) { free(buf); }
	free(value);
}

/* The session steps' return codes cross the ABI as the header says. */
static void check_session_ops(void)
{
	ephpm_kv_error err;
	char buf[8];
	size_t len = 99;
	CHECK(ops->lock_and_get("sl", 2, "A", 1, 60 * SEC, "sd", 2, buf, sizeof buf, &len, &err) == 1 && len == 0,
	      "lock_and_get, no data: len %zu", len);
	CHECK(ops->lock_and_get("sl", 2, "B", 1, 60 * SEC, "sd", 2, buf, sizeof buf, &len, &err) == 0,
	      "lock_and_get of a held lock");
	CHECK(ops->set_if_locked("sd", 2, "0123456789", 10, 0, "sl", 2, "A", 1, 60 * SEC, 0, &err) == 1,
	      "set_if_locked by the holder: %s", err.message);
	CHECK(ops->set_if_locked("sd", 2, "x", 1, 0, "sl", 2, "B", 1, 60 * SEC, 1, &err) == 0
	      && ops->exists("sl", 2, &err) == 1, "set_if_locked by a stranger");
	CHECK(ops->set_if_locked("sd", 2, "0123456789", 10, 0, "sl", 2, "A", 1, 60 * SEC, 1, &err) == 1
	      && ops->exists("sl", 2, &err) == 0, "set_if_locked releasing: %s", err.message);
	CHECK(ops->lock_and_get("sl", 2, "B", 1, 60 * SEC, "sd", 2, buf, sizeof buf, &len, &err) == 2 && len == 10,
	      "lock_and_get of data larger than the buffer: len %zu", len);
	CHECK(ops->set_if_locked("", 0, "x", 1, 0, "sl", 2, "B", 1, 60 * SEC, 0, &err) == -EPHPM_KV_E_EMPTY_KEY,
	      "set_if_locked with an empty key: code %d", err.code);
	CHECK(ops->del("sl", 2, &err) == 1 && ops->del("sd", 2, &err) == 1, "cleanup");
}

int main(int argc, char **argv)
{
	if (argc != 2) { fprintf(stderr, "usage: %s libephpm_kv.so\n", argv[0]); return 2; }
	void *lib = dlopen(argv[1], RTLD_NOW | RTLD_NODELETE);
	if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 2; }
	ephpm_kv_get_ops_fn get_ops = (ephpm_kv_get_ops_fn)dlsym(lib, "ephpm_kv_get_ops");
	if (!get_ops) { fprintf(stderr, "dlsym: %s\n", dlerror()); return 2; }
	ops = get_ops();
	CHECK(ops->abi_version == EPHPM_KV_ABI_VERSION, "abi version %u", ops->abi_version);
	CHECK(ops->struct_size >= sizeof(ephpm_kv_ops), "struct size %u", ops->struct_size);

	ephpm_kv_error err;
	ephpm_kv_config cfg = { .memory_limit = 32 << 20, .max_value_size = 1 << 20, .compress_min = 1024 };
	CHECK(ops->configure(&cfg, &err) == 0, "configure: %s", err.message);
	CHECK(ops->configure(&cfg, &err) == -EPHPM_KV_E_CONFIG && err.code == EPHPM_KV_E_CONFIG
	      && strstr(err.message, "configure") != NULL, "second configure must fail: %s", err.message);

	/* Errors cross as codes with a message. */
	CHECK(ops->set("", 0, "v", 1, 0, &err) == -EPHPM_KV_E_EMPTY_KEY && err.message[0] != '\0',
	      "empty key: code %d", err.code);
	char *huge = calloc(1, (1 << 20) + 1);
	CHECK(ops->set("big", 3, huge, (1 << 20) + 1, 0, &err) == -EPHPM_KV_E_VALUE_TOO_LARGE,
	      "value over max_value_size: %s", err.message);
	free(huge);
	CHECK(ops->set("n", 1, "abc", 3, 0, &err) == 1 && ops->incr("n", 1, 1, 0, &(int64_t){0}, &err) == -EPHPM_KV_E_NOT_INTEGER,
	      "incr of a non-integer: %s", err.message);

	check_get_roundtrip(0);
	check_get_roundtrip(10);
	check_get_roundtrip(5000);   /* compressible: crosses compressed storage */
	check_session_ops();

	int64_t ttl = 0;
	CHECK(ops->ttl("nope", 4, &ttl, &err) == 0 && ttl == EPHPM_KV_TTL_MISSING, "ttl missing = %lld", (long long)ttl);

	/* A TTL past the maximum is refused, never wrapped into one that has
	 * already passed; the maximum itself is honoured. */
	const int64_t max_ttl_ns = EPHPM_KV_MAX_TTL_SECONDS * INT64_C(1000000000);
	const int64_t bad_ttls[] = { max_ttl_ns + 1, INT64_MAX, -1, INT64_MIN };
	for (size_t i = 0; i < sizeof bad_ttls / sizeof bad_ttls[0]; i++) {
		CHECK(ops->set("t", 1, "v", 1, bad_ttls[i], &err) == -EPHPM_KV_E_BAD_TTL && err.code == EPHPM_KV_E_BAD_TTL
		      && ops->exists("t", 1, &err) == 0, "set with ttl %lld: %s", (long long)bad_ttls[i], err.message);
	}
	CHECK(ops->set("t", 1, "v", 1, max_ttl_ns, &err) == 1 && ops->ttl("t", 1, &ttl, &err) == 1
	      && ttl > max_ttl_ns - INT64_C(1000000000) && ttl <= max_ttl_ns, "ttl of the maximum = %lld", (long long)ttl);
	CHECK(ops->expire("t", 1, INT64_MAX, &err) == -EPHPM_KV_E_BAD_TTL && ops->ttl("t", 1, &ttl, &err) == 1
	      && ttl > max_ttl_ns - INT64_C(1000000000), "expire with INT64_MAX: %s", err.message);
	CHECK(ops->del("t", 1, &err) == 1, "del t");

	pthread_barrier_init(&barrier, NULL, THREADS);
	run_threads(race_thread);
	CHECK(round_failures == 0, "%d of %d rounds did not have exactly one winner", round_failures, ROUNDS);
	CHECK(bad_releases == 0, "%d releases with the wrong outcome", bad_releases);

	run_threads(churn_thread);
	CHECK(churn_errors == 0, "%d errors during churn", churn_errors);
	CHECK(overlaps == 0, "%d times two threads held one lock", overlaps);
	CHECK(lost_releases == 0, "%d holders could not release their own lock", lost_releases);

	run_threads(fenced_thread);
	CHECK(fence_regressions == 0, "%d fences not larger than the previous holder's", fence_regressions);
	CHECK(fence_refusals == 0, "%d holders refused by the resource", fence_refusals);
	CHECK(ops->fence("resource", 8, 1, &err) == 0, "a stale fence was accepted");
	CHECK(ops->ttl_if_eq("fenced", 6, "x", 1, &ttl, &err) == 0 && ttl == EPHPM_KV_TTL_MISSING, "ttl_if_eq on a released lock");

	ephpm_kv_stats st;
	CHECK(ops->flush(&err) == 1 && ops->stats(&st, &err) == 0 && st.keys == 0 && st.bytes_used == 0,
	      "stats after flush: keys=%lld used=%lld", (long long)st.keys, (long long)st.bytes_used);

	printf("abi_stress: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
