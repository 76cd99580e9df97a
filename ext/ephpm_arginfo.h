/* This is a generated file, edit the .stub.php file instead.
 * Stub hash: ca9cd37eff165e2055f6bdca2a37c34316675383 */

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_get, 0, 1, IS_STRING, 1)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
ZEND_END_ARG_INFO()

ZEND_BEGIN_ARG_WITH_RETURN_TYPE_INFO_EX(arginfo_ephpm_kv_set, 0, 2, _IS_BOOL, 0)
	ZEND_ARG_TYPE_INFO(0, key, IS_STRING, 0)
	ZEND_ARG_TYPE_INFO(0, value, IS_STRING, 0)
	ZEND_ARG_TYPE_MASK(0, ttl, MAY_BE_LONG|MAY_BE_DOUBLE, "0")
ZEND_END_ARG_INFO()

#define arginfo_ephpm_kv_setnx arginfo_ephpm_kv_set

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


ZEND_FUNCTION(ephpm_kv_get);
ZEND_FUNCTION(ephpm_kv_set);
ZEND_FUNCTION(ephpm_kv_setnx);
ZEND_FUNCTION(ephpm_kv_del);
ZEND_FUNCTION(ephpm_kv_del_if_eq);
ZEND_FUNCTION(ephpm_kv_exists);
ZEND_FUNCTION(ephpm_kv_expire);
ZEND_FUNCTION(ephpm_kv_expire_if_eq);
ZEND_FUNCTION(ephpm_kv_ttl);
ZEND_FUNCTION(ephpm_kv_incr);
ZEND_FUNCTION(ephpm_kv_flush);
ZEND_FUNCTION(ephpm_kv_stats);


static const zend_function_entry ext_functions[] = {
	ZEND_FE(ephpm_kv_get, arginfo_ephpm_kv_get)
	ZEND_FE(ephpm_kv_set, arginfo_ephpm_kv_set)
	ZEND_FE(ephpm_kv_setnx, arginfo_ephpm_kv_setnx)
	ZEND_FE(ephpm_kv_del, arginfo_ephpm_kv_del)
	ZEND_FE(ephpm_kv_del_if_eq, arginfo_ephpm_kv_del_if_eq)
	ZEND_FE(ephpm_kv_exists, arginfo_ephpm_kv_exists)
	ZEND_FE(ephpm_kv_expire, arginfo_ephpm_kv_expire)
	ZEND_FE(ephpm_kv_expire_if_eq, arginfo_ephpm_kv_expire_if_eq)
	ZEND_FE(ephpm_kv_ttl, arginfo_ephpm_kv_ttl)
	ZEND_FE(ephpm_kv_incr, arginfo_ephpm_kv_incr)
	ZEND_FE(ephpm_kv_flush, arginfo_ephpm_kv_flush)
	ZEND_FE(ephpm_kv_stats, arginfo_ephpm_kv_stats)
	ZEND_FE_END
};


static const zend_function_entry class_Ephpm_KvException_methods[] = {
	ZEND_FE_END
};

static zend_class_entry *register_class_Ephpm_KvException(zend_class_entry *class_entry_RuntimeException)
{
	zend_class_entry ce, *class_entry;

	INIT_NS_CLASS_ENTRY(ce, "Ephpm", "KvException", class_Ephpm_KvException_methods);
	class_entry = zend_register_internal_class_ex(&ce, class_entry_RuntimeException);

	return class_entry;
}
