/* The holder object behind Ephpm\ReadWriteLock and Ephpm\Semaphore: one
 * lease (token, fence, own expiry) on a name shared with other holders. */
#ifndef EPHPM_LEASE_H
#define EPHPM_LEASE_H

#include "php.h"
#include "ephpm_acquire.h"
#include "ephpm_kv_ops.h"

/* Property slots both classes declare first, in this order; each class's
 * own property (mode, permits) follows. */
#define EPHPM_LEASE_PROP_NAME 0
#define EPHPM_LEASE_PROP_TOKEN 1
#define EPHPM_LEASE_PROP_FENCE 2
#define EPHPM_LEASE_PROP_KIND 3

/* Wires the holder's handlers into a registered class. */
void ephpm_lease_init_class(zend_class_entry *ce);

/* The ops table, checked to have the lease ops; NULL with an exception
 * pending otherwise. */
const ephpm_kv_ops *ephpm_lease_ops(void);

/* Acquires name (already checked) in mode with a new token, waiting up to
 * wait_ns; on success return_value holds a new, tracked object of ce whose
 * EPHPM_LEASE_PROP_KIND receives kind (moved in; released on failure). A
 * writer waiting records its intent on each try and drops it on timeout. */
ephpm_acquire_result ephpm_lease_take(const ephpm_kv_ops *ops, zend_class_entry *ce, zend_string *name,
	int32_t mode, int64_t limit, int64_t ttl_ns, int64_t wait_ns, zval *kind, zval *return_value);

/* The bodies of refresh(), release(), isAcquired() and remaining(), the
 * same in both classes. */
void ephpm_lease_refresh(INTERNAL_FUNCTION_PARAMETERS);
void ephpm_lease_release(INTERNAL_FUNCTION_PARAMETERS);
void ephpm_lease_is_acquired(INTERNAL_FUNCTION_PARAMETERS);
void ephpm_lease_remaining(INTERNAL_FUNCTION_PARAMETERS);

/* Releases every holder this request took and still holds; RSHUTDOWN. */
void ephpm_lease_release_held(void);

#endif
