/* Loading the Go library: lazily, once per process, never across a fork. */
#ifndef EPHPM_LIBRARY_H
#define EPHPM_LIBRARY_H

#include "php.h"
#include "ephpm_kv_ops.h"
#include "ephpm_shm.h"

extern const ephpm_kv_ops *ephpm_library_ops;

/* Loads the library on first use; throws Ephpm\KvException and returns NULL
 * when it cannot be used in this process. With no frame to throw in (before
 * or after the script), the exceptions here are warnings. */
const ephpm_kv_ops *ephpm_library_load(void);

/* Every store call's way to the table: also where a named segment removed
 * or replaced under this process is noticed (checked once a second). */
static zend_always_inline const ephpm_kv_ops *ephpm_ops(void)
{
	const ephpm_kv_ops *ops = __atomic_load_n(&ephpm_library_ops, __ATOMIC_ACQUIRE);
	return EXPECTED(ops != NULL) && !ephpm_shm_recheck_due() ? ops : ephpm_library_load();
}

/* Whether the named segment was removed or replaced under this process:
 * locks held on it are not held (isAcquired() says false, not an error). */
static zend_always_inline bool ephpm_store_lost(void)
{
	return ephpm_shm_recheck_due() && ephpm_shm_lost();
}

/* Whether this process forked after the library started in its parent:
 * what it holds (locks, a session lock) is the parent's. */
bool ephpm_library_forked(void);

/* Turns a store error into Ephpm\KvException (or that warning), with a hint
 * at the fix. */
void ephpm_throw_store_error(const ephpm_kv_error *err);

/* Whether a table the library returned has member (tables are append-only;
 * struct_size says how far this one goes). */
#define EPHPM_OPS_HAS(ops, member) \
	((ops)->struct_size >= offsetof(ephpm_kv_ops, member) + sizeof((ops)->member) && (ops)->member)

/* The KvException (CONFIG) for a library whose table lacks the operations
 * what names ("leader election"): one older than the extension. For a
 * caller that found !EPHPM_OPS_HAS. */
void ephpm_throw_missing_ops(const char *what);

/* The engine that runs, or before first use the one it starts, from the
 * settings: ephpm.server set, the server; else the shared segment when
 * ephpm.shm_size > 0 (NONE when it cannot be used: first use throws); else
 * the in-process map. */
typedef enum {
	EPHPM_ENGINE_NONE,
	EPHPM_ENGINE_MAP,
	EPHPM_ENGINE_SHM,
	EPHPM_ENGINE_SERVER,
} ephpm_engine;

ephpm_engine ephpm_library_engine(void);

/* "map", "shm", "server" (ephpm_kv_stats()['engine']), or "none". */
const char *ephpm_engine_name(ephpm_engine engine);

/* For phpinfo(): the path that is or would be loaded, and the state. */
const char *ephpm_library_path(void);
const char *ephpm_library_state(void);

#endif
