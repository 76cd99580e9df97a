/*
 * ephpm-kv C ABI: the one table of functions the Go library exports to the
 * PHP extension (and to any other C caller).
 *
 * Rules:
 *  - The table is append-only. A caller checks abi_version (bumped only on an
 *    incompatible change) and that struct_size covers the members it uses.
 *  - Keys, values and tokens cross as (pointer, length), binary-safe, and are
 *    only read during the call.
 *  - Every function returns >= 0 on success (its result) or a negative
 *    EPHPM_KV_E_* code, with err->message filled in (NUL-terminated).
 *  - TTLs are nanoseconds; 0 means no expiry; at most
 *    EPHPM_KV_MAX_TTL_SECONDS (kv.MaxTTL), larger ones are refused.
 */
#ifndef EPHPM_KV_OPS_H
#define EPHPM_KV_OPS_H

#include <stddef.h>
#include <stdint.h>

#define EPHPM_KV_ABI_VERSION 2 /* 2: ephpm_kv_stats grew (fences, quarantined, evicted, bytes_evictable), ephpm_kv_config.shm_lock_timeout, set_evictable, get_multi, setnx_evictable, del_multi */
#define EPHPM_KV_MAX_KEY_SIZE (64 * 1024)
#define EPHPM_KV_MAX_TTL_SECONDS INT64_C(3153600000) /* 100 years: kv.MaxTTL */
#define EPHPM_KV_ERROR_MESSAGE_SIZE 256

/* Error codes (negated in return values). */
#define EPHPM_KV_E_INTERNAL      1 /* a bug: a panic caught at the boundary */
#define EPHPM_KV_E_EMPTY_KEY     2
#define EPHPM_KV_E_KEY_TOO_LARGE 3
#define EPHPM_KV_E_VALUE_TOO_LARGE 4
#define EPHPM_KV_E_BAD_TTL       5
#define EPHPM_KV_E_FULL          6 /* memory limit reached, nothing evicted */
#define EPHPM_KV_E_NOT_INTEGER   7
#define EPHPM_KV_E_OVERFLOW      8
#define EPHPM_KV_E_CONFIG        9
#define EPHPM_KV_E_UNAVAILABLE   10 /* the engine cannot be reached */
#define EPHPM_KV_E_BAD_ARGUMENT  11 /* a lease or rate-limit argument out of range (kv.ErrBadLease) */
#define EPHPM_KV_E_WRONG_TYPE    12 /* a lease op on another kind of value, or the reverse (kv.ErrNotLease) */
#define EPHPM_KV_E_CORRUPT       13 /* a stored record failed its checksum (shm.ErrCorrupt): quarantined */

/* lease_acquire() modes: kv.LeaseMode. */
#define EPHPM_KV_LEASE_SHARED    1 /* a reader */
#define EPHPM_KV_LEASE_EXCLUSIVE 2 /* a writer */
#define EPHPM_KV_LEASE_PERMIT    3 /* a semaphore permit, limit = its size */
#define EPHPM_KV_MAX_LEASE_TOKEN   64    /* kv.MaxLeaseToken bytes */
#define EPHPM_KV_MAX_LEASE_HOLDERS 1024  /* kv.MaxLeaseHolders */
#define EPHPM_KV_MAX_RATE_LIMIT    10000 /* kv.MaxRateLimit */
#define EPHPM_KV_LEADER_OVERHEAD   16    /* kv.LeaderOverhead: a leader record's bytes besides token and value */
#define EPHPM_KV_MAX_BARRIER_PARTIES 1024 /* kv.MaxBarrierParties */

/* scan()'s key kinds: kv.KeyKind. */
#define EPHPM_KV_KIND_VALUE     1 /* a held value: a lock's token, a counter, a session, a plain set */
#define EPHPM_KV_KIND_EVICTABLE 2 /* cache: set_evictable(), setnx_evictable() */
#define EPHPM_KV_KIND_LEASES    3 /* a lease set: a read/write lock or a semaphore */
#define EPHPM_KV_KIND_RATELOG   4 /* rate_limit()'s log */
#define EPHPM_KV_MAX_SCAN_COUNT 10000 /* kv.MaxScanCount: the keys one scan() visits at most */

/* Results of watch_state(). */
#define EPHPM_KV_WATCH_LOST    0 /* the owner check failed: renewal ended */
#define EPHPM_KV_WATCH_HELD    1 /* renewing */
#define EPHPM_KV_WATCH_STOPPED 2 /* unwatched, unknown, or max_hold passed */

/* Results of ttl(). */
#define EPHPM_KV_TTL_PERSISTENT (-1)
#define EPHPM_KV_TTL_MISSING    (-2)

typedef struct ephpm_kv_error {
	int32_t code;
	char message[EPHPM_KV_ERROR_MESSAGE_SIZE];
} ephpm_kv_error;

typedef struct ephpm_kv_config {
	int64_t memory_limit;   /* bytes; 0 = default */
	int64_t max_value_size; /* bytes; 0 = default */
	int64_t compress_min;   /* bytes; 0 = default, < 0 = never compress */
	int64_t shm_lock_timeout; /* ns a shared segment's stripe is waited for; 0 = default (5 s) */
} ephpm_kv_config;

/* TLS for a rediss:// server (ephpm.server_tls_*): NUL-terminated paths
 * and name, "" for unset. */
typedef struct ephpm_kv_tls {
	const char *ca_file;     /* PEM CA certificates the server's must chain to; "": the system's */
	const char *cert_file;   /* PEM client certificate; "": none */
	const char *key_file;    /* its private key */
	const char *server_name; /* name the server's certificate must carry; "": the address's host */
	int32_t verify_peer;     /* 0: accept any server certificate (encryption only) */
} ephpm_kv_tls;

typedef struct ephpm_kv_stats {
	int64_t keys;
	int64_t bytes_used;
	int64_t bytes_limit;
	int64_t hits;
	int64_t misses;
	int64_t expired;
	int64_t rejected;
	int64_t compressed;
	int64_t max_value_size;
	int64_t compress_min;
	int64_t fences;
	int64_t quarantined;
	int64_t evicted;
	int64_t bytes_evictable;
} ephpm_kv_stats;

typedef struct ephpm_kv_ops {
	uint32_t abi_version;
	uint32_t struct_size;

	/* Starts the engine. Call once, before any other op; a second call
	 * fails with EPHPM_KV_E_CONFIG. Ops called first use the defaults. */
	int (*configure)(const ephpm_kv_config *cfg, ephpm_kv_error *err);

	/* 1 found, 0 missing. *len receives the value's length; the value is
	 * copied into buf only when it fits in cap: call again with a larger
	 * buffer when *len > cap (the value may have changed meanwhile). */
	int (*get)(const char *key, size_t key_len, char *buf, size_t cap,
	           size_t *len, ephpm_kv_error *err);
	int (*set)(const char *key, size_t key_len, const char *val, size_t val_len,
	           int64_t ttl_ns, ephpm_kv_error *err);
	/* 1 stored, 0 a live entry exists. */
	int (*setnx)(const char *key, size_t key_len, const char *val, size_t val_len,
	             int64_t ttl_ns, ephpm_kv_error *err);
	/* 1 deleted a live entry, 0 none. */
	int (*del)(const char *key, size_t key_len, ephpm_kv_error *err);
	/* 1 deleted because the live value equals token, 0 otherwise. */
	int (*del_if_eq)(const char *key, size_t key_len, const char *token,
	                 size_t token_len, ephpm_kv_error *err);
	int (*exists)(const char *key, size_t key_len, ephpm_kv_error *err);
	int (*expire)(const char *key, size_t key_len, int64_t ttl_ns,
	              ephpm_kv_error *err);
	int (*expire_if_eq)(const char *key, size_t key_len, const char *token,
	                    size_t token_len, int64_t ttl_ns, ephpm_kv_error *err);
	/* *ttl_ns receives ns left, EPHPM_KV_TTL_PERSISTENT or _MISSING. */
	int (*ttl)(const char *key, size_t key_len, int64_t *ttl_ns,
	           ephpm_kv_error *err);
	/* Creates the key at 0 with ttl_ns when absent; *result is the new value. */
	int (*incr)(const char *key, size_t key_len, int64_t by, int64_t ttl_ns,
	            int64_t *result, ephpm_kv_error *err);
	int (*flush)(ephpm_kv_error *err);
	int (*stats)(ephpm_kv_stats *out, ephpm_kv_error *err);

	/* setnx that also issues a fencing token, taken from one store-wide
	 * counter under the insert's lock: 1 acquired (*fence set), 0 held. */
	int (*setnx_fenced)(const char *key, size_t key_len, const char *val, size_t val_len,
	                    int64_t ttl_ns, int64_t *fence, ephpm_kv_error *err);
	/* Records fence for resource: 1 when it is at least the highest fence
	 * seen for resource, 0 when it is stale. */
	int (*fence)(const char *resource, size_t resource_len, int64_t fence,
	             ephpm_kv_error *err);
	/* ttl() of a live key whose value equals token, else 0 with *ttl_ns =
	 * EPHPM_KV_TTL_MISSING: "is this lock still mine, for how long". */
	int (*ttl_if_eq)(const char *key, size_t key_len, const char *token,
	                 size_t token_len, int64_t *ttl_ns, ephpm_kv_error *err);

	/* Instead of configure: every op goes to the ephpm-kv server at url
	 * (unix:///path or tcp://host:port), or to a Valkey or Redis there
	 * (also redis://host:port), one connection per process. An
	 * unreachable server or a timeout is EPHPM_KV_E_UNAVAILABLE. */
	int (*configure_server)(const char *url, size_t url_len, const char *password,
	                        size_t password_len, int64_t timeout_ns, ephpm_kv_error *err);

	/* A session's read in one step (one round trip in server mode):
	 * setnx(lock_key, token, lock_ttl_ns) and, only when that acquired the
	 * lock, get(key) into buf as get() does. 0 the lock is held (nothing
	 * read), 1 acquired and key missing, 2 acquired and key found: *len
	 * receives its length; when *len > cap, call get() with a larger
	 * buffer. */
	int (*lock_and_get)(const char *lock_key, size_t lock_key_len, const char *token,
	                    size_t token_len, int64_t lock_ttl_ns, const char *key, size_t key_len,
	                    char *buf, size_t cap, size_t *len, ephpm_kv_error *err);
	/* A session's write in one step: while lock_key's live value equals
	 * token, renews it to lock_ttl_ns, then sets key to val with ttl_ns: 1.
	 * Otherwise nothing is written: 0. Check and renewal are atomic; the
	 * write follows, so no setnx can take the renewed lock before it. With
	 * release != 0 the lock is then given back (del_if_eq), after the
	 * write: a session's last write and its close in one round trip. */
	int (*set_if_locked)(const char *key, size_t key_len, const char *val, size_t val_len,
	                     int64_t ttl_ns, const char *lock_key, size_t lock_key_len,
	                     const char *token, size_t token_len, int64_t lock_ttl_ns,
	                     int release, ephpm_kv_error *err);

	/* Instead of configure: the shared-memory engine on a segment the caller
	 * mapped MAP_SHARED before forking (or opened by name). A zeroed segment
	 * is formatted; one formatted by another layout version or for another
	 * size is refused with EPHPM_KV_E_CONFIG. cfg->memory_limit is ignored:
	 * the segment's size is the limit. The mapping must outlive the process's
	 * use of the store. */
	int (*configure_shm)(void *base, size_t size, const ephpm_kv_config *cfg,
	                     ephpm_kv_error *err);
	/* Sleeps until key may have been released (deleted, expired, or
	 * changed) or timeout_ns passed, whichever comes first; spurious
	 * wake-ups are allowed, so the caller retries its setnx either way.
	 * 1 woken by a change, 0 timed out, 2 the engine cannot wait on a key
	 * (in-process map, server): the caller sleeps its own backoff instead. */
	int (*wait_release)(const char *key, size_t key_len, int64_t timeout_ns,
	                    ephpm_kv_error *err);

	/* configure_server with TLS settings: url may then also be
	 * rediss://host:port (a Valkey or Redis over TLS). Files are read
	 * here: an unreadable or malformed one is EPHPM_KV_E_CONFIG, as are
	 * TLS settings for any other address. A server certificate that does
	 * not verify shows at the first operation, as
	 * EPHPM_KV_E_UNAVAILABLE. tls NULL: none. */
	int (*configure_server_tls)(const char *url, size_t url_len, const char *password,
	                            size_t password_len, int64_t timeout_ns, const ephpm_kv_tls *tls,
	                            ephpm_kv_error *err);

	/* A lock watchdog: a goroutine renews key to ttl_ns (expire_if_eq with
	 * token) every ttl_ns/3 until unwatch(), until the owner check fails,
	 * or until max_hold_ns after this call; a store error is retried at
	 * the next tick. *handle receives its handle. In server mode the
	 * renewals use a connection of their own. */
	int (*watch)(const char *key, size_t key_len, const char *token, size_t token_len,
	             int64_t ttl_ns, int64_t max_hold_ns, int64_t *handle, ephpm_kv_error *err);
	/* Stops the watchdog and forgets handle: 1 stopped, 0 unknown. A
	 * renewal in flight may still land; it is token-checked. */
	int (*unwatch)(int64_t handle, ephpm_kv_error *err);
	/* EPHPM_KV_WATCH_*, without a store round trip. */
	int (*watch_state)(int64_t handle, ephpm_kv_error *err);

	/* Leases (kv.Leases): one key, many holders, each a token with its own
	 * expiry and fence (from setnx_fenced's counter). A key holding
	 * anything else is EPHPM_KV_E_WRONG_TYPE; bad arguments (token 1 to
	 * EPHPM_KV_MAX_LEASE_TOKEN bytes, limit, mode) EPHPM_KV_E_BAD_ARGUMENT,
	 * ttl_ns <= 0 EPHPM_KV_E_BAD_TTL. */
	/* 1 granted (*fence set; a holder re-acquiring keeps its fence), 0
	 * refused. mode EPHPM_KV_LEASE_*; limit the permits (PERMIT only).
	 * intent_ns > 0 (EXCLUSIVE, when refused): records the token's intent
	 * to write for that long (at most ttl_ns): new readers are refused
	 * meanwhile. */
	int (*lease_acquire)(const char *key, size_t key_len, const char *token, size_t token_len,
	                     int32_t mode, int64_t limit, int64_t ttl_ns, int64_t intent_ns,
	                     int64_t *fence, ephpm_kv_error *err);
	/* Drops token's lease or intent: 1 it held a live lease, 0 not. */
	int (*lease_release)(const char *key, size_t key_len, const char *token, size_t token_len,
	                     ephpm_kv_error *err);
	/* Renews token's live lease to ttl_ns: 1, or 0 when it holds none. */
	int (*lease_renew)(const char *key, size_t key_len, const char *token, size_t token_len,
	                   int64_t ttl_ns, ephpm_kv_error *err);
	/* *count receives the live holders (intents excluded). */
	int (*lease_count)(const char *key, size_t key_len, int64_t *count, ephpm_kv_error *err);
	/* Exact sliding-window limiter (kv.RateLimiter): 1 admitted (and
	 * recorded), 0 refused. *remaining: calls the window still admits;
	 * *retry_after_ns: when refused, until the oldest admitted call leaves
	 * the window (0 when admitted). limit 1 to EPHPM_KV_MAX_RATE_LIMIT. */
	int (*rate_limit)(const char *key, size_t key_len, int64_t limit, int64_t window_ns,
	                  int64_t *remaining, int64_t *retry_after_ns, ephpm_kv_error *err);
	/* A read, as ttl_if_eq is for a lock: 1 and *ttl_ns the time left of
	 * token's live lease, or 0 and *ttl_ns = EPHPM_KV_TTL_MISSING when it
	 * holds none (an intent is not a lease). Never extends the lease. On
	 * etcd the time is whole seconds (its lease TimeToLive; the last one
	 * reads as 1 ms). Check EPHPM_OPS_HAS: appended after rate_limit. */
	int (*lease_ttl)(const char *key, size_t key_len, const char *token, size_t token_len,
	                 int64_t *ttl_ns, ephpm_kv_error *err);
	/* set, storing an evictable entry (cache: kv.Cache); a held one on an
	 * engine without them (etcd, Redis). Check EPHPM_OPS_HAS: appended
	 * after lease_ttl. */
	int (*set_evictable)(const char *key, size_t key_len, const char *val, size_t val_len,
	                     int64_t ttl_ns, ephpm_kv_error *err);
	/* n gets in one call. The values found are copied one after another
	 * into buf, in the keys' order; lens[i] receives key i's value length,
	 * or -1 when it is absent or expired. 1, or 0 when buf was too small:
	 * *need then holds the bytes all the values take (call again with that
	 * much: they may have grown meanwhile). Check EPHPM_OPS_HAS: appended
	 * after set_evictable. */
	int (*get_multi)(size_t n, const char *const *keys, const size_t *key_lens,
	                 char *buf, size_t cap, int64_t *lens, size_t *need, ephpm_kv_error *err);
	/* setnx, storing an evictable entry (a cache's add; never a lock): 1
	 * stored, 0 a live entry of either kind was there. A held setnx on an
	 * engine without evictable entries. Check EPHPM_OPS_HAS: appended after
	 * get_multi. */
	int (*setnx_evictable)(const char *key, size_t key_len, const char *val, size_t val_len,
	                       int64_t ttl_ns, ephpm_kv_error *err);
	/* Deletes n keys, *deleted the number of live ones that went (a key
	 * named twice counts once): 1, or an error before anything went when a
	 * key is bad. Check EPHPM_OPS_HAS: appended after setnx_evictable. */
	int (*del_multi)(size_t n, const char *const *keys, const size_t *key_lens, int64_t *deleted,
	                 ephpm_kv_error *err);
	/* Compare-and-swap (kv.Swapper): stores val with ttl_ns only while key
	 * is live and its value equals old: 1 stored, 0 not. Check
	 * EPHPM_OPS_HAS: appended after del_multi, as are all below. */
	int (*set_if_eq)(const char *key, size_t key_len, const char *val, size_t val_len,
	                 const char *old, size_t old_len, int64_t ttl_ns, ephpm_kv_error *err);

	/* Leader election (kv.Campaign), one attempt: 1 elected, 0 someone else
	 * leads. Elected: *term is a fence (greater than every fence issued
	 * before), and rec (rec_cap at least value_len + token_len +
	 * EPHPM_KV_LEADER_OVERHEAD) receives the record now stored under key,
	 * *rec_len bytes: the token that refresh, resign, isLeader and the
	 * watchdog pass to expire_if_eq, del_if_eq, ttl_if_eq and watch. token
	 * is 1 to EPHPM_KV_MAX_LEASE_TOKEN bytes, unique per campaign. */
	int (*leader_campaign)(const char *key, size_t key_len, const char *token, size_t token_len,
	                       const char *value, size_t value_len, int64_t ttl_ns, int64_t *term,
	                       char *rec, size_t rec_cap, size_t *rec_len, ephpm_kv_error *err);
	/* The current leader: 1 with *term, *remaining_ns and the value copied
	 * into buf when it fits (*value_len is its full length: when larger
	 * than cap, call again with a larger buf), 0 when nobody leads. */
	int (*leader_current)(const char *key, size_t key_len, char *buf, size_t cap, size_t *value_len,
	                      int64_t *term, int64_t *remaining_ns, ephpm_kv_error *err);
	/* Barrier (kv.BarrierWait): blocks until parties callers of key have
	 * arrived in this round (1, all pass together) or timeout_ns passes
	 * (0, the caller's arrival withdrawn). parties 1 to
	 * EPHPM_KV_MAX_BARRIER_PARTIES; timeout_ns > 0. */
	int (*barrier_wait)(const char *key, size_t key_len, int64_t parties, int64_t timeout_ns,
	                    ephpm_kv_error *err);
	/* A reliable queue (kv.Queue) named key (its jobs are the keys key +
	 * ":job:" + id). push: *id the new job's id (1, 2, ...), visible after
	 * delay_ns. Full: EPHPM_KV_E_FULL, and nothing was queued. */
	int (*queue_push)(const char *key, size_t key_len, const char *payload, size_t payload_len,
	                  int64_t delay_ns, int64_t *id, ephpm_kv_error *err);
	/* Takes the oldest visible job for token (1 to EPHPM_KV_MAX_LEASE_TOKEN
	 * bytes, unique per pop), invisible to others for visibility_ns: 1 with
	 * *id, *attempts (its deliveries, this one counted) and *payload, a
	 * malloc()ed copy the caller free()s, of *payload_len bytes; 0 when
	 * none came within wait_ns (0: no wait). A visible job delivered
	 * max_attempts times already goes to the dead list instead. */
	int (*queue_pop)(const char *key, size_t key_len, const char *token, size_t token_len,
	                 int64_t visibility_ns, int64_t max_attempts, int64_t wait_ns, int64_t *id,
	                 int64_t *attempts, char **payload, size_t *payload_len, ephpm_kv_error *err);
	/* Deletes job id while token's delivery of it is still invisible: 1, 0
	 * when its visibility ran out (another worker may have it). */
	int (*queue_ack)(const char *key, size_t key_len, int64_t id, const char *token, size_t token_len,
	                 ephpm_kv_error *err);
	/* Makes job id visible again after delay_ns, while token's delivery is
	 * still invisible: 1, else 0. */
	int (*queue_release)(const char *key, size_t key_len, int64_t id, const char *token, size_t token_len,
	                     int64_t delay_ns, ephpm_kv_error *err);
	/* Extends token's delivery of job id to visibility_ns from now: 1, 0
	 * when it ran out already. */
	int (*queue_touch)(const char *key, size_t key_len, int64_t id, const char *token, size_t token_len,
	                   int64_t visibility_ns, ephpm_kv_error *err);
	/* *size: the jobs queued, delayed or delivered and not acknowledged, the
	 * dead ones not counted (a job past max_attempts whose visibility ran
	 * out is dead). */
	int (*queue_size)(const char *key, size_t key_len, int64_t max_attempts, int64_t *size,
	                  ephpm_kv_error *err);
	/* The dead list, oldest first, at most limit jobs: *buf a malloc()ed
	 * buffer the caller free()s of *len bytes, each job packed as id,
	 * attempts and payload length (three int64, native byte order) then
	 * the payload. */
	int (*queue_dead)(const char *key, size_t key_len, int64_t max_attempts, int64_t limit, char **buf,
	                  size_t *len, ephpm_kv_error *err);
	/* Moves dead job id (-1: every dead job) back to the queue with its
	 * attempts reset: *moved how many. */
	int (*queue_retry)(const char *key, size_t key_len, int64_t max_attempts, int64_t id, int64_t *moved,
	                   ephpm_kv_error *err);

	/* One step of a walk over the live keys (kv.Scanner), as Redis's SCAN:
	 * visits up to count (1 to EPHPM_KV_MAX_SCAN_COUNT) keys from cursor
	 * (cursor_len 0: the start) and reports those that match match (a
	 * Redis glob: * ? [set] and \ quoting a byte; match_len 0: every key).
	 * A key live for the whole walk is reported at least once, one may be
	 * reported twice, and a step may report none while the walk goes on.
	 * *buf: a malloc()ed buffer the caller free()s, of *len bytes: the next
	 * cursor's length (int64, native byte order) and the cursor, then for
	 * each key its kind (EPHPM_KV_KIND_*), ttl_ns (ns left, or
	 * EPHPM_KV_TTL_PERSISTENT), size (the value's bytes before
	 * compression; for a lease set or a rate log the bytes the engine keeps
	 * for it), fence (kv.KeyInfo.Fence: a fenced lock's, a lease set's newest
	 * holder's, 0 for none) and key length (five int64), then the key. 1 the walk goes on
	 * (pass the cursor back), 0 it is done (the cursor is empty). A cursor
	 * the engine did not return is EPHPM_KV_E_BAD_ARGUMENT. Check
	 * EPHPM_OPS_HAS: appended after queue_retry. */
	int (*scan)(const char *cursor, size_t cursor_len, const char *match, size_t match_len, int64_t count,
	            char **buf, size_t *len, ephpm_kv_error *err);
} ephpm_kv_ops;

/* The library's only entry point besides the table itself. */
const ephpm_kv_ops *ephpm_kv_get_ops(void);
typedef const ephpm_kv_ops *(*ephpm_kv_get_ops_fn)(void);

#endif
