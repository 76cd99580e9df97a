#ifndef EPHPM_LOCK_H
#define EPHPM_LOCK_H

#include "php.h"
#include "ephpm_acquire.h"
#include "ephpm_kv_ops.h"

extern zend_class_entry *ephpm_lock_ce;
extern zend_class_entry *ephpm_lock_timeout_exception_ce;

/* Wires the object handlers into the registered Ephpm\\Lock class. */
void ephpm_lock_init_class(zend_class_entry *ce);

/* Releases (compare-and-delete) every lock this request acquired and still
 * holds; for RSHUTDOWN, which runs even when destructors did not. */
void ephpm_lock_release_held(void);

/* Acquires name (already checked) with a new token, waiting up to wait_ns:
 * what Lock::acquire() does after its argument checks; on success
 * return_value holds the new, tracked Lock. */
ephpm_acquire_result ephpm_lock_take(const ephpm_kv_ops *ops, zend_string *name, int64_t ttl_ns, int64_t wait_ns,
	zval *return_value);

/* For Ephpm\LockSet, on its member Lock objects: */
/* The lock's key. */
zend_string *ephpm_lock_name(zend_object *lock);
/* Compare-and-delete: 1 released, 0 no longer ours, -1 store error. */
int ephpm_lock_release(zend_object *lock, const ephpm_kv_ops *ops, ephpm_kv_error *err);
/* One release attempt, a warning on failure (as the Lock's destructor). */
void ephpm_lock_release_unused(zend_object *lock, const char *when);
/* Gives the lock up without deleting it: its TTL frees it. */
void ephpm_lock_abandon(zend_object *lock);
/* Owner-only renewal to ttl_ns (0: the acquire TTL): 1, 0 lost, -1 error. */
int ephpm_lock_refresh(zend_object *lock, const ephpm_kv_ops *ops, int64_t ttl_ns, ephpm_kv_error *err);
/* 1 still ours and not expired, 0 not, -1 store error. */
int ephpm_lock_held(zend_object *lock, const ephpm_kv_ops *ops, ephpm_kv_error *err);

#endif
