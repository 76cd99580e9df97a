/* The exported ops table. cgo declares exported Go functions without
 * const qualifiers, so each entry is a thin typed adapter. */
#include <time.h>
#include "_cgo_export.h"

#ifdef EPHPM_KV_BENCH_FLOOR /* go build -tags benchfloor: see floor.go */
#define ephpmKvSetnx ephpmKvFloorSetnx
#define ephpmKvDelIfEq ephpmKvFloorDelIfEq
#define coarse_now() 0 /* the clock read is the store's share, not the floor's */
#else
/* CLOCK_MONOTONIC_COARSE in ns, 0 if unreadable: ~3 ns from the vDSO here,
 * where Go's nanotime (CLOCK_MONOTONIC) costs ~20 ns and Go cannot read the
 * coarse clock without a syscall. A release uses it to tell a lock far from
 * its deadline is live without the precise read (shm's clock.go). */
static int64_t coarse_now(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
#endif

#define K (char *)

static int kv_configure(const ephpm_kv_config *cfg, ephpm_kv_error *err)
{ return ephpmKvConfigure((ephpm_kv_config *)cfg, err); }

static int kv_get(const char *k, size_t kl, char *buf, size_t cap, size_t *len, ephpm_kv_error *err)
{ return ephpmKvGet(K k, kl, buf, cap, len, err); }

static int kv_set(const char *k, size_t kl, const char *v, size_t vl, int64_t ttl, ephpm_kv_error *err)
{ return ephpmKvSet(K k, kl, K v, vl, ttl, err); }

static int kv_set_evictable(const char *k, size_t kl, const char *v, size_t vl, int64_t ttl, ephpm_kv_error *err)
{ return ephpmKvSetEvictable(K k, kl, K v, vl, ttl, err); }

static int kv_setnx_evictable(const char *k, size_t kl, const char *v, size_t vl, int64_t ttl, ephpm_kv_error *err)
{ return ephpmKvSetnxEvictable(K k, kl, K v, vl, ttl, err); }

static int kv_get_multi(size_t n, const char *const *k, const size_t *kl, char *buf, size_t cap,
	int64_t *lens, size_t *need, ephpm_kv_error *err)
{ return ephpmKvGetMulti(n, (char **)k, (size_t *)kl, buf, cap, lens, need, err); }

static int kv_setnx(const char *k, size_t kl, const char *v, size_t vl, int64_t ttl, ephpm_kv_error *err)
{ return ephpmKvSetnx(K k, kl, K v, vl, ttl, err); }

static int kv_del(const char *k, size_t kl, ephpm_kv_error *err)
{ return ephpmKvDel(K k, kl, err); }

static int kv_del_if_eq(const char *k, size_t kl, const char *t, size_t tl, ephpm_kv_error *err)
{ return ephpmKvDelIfEq(K k, kl, K t, tl, coarse_now(), err); }

static int kv_exists(const char *k, size_t kl, ephpm_kv_error *err)
{ return ephpmKvExists(K k, kl, err); }

static int kv_expire(const char *k, size_t kl, int64_t ttl, ephpm_kv_error *err)
{ return ephpmKvExpire(K k, kl, ttl, err); }

static int kv_expire_if_eq(const char *k, size_t kl, const char *t, size_t tl, int64_t ttl, ephpm_kv_error *err)
{ return ephpmKvExpireIfEq(K k, kl, K t, tl, ttl, err); }

static int kv_ttl(const char *k, size_t kl, int64_t *out, ephpm_kv_error *err)
{ return ephpmKvTTL(K k, kl, out, err); }

static int kv_incr(const char *k, size_t kl, int64_t by, int64_t ttl, int64_t *out, ephpm_kv_error *err)
{ return ephpmKvIncr(K k, kl, by, ttl, out, err); }

static int kv_setnx_fenced(const char *k, size_t kl, const char *v, size_t vl, int64_t ttl, int64_t *fence, ephpm_kv_error *err)
{ return ephpmKvSetnxFenced(K k, kl, K v, vl, ttl, fence, err); }

static int kv_fence(const char *r, size_t rl, int64_t fence, ephpm_kv_error *err)
{ return ephpmKvFence(K r, rl, fence, err); }

static int kv_ttl_if_eq(const char *k, size_t kl, const char *t, size_t tl, int64_t *out, ephpm_kv_error *err)
{ return ephpmKvTTLIfEq(K k, kl, K t, tl, out, err); }

static int kv_configure_server(const char *u, size_t ul, const char *p, size_t pl, int64_t timeout, ephpm_kv_error *err)
{ return ephpmKvConfigureServer(K u, ul, K p, pl, timeout, err); }

static int kv_lock_and_get(const char *l, size_t ll, const char *t, size_t tl, int64_t lttl,
	const char *k, size_t kl, char *buf, size_t cap, size_t *len, ephpm_kv_error *err)
{ return ephpmKvLockAndGet(K l, ll, K t, tl, lttl, K k, kl, buf, cap, len, err); }

static int kv_set_if_locked(const char *k, size_t kl, const char *v, size_t vl, int64_t ttl,
	const char *l, size_t ll, const char *t, size_t tl, int64_t lttl, int release, ephpm_kv_error *err)
{ return ephpmKvSetIfLocked(K k, kl, K v, vl, ttl, K l, ll, K t, tl, lttl, release, err); }

static int kv_configure_shm(void *base, size_t size, const ephpm_kv_config *cfg, ephpm_kv_error *err)
{ return ephpmKvConfigureShm(base, size, (ephpm_kv_config *)cfg, err); }

static int kv_wait_release(const char *k, size_t kl, int64_t timeout, ephpm_kv_error *err)
{ return ephpmKvWaitRelease(K k, kl, timeout, err); }

static int kv_configure_server_tls(const char *u, size_t ul, const char *p, size_t pl, int64_t timeout,
	const ephpm_kv_tls *tls, ephpm_kv_error *err)
{ return ephpmKvConfigureServerTLS(K u, ul, K p, pl, timeout, (ephpm_kv_tls *)tls, err); }

static int kv_watch(const char *k, size_t kl, const char *t, size_t tl, int64_t ttl, int64_t max_hold,
	int64_t *handle, ephpm_kv_error *err)
{ return ephpmKvWatch(K k, kl, K t, tl, ttl, max_hold, handle, err); }

static int kv_lease_acquire(const char *k, size_t kl, const char *t, size_t tl, int32_t mode, int64_t limit,
	int64_t ttl, int64_t intent, int64_t *fence, ephpm_kv_error *err)
{ return ephpmKvLeaseAcquire(K k, kl, K t, tl, mode, limit, ttl, intent, fence, err); }

static int kv_lease_release(const char *k, size_t kl, const char *t, size_t tl, ephpm_kv_error *err)
{ return ephpmKvLeaseRelease(K k, kl, K t, tl, err); }

static int kv_lease_renew(const char *k, size_t kl, const char *t, size_t tl, int64_t ttl, ephpm_kv_error *err)
{ return ephpmKvLeaseRenew(K k, kl, K t, tl, ttl, err); }

static int kv_lease_count(const char *k, size_t kl, int64_t *count, ephpm_kv_error *err)
{ return ephpmKvLeaseCount(K k, kl, count, err); }

static int kv_rate_limit(const char *k, size_t kl, int64_t limit, int64_t window, int64_t *remaining,
	int64_t *retry_after, ephpm_kv_error *err)
{ return ephpmKvRateLimit(K k, kl, limit, window, remaining, retry_after, err); }

static int kv_lease_ttl(const char *k, size_t kl, const char *t, size_t tl, int64_t *out, ephpm_kv_error *err)
{ return ephpmKvLeaseTTL(K k, kl, K t, tl, out, err); }

static const ephpm_kv_ops table = {
	.abi_version = EPHPM_KV_ABI_VERSION,
	.struct_size = sizeof(ephpm_kv_ops),
	.configure = kv_configure,
	.get = kv_get,
	.set = kv_set,
	.setnx = kv_setnx,
	.del = kv_del,
	.del_if_eq = kv_del_if_eq,
	.exists = kv_exists,
	.expire = kv_expire,
	.expire_if_eq = kv_expire_if_eq,
	.ttl = kv_ttl,
	.incr = kv_incr,
	.flush = ephpmKvFlush,
	.stats = ephpmKvStats,
	.setnx_fenced = kv_setnx_fenced,
	.fence = kv_fence,
	.ttl_if_eq = kv_ttl_if_eq,
	.configure_server = kv_configure_server,
	.lock_and_get = kv_lock_and_get,
	.set_if_locked = kv_set_if_locked,
	.configure_shm = kv_configure_shm,
	.wait_release = kv_wait_release,
	.configure_server_tls = kv_configure_server_tls,
	.watch = kv_watch,
	.unwatch = ephpmKvUnwatch,
	.watch_state = ephpmKvWatchState,
	.lease_acquire = kv_lease_acquire,
	.lease_release = kv_lease_release,
	.lease_renew = kv_lease_renew,
	.lease_count = kv_lease_count,
	.rate_limit = kv_rate_limit,
	.lease_ttl = kv_lease_ttl,
	.set_evictable = kv_set_evictable,
	.get_multi = kv_get_multi,
	.setnx_evictable = kv_setnx_evictable,
};

const ephpm_kv_ops *ephpm_kv_get_ops(void)
{
	return &table;
}
