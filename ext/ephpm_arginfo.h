/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: 434e096b7faa1f6276f461ca77ae41927bf608b6 */

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_get, 0, 1, IS_STRING, 1)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_set, 0, 2, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, value, IS_STRING, 0)
	ZEND_ARG_TYPE_MASK(0, ttl, MAY_BE_LONG|MAY_BE_DOUBLE, "0")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, evictable, _IS_BOOL, 0, "false")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_get_multi, 0, 1, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO(0, keys, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_del_multi, 0, 1, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, keys, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_remember, 0, 2, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, compute, IS_CALLABLE, 0)
	ZEND_ARG_TYPE_MASK(0, ttl, MAY_BE_LONG|MAY_BE_DOUBLE, "0")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, evictable, _IS_BOOL, 0, "true")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 0, "30")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_setnx, 0, 2, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, value, IS_STRING, 0)
	ZEND_ARG_TYPE_MASK(0, ttl, MAY_BE_LONG|MAY_BE_DOUBLE, "0")
ZEND_END_ARG_INFO()

#define arginfo_ephpm_kv_add arginfo_ephpm_kv_set

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_del, 0, 1, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_del_if_eq, 0, 2, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, token, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_exists, 0, 1, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_expire, 0, 2, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_MASK(0, ttl, MAY_BE_LONG|MAY_BE_DOUBLE, NULL)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_expire_if_eq, 0, 3, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, token, IS_STRING, 0)
	ZEND_ARG_TYPE_MASK(0, ttl, MAY_BE_LONG|MAY_BE_DOUBLE, NULL)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_MASK_EX(arginfo_ephpm_kv_ttl, 0, 1, MAY_BE_DOUBLE|MAY_BE_LONG)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_incr, 0, 1, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, by, IS_LONG, 0, "1")
	ZEND_ARG_TYPE_MASK(0, ttl, MAY_BE_LONG|MAY_BE_DOUBLE, "0")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_flush, 0, 0, _IS_BOOL, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_stats, 0, 0, IS_ARRAY, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_fence, 0, 2, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, resource, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, fence, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_rate_limit, 0, 3, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, limit, IS_LONG, 0)
	ZEND_ARG_TYPE_MASK(0, window, MAY_BE_LONG|MAY_BE_DOUBLE, NULL)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_scan, 0, 1, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO(1, cursor, IS_STRING, 1)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, pattern, IS_STRING, 0, "\'\'")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, count, IS_LONG, 0, "100")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_INFO_EX(arginfo_class_Ephpm_Lock___construct, 0, 0, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_Ephpm_Lock_acquire, 0, 1, Ephpm\\Lock, 1)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 0, "30")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 0, "0")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, autoRenew, _IS_BOOL, 0, "false")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, maxHold, IS_DOUBLE, 0, "300")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_Ephpm_Lock_acquireAll, 0, 1, Ephpm\\LockSet, 1)
	ZEND_ARG_TYPE_INFO(0, names, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 0, "30")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 0, "0")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Lock_run, 0, 2, IS_MIXED, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, fn, IS_CALLABLE, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 0, "30")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 0, "0")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Lock_refresh, 0, 0, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 1, "null")
ZEND_END_ARG_INFO()

#define arginfo_class_Ephpm_Lock_release arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_Lock_isAcquired arginfo_ephpm_kv_flush

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Lock_remaining, 0, 0, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_Ephpm_LockSet___construct arginfo_class_Ephpm_Lock___construct

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_Ephpm_LockSet_get, 0, 1, Ephpm\\Lock, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_Ephpm_LockSet_refresh arginfo_class_Ephpm_Lock_refresh

#define arginfo_class_Ephpm_LockSet_release arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_LockSet_isAcquired arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_ReadWriteLock___construct arginfo_class_Ephpm_Lock___construct

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_Ephpm_ReadWriteLock_read, 0, 1, Ephpm\\ReadWriteLock, 1)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 0, "30")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 0, "0")
ZEND_END_ARG_INFO()

#define arginfo_class_Ephpm_ReadWriteLock_write arginfo_class_Ephpm_ReadWriteLock_read

#define arginfo_class_Ephpm_ReadWriteLock_refresh arginfo_class_Ephpm_Lock_refresh

#define arginfo_class_Ephpm_ReadWriteLock_release arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_ReadWriteLock_isAcquired arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_ReadWriteLock_remaining arginfo_class_Ephpm_Lock_remaining

#define arginfo_class_Ephpm_Semaphore___construct arginfo_class_Ephpm_Lock___construct

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_Ephpm_Semaphore_acquire, 0, 2, Ephpm\\Semaphore, 1)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, permits, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 0, "30")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 0, "0")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Semaphore_holders, 0, 1, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_Ephpm_Semaphore_refresh arginfo_class_Ephpm_Lock_refresh

#define arginfo_class_Ephpm_Semaphore_release arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_Semaphore_isAcquired arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_Semaphore_remaining arginfo_class_Ephpm_Lock_remaining

#define arginfo_class_Ephpm_Leader___construct arginfo_class_Ephpm_Lock___construct

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_Ephpm_Leader_campaign, 0, 2, Ephpm\\Leader, 1)
	ZEND_ARG_TYPE_INFO(0, election, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, value, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, ttl, IS_DOUBLE, 0, "30")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 0, "0")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, autoRenew, _IS_BOOL, 0, "false")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Leader_current, 0, 1, IS_ARRAY, 1)
	ZEND_ARG_TYPE_INFO(0, election, IS_STRING, 0)
ZEND_END_ARG_INFO()

#define arginfo_class_Ephpm_Leader_isLeader arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_Leader_refresh arginfo_class_Ephpm_Lock_refresh

#define arginfo_class_Ephpm_Leader_resign arginfo_ephpm_kv_flush

#define arginfo_class_Ephpm_Leader_remaining arginfo_class_Ephpm_Lock_remaining

#define arginfo_class_Ephpm_Barrier___construct arginfo_class_Ephpm_Lock___construct

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Barrier_wait, 0, 3, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, parties, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO(0, timeout, IS_DOUBLE, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_INFO_EX(arginfo_class_Ephpm_Queue___construct, 0, 0, 1)
	ZEND_ARG_TYPE_INFO(0, name, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, visibility, IS_DOUBLE, 0, "30")
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, maxAttempts, IS_LONG, 0, "5")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Queue_push, 0, 1, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, payload, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, delay, IS_DOUBLE, 0, "0")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_OBJ_INFO_EX(arginfo_class_Ephpm_Queue_pop, 0, 0, Ephpm\\Job, 1)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, wait, IS_DOUBLE, 0, "0")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Queue_size, 0, 0, IS_LONG, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Queue_dead, 0, 0, IS_ARRAY, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, limit, IS_LONG, 0, "100")
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Queue_retry, 0, 0, IS_LONG, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, id, IS_STRING, 1, "null")
ZEND_END_ARG_INFO()

#define arginfo_class_Ephpm_Job___construct arginfo_class_Ephpm_Lock___construct

#define arginfo_class_Ephpm_Job_ack arginfo_ephpm_kv_flush

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_class_Ephpm_Job_release, 0, 0, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO_WITH_DEFAULT_VALUE(0, delay, IS_DOUBLE, 0, "0")
ZEND_END_ARG_INFO()

#define arginfo_class_Ephpm_Job_touch arginfo_ephpm_kv_flush


ZEND_FUNCTION(ephpm_kv_get);
ZEND_FUNCTION(ephpm_kv_set);
ZEND_FUNCTION(ephpm_kv_get_multi);
ZEND_FUNCTION(ephpm_kv_del_multi);
ZEND_FUNCTION(ephpm_kv_remember);
ZEND_FUNCTION(ephpm_kv_setnx);
ZEND_FUNCTION(ephpm_kv_add);
ZEND_FUNCTION(ephpm_kv_del);
ZEND_FUNCTION(ephpm_kv_del_if_eq);
ZEND_FUNCTION(ephpm_kv_exists);
ZEND_FUNCTION(ephpm_kv_expire);
ZEND_FUNCTION(ephpm_kv_expire_if_eq);
ZEND_FUNCTION(ephpm_kv_ttl);
ZEND_FUNCTION(ephpm_kv_incr);
ZEND_FUNCTION(ephpm_kv_flush);
ZEND_FUNCTION(ephpm_kv_stats);
ZEND_FUNCTION(ephpm_kv_fence);
ZEND_FUNCTION(ephpm_kv_rate_limit);
ZEND_FUNCTION(ephpm_kv_scan);
ZEND_METHOD(Ephpm_Lock, __construct);
ZEND_METHOD(Ephpm_Lock, acquire);
ZEND_METHOD(Ephpm_Lock, acquireAll);
ZEND_METHOD(Ephpm_Lock, run);
ZEND_METHOD(Ephpm_Lock, refresh);
ZEND_METHOD(Ephpm_Lock, release);
ZEND_METHOD(Ephpm_Lock, isAcquired);
ZEND_METHOD(Ephpm_Lock, remaining);
ZEND_METHOD(Ephpm_LockSet, __construct);
ZEND_METHOD(Ephpm_LockSet, get);
ZEND_METHOD(Ephpm_LockSet, refresh);
ZEND_METHOD(Ephpm_LockSet, release);
ZEND_METHOD(Ephpm_LockSet, isAcquired);
ZEND_METHOD(Ephpm_ReadWriteLock, __construct);
ZEND_METHOD(Ephpm_ReadWriteLock, read);
ZEND_METHOD(Ephpm_ReadWriteLock, write);
ZEND_METHOD(Ephpm_ReadWriteLock, refresh);
ZEND_METHOD(Ephpm_ReadWriteLock, release);
ZEND_METHOD(Ephpm_ReadWriteLock, isAcquired);
ZEND_METHOD(Ephpm_ReadWriteLock, remaining);
ZEND_METHOD(Ephpm_Semaphore, __construct);
ZEND_METHOD(Ephpm_Semaphore, acquire);
ZEND_METHOD(Ephpm_Semaphore, holders);
ZEND_METHOD(Ephpm_Semaphore, refresh);
ZEND_METHOD(Ephpm_Semaphore, release);
ZEND_METHOD(Ephpm_Semaphore, isAcquired);
ZEND_METHOD(Ephpm_Semaphore, remaining);
ZEND_METHOD(Ephpm_Leader, __construct);
ZEND_METHOD(Ephpm_Leader, campaign);
ZEND_METHOD(Ephpm_Leader, current);
ZEND_METHOD(Ephpm_Leader, isLeader);
ZEND_METHOD(Ephpm_Leader, refresh);
ZEND_METHOD(Ephpm_Leader, resign);
ZEND_METHOD(Ephpm_Leader, remaining);
ZEND_METHOD(Ephpm_Barrier, __construct);
ZEND_METHOD(Ephpm_Barrier, wait);
ZEND_METHOD(Ephpm_Queue, __construct);
ZEND_METHOD(Ephpm_Queue, push);
ZEND_METHOD(Ephpm_Queue, pop);
ZEND_METHOD(Ephpm_Queue, size);
ZEND_METHOD(Ephpm_Queue, dead);
ZEND_METHOD(Ephpm_Queue, retry);
ZEND_METHOD(Ephpm_Job, __construct);
ZEND_METHOD(Ephpm_Job, ack);
ZEND_METHOD(Ephpm_Job, release);
ZEND_METHOD(Ephpm_Job, touch);


static const zend_function_entry ext_functions[] = {
	ZEND_FE(ephpm_kv_get, arginfo_ephpm_kv_get)
	ZEND_FE(ephpm_kv_set, arginfo_ephpm_kv_set)
	ZEND_FE(ephpm_kv_get_multi, arginfo_ephpm_kv_get_multi)
	ZEND_FE(ephpm_kv_del_multi, arginfo_ephpm_kv_del_multi)
	ZEND_FE(ephpm_kv_remember, arginfo_ephpm_kv_remember)
	ZEND_FE(ephpm_kv_setnx, arginfo_ephpm_kv_setnx)
	ZEND_FE(ephpm_kv_add, arginfo_ephpm_kv_add)
	ZEND_FE(ephpm_kv_del, arginfo_ephpm_kv_del)
	ZEND_FE(ephpm_kv_del_if_eq, arginfo_ephpm_kv_del_if_eq)
	ZEND_FE(ephpm_kv_exists, arginfo_ephpm_kv_exists)
	ZEND_FE(ephpm_kv_expire, arginfo_ephpm_kv_expire)
	ZEND_FE(ephpm_kv_expire_if_eq, arginfo_ephpm_kv_expire_if_eq)
	ZEND_FE(ephpm_kv_ttl, arginfo_ephpm_kv_ttl)
	ZEND_FE(ephpm_kv_incr, arginfo_ephpm_kv_incr)
	ZEND_FE(ephpm_kv_flush, arginfo_ephpm_kv_flush)
	ZEND_FE(ephpm_kv_stats, arginfo_ephpm_kv_stats)
	ZEND_FE(ephpm_kv_fence, arginfo_ephpm_kv_fence)
	ZEND_FE(ephpm_kv_rate_limit, arginfo_ephpm_kv_rate_limit)
	ZEND_FE(ephpm_kv_scan, arginfo_ephpm_kv_scan)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_KvException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_LockTimeoutException_methods[] = {
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_Lock_methods[] = {
	ZEND_ME(Ephpm_Lock, __construct, arginfo_class_Ephpm_Lock___construct, ZEND_ACC_PRIVATE)
	ZEND_ME(Ephpm_Lock, acquire, arginfo_class_Ephpm_Lock_acquire, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_Lock, acquireAll, arginfo_class_Ephpm_Lock_acquireAll, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_Lock, run, arginfo_class_Ephpm_Lock_run, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_Lock, refresh, arginfo_class_Ephpm_Lock_refresh, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Lock, release, arginfo_class_Ephpm_Lock_release, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Lock, isAcquired, arginfo_class_Ephpm_Lock_isAcquired, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Lock, remaining, arginfo_class_Ephpm_Lock_remaining, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_LockSet_methods[] = {
	ZEND_ME(Ephpm_LockSet, __construct, arginfo_class_Ephpm_LockSet___construct, ZEND_ACC_PRIVATE)
	ZEND_ME(Ephpm_LockSet, get, arginfo_class_Ephpm_LockSet_get, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_LockSet, refresh, arginfo_class_Ephpm_LockSet_refresh, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_LockSet, release, arginfo_class_Ephpm_LockSet_release, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_LockSet, isAcquired, arginfo_class_Ephpm_LockSet_isAcquired, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_ReadWriteLock_methods[] = {
	ZEND_ME(Ephpm_ReadWriteLock, __construct, arginfo_class_Ephpm_ReadWriteLock___construct, ZEND_ACC_PRIVATE)
	ZEND_ME(Ephpm_ReadWriteLock, read, arginfo_class_Ephpm_ReadWriteLock_read, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_ReadWriteLock, write, arginfo_class_Ephpm_ReadWriteLock_write, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_ReadWriteLock, refresh, arginfo_class_Ephpm_ReadWriteLock_refresh, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_ReadWriteLock, release, arginfo_class_Ephpm_ReadWriteLock_release, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_ReadWriteLock, isAcquired, arginfo_class_Ephpm_ReadWriteLock_isAcquired, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_ReadWriteLock, remaining, arginfo_class_Ephpm_ReadWriteLock_remaining, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_Semaphore_methods[] = {
	ZEND_ME(Ephpm_Semaphore, __construct, arginfo_class_Ephpm_Semaphore___construct, ZEND_ACC_PRIVATE)
	ZEND_ME(Ephpm_Semaphore, acquire, arginfo_class_Ephpm_Semaphore_acquire, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_Semaphore, holders, arginfo_class_Ephpm_Semaphore_holders, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_Semaphore, refresh, arginfo_class_Ephpm_Semaphore_refresh, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Semaphore, release, arginfo_class_Ephpm_Semaphore_release, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Semaphore, isAcquired, arginfo_class_Ephpm_Semaphore_isAcquired, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Semaphore, remaining, arginfo_class_Ephpm_Semaphore_remaining, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_Leader_methods[] = {
	ZEND_ME(Ephpm_Leader, __construct, arginfo_class_Ephpm_Leader___construct, ZEND_ACC_PRIVATE)
	ZEND_ME(Ephpm_Leader, campaign, arginfo_class_Ephpm_Leader_campaign, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_Leader, current, arginfo_class_Ephpm_Leader_current, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_ME(Ephpm_Leader, isLeader, arginfo_class_Ephpm_Leader_isLeader, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Leader, refresh, arginfo_class_Ephpm_Leader_refresh, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Leader, resign, arginfo_class_Ephpm_Leader_resign, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Leader, remaining, arginfo_class_Ephpm_Leader_remaining, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_Barrier_methods[] = {
	ZEND_ME(Ephpm_Barrier, __construct, arginfo_class_Ephpm_Barrier___construct, ZEND_ACC_PRIVATE)
	ZEND_ME(Ephpm_Barrier, wait, arginfo_class_Ephpm_Barrier_wait, ZEND_ACC_PUBLIC|ZEND_ACC_STATIC)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_Queue_methods[] = {
	ZEND_ME(Ephpm_Queue, __construct, arginfo_class_Ephpm_Queue___construct, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Queue, push, arginfo_class_Ephpm_Queue_push, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Queue, pop, arginfo_class_Ephpm_Queue_pop, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Queue, size, arginfo_class_Ephpm_Queue_size, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Queue, dead, arginfo_class_Ephpm_Queue_dead, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Queue, retry, arginfo_class_Ephpm_Queue_retry, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_Job_methods[] = {
	ZEND_ME(Ephpm_Job, __construct, arginfo_class_Ephpm_Job___construct, ZEND_ACC_PRIVATE)
	ZEND_ME(Ephpm_Job, ack, arginfo_class_Ephpm_Job_ack, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Job, release, arginfo_class_Ephpm_Job_release, ZEND_ACC_PUBLIC)
	ZEND_ME(Ephpm_Job, touch, arginfo_class_Ephpm_Job_touch, ZEND_ACC_PUBLIC)
	ZEND_FE_END
};

static zend_class_entry *register_class_Ephpm_KvException(zend_class_entry *class_entry_RuntimeException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "KvException", class_Ephpm_KvException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_RuntimeException);

	zval const_INTERNAL_value;
	ZVAL_LONG(&const_INTERNAL_value, EPHPM_KV_E_INTERNAL);
	zend_string *const_INTERNAL_name = zend_string_init_interned("INTERNAL", sizeof("INTERNAL") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_INTERNAL_name, &const_INTERNAL_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_INTERNAL_name);

	zval const_EMPTY_KEY_value;
	ZVAL_LONG(&const_EMPTY_KEY_value, EPHPM_KV_E_EMPTY_KEY);
	zend_string *const_EMPTY_KEY_name = zend_string_init_interned("EMPTY_KEY", sizeof("EMPTY_KEY") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_EMPTY_KEY_name, &const_EMPTY_KEY_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_EMPTY_KEY_name);

	zval const_KEY_TOO_LARGE_value;
	ZVAL_LONG(&const_KEY_TOO_LARGE_value, EPHPM_KV_E_KEY_TOO_LARGE);
	zend_string *const_KEY_TOO_LARGE_name = zend_string_init_interned("KEY_TOO_LARGE", sizeof("KEY_TOO_LARGE") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_KEY_TOO_LARGE_name, &const_KEY_TOO_LARGE_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_KEY_TOO_LARGE_name);

	zval const_VALUE_TOO_LARGE_value;
	ZVAL_LONG(&const_VALUE_TOO_LARGE_value, EPHPM_KV_E_VALUE_TOO_LARGE);
	zend_string *const_VALUE_TOO_LARGE_name = zend_string_init_interned("VALUE_TOO_LARGE", sizeof("VALUE_TOO_LARGE") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_VALUE_TOO_LARGE_name, &const_VALUE_TOO_LARGE_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_VALUE_TOO_LARGE_name);

	zval const_BAD_TTL_value;
	ZVAL_LONG(&const_BAD_TTL_value, EPHPM_KV_E_BAD_TTL);
	zend_string *const_BAD_TTL_name = zend_string_init_interned("BAD_TTL", sizeof("BAD_TTL") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_BAD_TTL_name, &const_BAD_TTL_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_BAD_TTL_name);

	zval const_FULL_value;
	ZVAL_LONG(&const_FULL_value, EPHPM_KV_E_FULL);
	zend_string *const_FULL_name = zend_string_init_interned("FULL", sizeof("FULL") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_FULL_name, &const_FULL_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_FULL_name);

	zval const_NOT_INTEGER_value;
	ZVAL_LONG(&const_NOT_INTEGER_value, EPHPM_KV_E_NOT_INTEGER);
	zend_string *const_NOT_INTEGER_name = zend_string_init_interned("NOT_INTEGER", sizeof("NOT_INTEGER") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_NOT_INTEGER_name, &const_NOT_INTEGER_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_NOT_INTEGER_name);

	zval const_OVERFLOW_value;
	ZVAL_LONG(&const_OVERFLOW_value, EPHPM_KV_E_OVERFLOW);
	zend_string *const_OVERFLOW_name = zend_string_init_interned("OVERFLOW", sizeof("OVERFLOW") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_OVERFLOW_name, &const_OVERFLOW_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_OVERFLOW_name);

	zval const_CONFIG_value;
	ZVAL_LONG(&const_CONFIG_value, EPHPM_KV_E_CONFIG);
	zend_string *const_CONFIG_name = zend_string_init_interned("CONFIG", sizeof("CONFIG") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_CONFIG_name, &const_CONFIG_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_CONFIG_name);

	zval const_UNAVAILABLE_value;
	ZVAL_LONG(&const_UNAVAILABLE_value, EPHPM_KV_E_UNAVAILABLE);
	zend_string *const_UNAVAILABLE_name = zend_string_init_interned("UNAVAILABLE", sizeof("UNAVAILABLE") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_UNAVAILABLE_name, &const_UNAVAILABLE_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_UNAVAILABLE_name);

	zval const_BAD_ARGUMENT_value;
	ZVAL_LONG(&const_BAD_ARGUMENT_value, EPHPM_KV_E_BAD_ARGUMENT);
	zend_string *const_BAD_ARGUMENT_name = zend_string_init_interned("BAD_ARGUMENT", sizeof("BAD_ARGUMENT") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_BAD_ARGUMENT_name, &const_BAD_ARGUMENT_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_BAD_ARGUMENT_name);

	zval const_WRONG_TYPE_value;
	ZVAL_LONG(&const_WRONG_TYPE_value, EPHPM_KV_E_WRONG_TYPE);
	zend_string *const_WRONG_TYPE_name = zend_string_init_interned("WRONG_TYPE", sizeof("WRONG_TYPE") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_WRONG_TYPE_name, &const_WRONG_TYPE_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_WRONG_TYPE_name);

	zval const_CORRUPT_value;
	ZVAL_LONG(&const_CORRUPT_value, EPHPM_KV_E_CORRUPT);
	zend_string *const_CORRUPT_name = zend_string_init_interned("CORRUPT", sizeof("CORRUPT") - 1, 1);
	zend_declare_class_constant_ex(class_entry, const_CORRUPT_name, &const_CORRUPT_value, ZEND_ACC_PUBLIC, NULL);
	zend_string_release(const_CORRUPT_name);

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_LockTimeoutException(zend_class_entry *class_entry_RuntimeException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "LockTimeoutException", class_Ephpm_LockTimeoutException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_RuntimeException);

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_Lock(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "Lock", class_Ephpm_Lock_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_name_default_value;
	ZVAL_UNDEF(&property_name_default_value);
	zend_string *property_name_name = zend_string_init("name", sizeof("name") - 1, 1);
	zend_declare_typed_property(class_entry, property_name_name, &property_name_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_name_name);

	zval property_token_default_value;
	ZVAL_UNDEF(&property_token_default_value);
	zend_string *property_token_name = zend_string_init("token", sizeof("token") - 1, 1);
	zend_declare_typed_property(class_entry, property_token_name, &property_token_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_token_name);

	zval property_fence_default_value;
	ZVAL_UNDEF(&property_fence_default_value);
	zend_string *property_fence_name = zend_string_init("fence", sizeof("fence") - 1, 1);
	zend_declare_typed_property(class_entry, property_fence_name, &property_fence_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_fence_name);

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_LockSet(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "LockSet", class_Ephpm_LockSet_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_locks_default_value;
	ZVAL_UNDEF(&property_locks_default_value);
	zend_string *property_locks_name = zend_string_init("locks", sizeof("locks") - 1, 1);
	zend_declare_typed_property(class_entry, property_locks_name, &property_locks_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_ARRAY));
	zend_string_release(property_locks_name);

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_ReadWriteLock(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "ReadWriteLock", class_Ephpm_ReadWriteLock_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_name_default_value;
	ZVAL_UNDEF(&property_name_default_value);
	zend_string *property_name_name = zend_string_init("name", sizeof("name") - 1, 1);
	zend_declare_typed_property(class_entry, property_name_name, &property_name_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_name_name);

	zval property_token_default_value;
	ZVAL_UNDEF(&property_token_default_value);
	zend_string *property_token_name = zend_string_init("token", sizeof("token") - 1, 1);
	zend_declare_typed_property(class_entry, property_token_name, &property_token_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_token_name);

	zval property_fence_default_value;
	ZVAL_UNDEF(&property_fence_default_value);
	zend_string *property_fence_name = zend_string_init("fence", sizeof("fence") - 1, 1);
	zend_declare_typed_property(class_entry, property_fence_name, &property_fence_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_fence_name);

	zval property_mode_default_value;
	ZVAL_UNDEF(&property_mode_default_value);
	zend_string *property_mode_name = zend_string_init("mode", sizeof("mode") - 1, 1);
	zend_declare_typed_property(class_entry, property_mode_name, &property_mode_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_mode_name);

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_Semaphore(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "Semaphore", class_Ephpm_Semaphore_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_name_default_value;
	ZVAL_UNDEF(&property_name_default_value);
	zend_string *property_name_name = zend_string_init("name", sizeof("name") - 1, 1);
	zend_declare_typed_property(class_entry, property_name_name, &property_name_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_name_name);

	zval property_token_default_value;
	ZVAL_UNDEF(&property_token_default_value);
	zend_string *property_token_name = zend_string_init("token", sizeof("token") - 1, 1);
	zend_declare_typed_property(class_entry, property_token_name, &property_token_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_token_name);

	zval property_fence_default_value;
	ZVAL_UNDEF(&property_fence_default_value);
	zend_string *property_fence_name = zend_string_init("fence", sizeof("fence") - 1, 1);
	zend_declare_typed_property(class_entry, property_fence_name, &property_fence_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_fence_name);

	zval property_permits_default_value;
	ZVAL_UNDEF(&property_permits_default_value);
	zend_string *property_permits_name = zend_string_init("permits", sizeof("permits") - 1, 1);
	zend_declare_typed_property(class_entry, property_permits_name, &property_permits_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_permits_name);

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_Leader(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "Leader", class_Ephpm_Leader_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_election_default_value;
	ZVAL_UNDEF(&property_election_default_value);
	zend_string *property_election_name = zend_string_init("election", sizeof("election") - 1, 1);
	zend_declare_typed_property(class_entry, property_election_name, &property_election_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_election_name);

	zval property_value_default_value;
	ZVAL_UNDEF(&property_value_default_value);
	zend_string *property_value_name = zend_string_init("value", sizeof("value") - 1, 1);
	zend_declare_typed_property(class_entry, property_value_name, &property_value_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_value_name);

	zval property_term_default_value;
	ZVAL_UNDEF(&property_term_default_value);
	zend_string *property_term_name = zend_string_init("term", sizeof("term") - 1, 1);
	zend_declare_typed_property(class_entry, property_term_name, &property_term_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_term_name);

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_Barrier(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "Barrier", class_Ephpm_Barrier_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NOT_SERIALIZABLE;

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_Queue(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "Queue", class_Ephpm_Queue_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_name_default_value;
	ZVAL_UNDEF(&property_name_default_value);
	zend_string *property_name_name = zend_string_init("name", sizeof("name") - 1, 1);
	zend_declare_typed_property(class_entry, property_name_name, &property_name_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_name_name);

	zval property_visibility_default_value;
	ZVAL_UNDEF(&property_visibility_default_value);
	zend_string *property_visibility_name = zend_string_init("visibility", sizeof("visibility") - 1, 1);
	zend_declare_typed_property(class_entry, property_visibility_name, &property_visibility_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_DOUBLE));
	zend_string_release(property_visibility_name);

	zval property_maxAttempts_default_value;
	ZVAL_UNDEF(&property_maxAttempts_default_value);
	zend_string *property_maxAttempts_name = zend_string_init("maxAttempts", sizeof("maxAttempts") - 1, 1);
	zend_declare_typed_property(class_entry, property_maxAttempts_name, &property_maxAttempts_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_maxAttempts_name);

	return class_entry;
}

static zend_class_entry *register_class_Ephpm_Job(void)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "Job", class_Ephpm_Job_methods);
	class_entry = zend_register_internal_class_ex(&ce, NULL);
	class_entry->ce_flags |= ZEND_ACC_FINAL|ZEND_ACC_NO_DYNAMIC_PROPERTIES|ZEND_ACC_NOT_SERIALIZABLE;

	zval property_queue_default_value;
	ZVAL_UNDEF(&property_queue_default_value);
	zend_string *property_queue_name = zend_string_init("queue", sizeof("queue") - 1, 1);
	zend_declare_typed_property(class_entry, property_queue_name, &property_queue_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_queue_name);

	zval property_id_default_value;
	ZVAL_UNDEF(&property_id_default_value);
	zend_string *property_id_name = zend_string_init("id", sizeof("id") - 1, 1);
	zend_declare_typed_property(class_entry, property_id_name, &property_id_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_id_name);

	zval property_payload_default_value;
	ZVAL_UNDEF(&property_payload_default_value);
	zend_string *property_payload_name = zend_string_init("payload", sizeof("payload") - 1, 1);
	zend_declare_typed_property(class_entry, property_payload_name, &property_payload_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_STRING));
	zend_string_release(property_payload_name);

	zval property_attempts_default_value;
	ZVAL_UNDEF(&property_attempts_default_value);
	zend_string *property_attempts_name = zend_string_init("attempts", sizeof("attempts") - 1, 1);
	zend_declare_typed_property(class_entry, property_attempts_name, &property_attempts_default_value, ZEND_ACC_PUBLIC|ZEND_ACC_READONLY, NULL, (zend_type) ZEND_TYPE_INIT_MASK(MAY_BE_LONG));
	zend_string_release(property_attempts_name);

	return class_entry;
}
