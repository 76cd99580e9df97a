/* The exported ops table: each entry is the exported Go function itself
 * (ops_go.h gives cgo the const types), but for a release, which passes
 * the coarse clock read here. */
#include <time.h>
#include "_cgo_export.h"

/* An export whose signature drifts from its op's is a build error, not a
 * call through the wrong type. */
#pragma GCC diagnostic error "-Wincompatible-pointer-types"

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

static int kv_del_if_eq(const char *k, size_t kl, const char *t, size_t tl, ephpm_kv_error *err)
{ return ephpmKvDelIfEq(k, kl, t, tl, coarse_now(), err); }

static const ephpm_kv_ops table = {
	.abi_version = EPHPM_KV_ABI_VERSION,
	.struct_size = sizeof(ephpm_kv_ops),
	.configure = ephpmKvConfigure,
	.get = ephpmKvGet,
	.set = ephpmKvSet,
	.setnx = ephpmKvSetnx,
	.del = ephpmKvDel,
	.del_if_eq = kv_del_if_eq,
	.exists = ephpmKvExists,
	.expire = ephpmKvExpire,
	.expire_if_eq = ephpmKvExpireIfEq,
	.ttl = ephpmKvTTL,
	.incr = ephpmKvIncr,
	.flush = ephpmKvFlush,
	.stats = ephpmKvStats,
	.setnx_fenced = ephpmKvSetnxFenced,
	.fence = ephpmKvFence,
	.ttl_if_eq = ephpmKvTTLIfEq,
	.configure_server = ephpmKvConfigureServer,
	.lock_and_get = ephpmKvLockAndGet,
	.set_if_locked = ephpmKvSetIfLocked,
	.configure_shm = ephpmKvConfigureShm,
	.wait_release = ephpmKvWaitRelease,
	.configure_server_tls = ephpmKvConfigureServerTLS,
	.watch = ephpmKvWatch,
	.unwatch = ephpmKvUnwatch,
	.watch_state = ephpmKvWatchState,
	.lease_acquire = ephpmKvLeaseAcquire,
	.lease_release = ephpmKvLeaseRelease,
	.lease_renew = ephpmKvLeaseRenew,
	.lease_count = ephpmKvLeaseCount,
	.rate_limit = ephpmKvRateLimit,
	.lease_ttl = ephpmKvLeaseTTL,
	.set_evictable = ephpmKvSetEvictable,
	.get_multi = ephpmKvGetMulti,
	.setnx_evictable = ephpmKvSetnxEvictable,
	.del_multi = ephpmKvDelMulti,
	.set_if_eq = ephpmKvSetIfEq,
	.leader_campaign = ephpmKvLeaderCampaign,
	.leader_current = ephpmKvLeaderCurrent,
	.barrier_wait = ephpmKvBarrierWait,
	.queue_push = ephpmKvQueuePush,
	.queue_pop = ephpmKvQueuePop,
	.queue_ack = ephpmKvQueueAck,
	.queue_release = ephpmKvQueueRelease,
	.queue_touch = ephpmKvQueueTouch,
	.queue_size = ephpmKvQueueSize,
	.queue_dead = ephpmKvQueueDead,
	.queue_retry = ephpmKvQueueRetry,
	.scan = ephpmKvScan,
};

const ephpm_kv_ops *ephpm_kv_get_ops(void)
{
	return &table;
}
