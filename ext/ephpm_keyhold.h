/* One key held by a token: the object behind Ephpm\Lock and Ephpm\Leader.
 * Giving it back is compare-and-delete (del_if_eq), renewing it owner-only
 * (expire_if_eq), reading it a ttl_if_eq, and a watchdog (watch) may renew
 * it; a hold PHP is done with goes as ephpm_holder.h says. The token is
 * what the store holds under the key: a Lock's random token, a Leader's
 * whole record. */
#ifndef EPHPM_KEYHOLD_H
#define EPHPM_KEYHOLD_H

#include "php.h"
#include "ephpm_holder.h"
#include "ephpm_kv_ops.h"

/* Seconds a watchdog renews for at most, unless told otherwise:
 * Lock::acquire()'s $maxHold default, and every Leader's. */
#define EPHPM_KEYHOLD_MAX_HOLD 300.0

typedef struct ephpm_keyhold {
	ephpm_holder h;
	int64_t watch; /* the watchdog's handle (autoRenew), 0 for none */
	zend_object std;
} ephpm_keyhold;

static zend_always_inline ephpm_keyhold *ephpm_keyhold_from(zend_object *obj)
{
	return (ephpm_keyhold *)((char *)obj - XtOffsetOf(ephpm_keyhold, std));
}

/* A class's holder kind, named noun in warnings (NULL: the class's name):
 * give-back and watchdog stop are the key hold's. */
#define EPHPM_KEYHOLD_KIND(noun) { ephpm_keyhold_give_back, ephpm_keyhold_stop_watch, noun }
int ephpm_keyhold_give_back(ephpm_holder *h, const ephpm_kv_ops *ops, ephpm_kv_error *err);
void ephpm_keyhold_stop_watch(ephpm_holder *h);

/* Wires the handlers into a registered class (final, its constructor
 * private: its objects come from ephpm_keyhold_new() only). */
void ephpm_keyhold_init_class(zend_class_entry *ce);

/* A new object of ce in zv, a hold of kind on key with token for ttl_ns,
 * tracked in this request's list of locks (released at its end:
 * RSHUTDOWN's ephpm_lock_release_held()). Both strings are copied. */
ephpm_keyhold *ephpm_keyhold_new(zend_class_entry *ce, const ephpm_holder_kind *kind, zval *zv, zend_string *key,
	const char *token, size_t token_len, int64_t ttl_ns);

/* Starts the watchdog on the hold in zv: renewed to its TTL every TTL/3
 * for max_hold_ns. On a store error the hold is given back, zv destroyed
 * (UNDEF) and false returned with the exception pending: it is not held
 * without the renewal the caller asked for. */
bool ephpm_keyhold_watch(zval *zv, const ephpm_kv_ops *ops, int64_t max_hold_ns);

/* Owner-only renewal to ttl_ns (0: the hold's TTL): 1, 0 lost or given
 * back, -1 store error. */
int ephpm_keyhold_refresh(ephpm_keyhold *k, const ephpm_kv_ops *ops, int64_t ttl_ns, ephpm_kv_error *err);
/* 1 still ours and not expired, 0 not, -1 store error. */
int ephpm_keyhold_held(ephpm_keyhold *k, const ephpm_kv_ops *ops, ephpm_kv_error *err);

/* The bodies of the methods both classes have: refresh(?float $ttl = null),
 * release() (a Leader's resign()), isAcquired() (isLeader()) and
 * remaining(). */
void ephpm_keyhold_refresh_method(INTERNAL_FUNCTION_PARAMETERS);
void ephpm_keyhold_release_method(INTERNAL_FUNCTION_PARAMETERS);
void ephpm_keyhold_held_method(INTERNAL_FUNCTION_PARAMETERS);
void ephpm_keyhold_remaining_method(INTERNAL_FUNCTION_PARAMETERS);

#endif
