/* Loading the Go library: lazily, once per process, never across a fork. */
#ifndef EPHPM_LIBRARY_H
#define EPHPM_LIBRARY_H

#include "php.h"
#include "ephpm_kv_ops.h"

extern const ephpm_kv_ops *ephpm_library_ops;

/* Loads the library on first use; throws Ephpm\KvException and returns NULL
 * when it cannot be used in this process. */
const ephpm_kv_ops *ephpm_library_load(void);

static zend_always_inline const ephpm_kv_ops *ephpm_ops(void)
{
	const ephpm_kv_ops *ops = __atomic_load_n(&ephpm_library_ops, __ATOMIC_ACQUIRE);
	return EXPECTED(ops != NULL) ? ops : ephpm_library_load();
}

/* Whether this process forked after the library started in its parent:
 * what it holds (locks, a session lock) is the parent's. */
bool ephpm_library_forked(void);

/* Turns a store error into Ephpm\KvException, with a hint at the fix. */
void ephpm_throw_store_error(const ephpm_kv_error *err);

/* For phpinfo(): the path that is or would be loaded, and the state. */
const char *ephpm_library_path(void);
const char *ephpm_library_state(void);

#endif
