/*
 * Drives the ops table of the built library from many pthreads, the way a
 * threaded PHP SAPI would, and checks the lock invariants through the C ABI:
 * once on the in-process map, once on the shared-memory engine, then from
 * several processes on one shared segment (mutual exclusion across
 * processes). Each run is a child forked before the library is loaded, as
 * php-fpm forks its workers before their first use of the store.
 * Usage: abi_stress path/to/libephpm_kv.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ephpm_kv_ops.h"

#define THREADS 32
#define ROUNDS 2000
#define CHURN_PER_THREAD 3000
#define CHURN_KEYS 4
#define SEC 1000000000LL

static const ephpm_kv_ops *ops;
static int passed, failed;
static const char *engine_name = "";

#define CHECK(cond, ...) do { \
	if (cond) { passed++; } else { failed++; fprintf(stderr, "FAIL %s:%d (%s): ", __FILE__, __LINE__, engine_name); \
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

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static void load(const char *path)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_NODELETE);
	if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); exit(2); }
	ephpm_kv_get_ops_fn get_ops = (ephpm_kv_get_ops_fn)dlsym(lib, "ephpm_kv_get_ops");
	if (!get_ops) { fprintf(stderr, "dlsym: %s\n", dlerror()); exit(2); }
	ops = get_ops();
	CHECK(ops->abi_version == EPHPM_KV_ABI_VERSION, "abi version %u", ops->abi_version);
	CHECK(ops->struct_size >= sizeof(ephpm_kv_ops), "struct size %u", ops->struct_size);
}

static void *map_shared(size_t size)
{
	void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) { perror("mmap"); exit(2); }
	return mem;
}

#define SEGMENT_SIZE (64u << 20)

static int report(void)
{
	printf("abi_stress (%s): %d passed, %d failed\n", engine_name, passed, failed);
	fflush(stdout); /* children leave by _exit */
	return failed != 0;
}

/* wait_release: a waiter on a held key wakes when another thread releases
 * it, long before its timeout; a wait with nothing released times out. */
static void *release_later(void *arg)
{
	(void)arg;
	ephpm_kv_error err;
	struct timespec ts = { .tv_nsec = 50 * 1000000 };
	nanosleep(&ts, NULL);
	ops->del_if_eq("waited", 6, "holder", 6, &err);
	return NULL;
}

static void check_wait_release(bool can_wait)
{
	ephpm_kv_error err;
	int rc = ops->wait_release("waited", 6, 10 * 1000000, &err);
	if (!can_wait) {
		CHECK(rc == 2, "wait_release on an engine that cannot wait: %d", rc);
		return;
	}
	CHECK(ops->setnx("waited", 6, "holder", 6, 60 * SEC, &err) == 1, "setnx waited: %s", err.message);
	int64_t start = now_ns();
	rc = ops->wait_release("waited", 6, 100 * 1000000, &err);
	int64_t took = now_ns() - start;
	CHECK(rc == 0 && took >= 90 * 1000000, "wait_release on a key held throughout: rc %d after %lld ns",
	      rc, (long long)took);
	pthread_t t;
	pthread_create(&t, NULL, release_later, NULL);
	start = now_ns();
	rc = ops->wait_release("waited", 6, 5 * SEC, &err);
	took = now_ns() - start;
	pthread_join(t, NULL);
	CHECK(rc == 1 && took < 2 * SEC, "wait_release of a key released after 50 ms: rc %d after %lld ns",
	      rc, (long long)took);
	CHECK(ops->exists("waited", 6, &err) == 0, "waited released");
}

/* Semaphore permits from every thread: never more than PERMITS holders,
 * each permit released by its own token. */
#define PERMITS 3
static atomic_int permit_inside, permit_over, permit_errors, permit_lost, permit_grants;

static void *permit_thread(void *arg)
{
	long id = (long)arg;
	char token[32];
	int tlen = snprintf(token, sizeof token, "permit-%ld", id);
	ephpm_kv_error err;
	for (int r = 0; r < ROUNDS / 4; r++) {
		int64_t fence;
		int rc = ops->lease_acquire("sem", 3, token, tlen, EPHPM_KV_LEASE_PERMIT, PERMITS, 60 * SEC, 0, &fence, &err);
		if (rc < 0) { atomic_fetch_add(&permit_errors, 1); continue; }
		if (rc == 0) { continue; }
		atomic_fetch_add(&permit_grants, 1);
		if (atomic_fetch_add(&permit_inside, 1) >= PERMITS) { atomic_fetch_add(&permit_over, 1); }
		atomic_fetch_sub(&permit_inside, 1);
		if (ops->lease_release("sem", 3, token, tlen, &err) != 1) { atomic_fetch_add(&permit_lost, 1); }
	}
	return NULL;
}

/* The lease and rate-limit ops: their results and error codes as the
 * header says, and the semaphore bound under threads. */
static void check_leases(void)
{
	ephpm_kv_error err;
	int64_t fence = 0, count = -1, remaining = -1, retry = -1;
	CHECK(ops->lease_acquire("rw", 2, "r1", 2, EPHPM_KV_LEASE_SHARED, 0, 60 * SEC, 0, &fence, &err) == 1 && fence > 0,
	      "reader 1: %s", err.message);
	CHECK(ops->lease_acquire("rw", 2, "r2", 2, EPHPM_KV_LEASE_SHARED, 0, 60 * SEC, 0, &fence, &err) == 1,
	      "reader 2: %s", err.message);
	CHECK(ops->lease_acquire("rw", 2, "w", 1, EPHPM_KV_LEASE_EXCLUSIVE, 0, 60 * SEC, SEC, &fence, &err) == 0,
	      "a writer among readers");
	CHECK(ops->lease_count("rw", 2, &count, &err) == 0 && count == 2, "lease_count = %lld", (long long)count);
	CHECK(ops->lease_acquire("rw", 2, "r3", 2, EPHPM_KV_LEASE_SHARED, 0, 60 * SEC, 0, &fence, &err) == 0,
	      "a new reader while a writer's intent is live");
	CHECK(ops->lease_renew("rw", 2, "r1", 2, 30 * SEC, &err) == 1 && ops->lease_renew("rw", 2, "w", 1, SEC, &err) == 0,
	      "renew a reader; an intent is not a lease");
	int64_t left = 0;
	CHECK(ops->lease_ttl("rw", 2, "r1", 2, &left, &err) == 1 && left > 29 * SEC && left <= 30 * SEC,
	      "lease_ttl of a reader renewed to 30 s: %lld", (long long)left);
	CHECK(ops->lease_ttl("rw", 2, "w", 1, &left, &err) == 0 && left == EPHPM_KV_TTL_MISSING,
	      "lease_ttl of an intent: %lld", (long long)left);
	CHECK(ops->lease_ttl("rw", 2, "", 0, &left, &err) == -EPHPM_KV_E_BAD_ARGUMENT, "lease_ttl, empty token");
	CHECK(ops->lease_release("rw", 2, "w", 1, &err) == 0 && ops->lease_release("rw", 2, "r1", 2, &err) == 1
	      && ops->lease_release("rw", 2, "r2", 2, &err) == 1 && ops->lease_release("rw", 2, "r2", 2, &err) == 0,
	      "releases by token");
	CHECK(ops->lease_ttl("rw", 2, "r1", 2, &left, &err) == 0 && left == EPHPM_KV_TTL_MISSING,
	      "lease_ttl of a released reader: %lld", (long long)left);
	CHECK(ops->lease_acquire("rw", 2, "r1", 2, EPHPM_KV_LEASE_SHARED, 0, 60 * SEC, 0, &fence, &err) == 1
	      && ops->lease_release("rw", 2, "r1", 2, &err) == 1, "readers again once the intent is dropped");

	CHECK(ops->lease_acquire("rw", 2, "", 0, EPHPM_KV_LEASE_SHARED, 0, SEC, 0, &fence, &err) == -EPHPM_KV_E_BAD_ARGUMENT
	      && err.code == EPHPM_KV_E_BAD_ARGUMENT, "empty token: %d %s", err.code, err.message);
	CHECK(ops->lease_acquire("rw", 2, "t", 1, 9, 0, SEC, 0, &fence, &err) == -EPHPM_KV_E_BAD_ARGUMENT,
	      "unknown mode: %s", err.message);
	CHECK(ops->lease_acquire("rw", 2, "t", 1, 256 + EPHPM_KV_LEASE_SHARED, 0, SEC, 0, &fence, &err) == -EPHPM_KV_E_BAD_ARGUMENT,
	      "a mode past a byte (not wrapped into a reader): %s", err.message);
	CHECK(ops->lease_acquire("s", 1, "t", 1, EPHPM_KV_LEASE_PERMIT, EPHPM_KV_MAX_LEASE_HOLDERS + 1, SEC, 0, &fence,
	      &err) == -EPHPM_KV_E_BAD_ARGUMENT, "too many permits: %s", err.message);
	CHECK(ops->lease_acquire("s", 1, "t", 1, EPHPM_KV_LEASE_PERMIT, 2, 0, 0, &fence, &err) == -EPHPM_KV_E_BAD_TTL,
	      "ttl 0: %s", err.message);
	CHECK(ops->rate_limit("rl", 2, 0, SEC, &remaining, &retry, &err) == -EPHPM_KV_E_BAD_ARGUMENT,
	      "rate limit 0: %s", err.message);
	CHECK(ops->set("plain", 5, "v", 1, 0, &err) == 1
	      && ops->lease_acquire("plain", 5, "t", 1, EPHPM_KV_LEASE_SHARED, 0, SEC, 0, &fence, &err) == -EPHPM_KV_E_WRONG_TYPE
	      && ops->lease_count("plain", 5, &count, &err) == -EPHPM_KV_E_WRONG_TYPE
	      && ops->lease_ttl("plain", 5, "t", 1, &left, &err) == -EPHPM_KV_E_WRONG_TYPE
	      && ops->rate_limit("plain", 5, 1, SEC, &remaining, &retry, &err) == -EPHPM_KV_E_WRONG_TYPE,
	      "lease ops on a plain value: %d %s", err.code, err.message);

	CHECK(ops->rate_limit("rl", 2, 2, 60 * SEC, &remaining, &retry, &err) == 1 && remaining == 1 && retry == 0,
	      "rate limit 1st: remaining %lld retry %lld", (long long)remaining, (long long)retry);
	CHECK(ops->rate_limit("rl", 2, 2, 60 * SEC, &remaining, &retry, &err) == 1 && remaining == 0,
	      "rate limit 2nd: remaining %lld", (long long)remaining);
	CHECK(ops->rate_limit("rl", 2, 2, 60 * SEC, &remaining, &retry, &err) == 0 && remaining == 0
	      && retry > 59 * SEC && retry <= 60 * SEC, "rate limit 3rd: retry %lld", (long long)retry);

	run_threads(permit_thread);
	CHECK(permit_errors == 0 && permit_lost == 0, "%d errors, %d lost permits", permit_errors, permit_lost);
	CHECK(permit_over == 0, "%d times more than %d permits were held", permit_over, PERMITS);
	CHECK(permit_grants > 0, "no permit granted");
	CHECK(ops->lease_count("sem", 3, &count, &err) == 0 && count == 0, "permits left: %lld", (long long)count);
}

/* The single-process suite, on the engine configure started. */
static int run_suite(const char *path, bool shm)
{
	engine_name = shm ? "shm" : "map";
	load(path);
	ephpm_kv_error err;
	ephpm_kv_config cfg = { .memory_limit = 32 << 20, .max_value_size = 1 << 20, .compress_min = 1024 };
	if (shm) {
		void *segment = map_shared(SEGMENT_SIZE);
		CHECK(ops->configure_shm(NULL, SEGMENT_SIZE, &cfg, &err) == -EPHPM_KV_E_CONFIG,
		      "configure_shm without a segment: %s", err.message);
		CHECK(ops->configure_shm(segment, SEGMENT_SIZE, &cfg, &err) == 0, "configure_shm: %s", err.message);
		CHECK(ops->configure_shm(segment, SEGMENT_SIZE, &cfg, &err) == -EPHPM_KV_E_CONFIG
		      && strstr(err.message, "configure") != NULL, "second configure_shm must fail: %s", err.message);
	} else {
		CHECK(ops->configure(&cfg, &err) == 0, "configure: %s", err.message);
	}
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
	check_wait_release(shm);
	check_leases();

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
	return report();
}

/* Several processes, one segment, one lock: each holder bumps a plain
 * (non-atomic) counter in memory shared by every process; with mutual
 * exclusion no increment is lost and no two holders overlap. */
#define PROCS 4
#define PROC_ROUNDS 3000

typedef struct {
	atomic_int inside, overlaps, errors, lost_releases;
	long counter; /* written only while holding "shared" */
} shared_state;

static int run_process(const char *path, void *segment, shared_state *shared, int id)
{
	engine_name = "shm, processes";
	load(path);
	ephpm_kv_error err;
	ephpm_kv_config cfg = { 0 };
	if (ops->configure_shm(segment, SEGMENT_SIZE, &cfg, &err) != 0) {
		fprintf(stderr, "process %d: configure_shm: %s\n", id, err.message);
		return 1;
	}
	char token[32];
	int tlen = snprintf(token, sizeof token, "process-%d", id);
	for (int n = 0; n < PROC_ROUNDS; ) {
		int rc = ops->setnx("shared", 6, token, tlen, 60 * SEC, &err);
		if (rc < 0) { atomic_fetch_add(&shared->errors, 1); return 1; }
		if (rc == 0) {
			/* held by another process: sleep until it lets go */
			if (ops->wait_release("shared", 6, 10 * 1000000, &err) < 0) { atomic_fetch_add(&shared->errors, 1); }
			continue;
		}
		if (atomic_fetch_add(&shared->inside, 1) != 0) { atomic_fetch_add(&shared->overlaps, 1); }
		long c = shared->counter;
		sched_yield(); /* widen the window a lost update needs */
		shared->counter = c + 1;
		atomic_fetch_sub(&shared->inside, 1);
		if (ops->del_if_eq("shared", 6, token, tlen, &err) != 1) { atomic_fetch_add(&shared->lost_releases, 1); }
		n++;
	}
	return 0;
}

static int wait_child(pid_t pid)
{
	int status;
	if (waitpid(pid, &status, 0) != pid) { perror("waitpid"); return 1; }
	if (WIFSIGNALED(status)) { fprintf(stderr, "child %d killed by signal %d\n", pid, WTERMSIG(status)); return 1; }
	return WEXITSTATUS(status) != 0;
}

static int run_processes(const char *path)
{
	engine_name = "shm, processes";
	void *segment = map_shared(SEGMENT_SIZE);
	shared_state *shared = map_shared(sizeof *shared);
	pid_t pids[PROCS];
	for (int i = 0; i < PROCS; i++) {
		if ((pids[i] = fork()) == 0) { _exit(run_process(path, segment, shared, i)); }
	}
	int bad = 0;
	for (int i = 0; i < PROCS; i++) { bad += wait_child(pids[i]); }
	CHECK(bad == 0, "%d processes failed", bad);
	CHECK(shared->errors == 0, "%d store errors", shared->errors);
	CHECK(shared->overlaps == 0, "%d times two processes held one lock", shared->overlaps);
	CHECK(shared->lost_releases == 0, "%d holders could not release their own lock", shared->lost_releases);
	CHECK(shared->counter == PROCS * PROC_ROUNDS, "counter %ld, want %d: increments lost", shared->counter,
	      PROCS * PROC_ROUNDS);

	/* A new process on the same segment sees the last state, and one that
	 * gives another size is refused, as a configuration error. */
	pid_t pid = fork();
	if (pid == 0) {
		load(path);
		ephpm_kv_error err;
		ephpm_kv_config cfg = { 0 };
		CHECK(ops->configure_shm(segment, SEGMENT_SIZE / 2, &cfg, &err) == -EPHPM_KV_E_CONFIG
		      && err.code == EPHPM_KV_E_CONFIG, "configure_shm at half the size: %s", err.message);
		CHECK(ops->configure_shm(segment, SEGMENT_SIZE, &cfg, &err) == 0, "configure_shm after a refusal: %s",
		      err.message);
		CHECK(ops->exists("shared", 6, &err) == 0, "the lock is free after every process released it");
		CHECK(ops->setnx("shared", 6, "late", 4, 60 * SEC, &err) == 1, "a new process takes it: %s", err.message);
		_exit(failed != 0);
	}
	CHECK(wait_child(pid) == 0, "the process that attached last failed");
	return report();
}

int main(int argc, char **argv)
{
	if (argc != 2) { fprintf(stderr, "usage: %s libephpm_kv.so\n", argv[0]); return 2; }
	/* One engine per process: a process configures the library once. */
	int bad = 0;
	for (int shm = 0; shm <= 1; shm++) {
		pid_t pid = fork();
		if (pid == 0) { _exit(run_suite(argv[1], shm)); }
		bad += wait_child(pid);
	}
	bad += run_processes(argv[1]);
	return bad != 0;
}
