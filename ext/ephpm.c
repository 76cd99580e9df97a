/* Module entry: ini settings, classes, phpinfo. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "php.h"
#include "php_ini.h"
#include "ext/standard/info.h"
#include "SAPI.h"
#include "zend_exceptions.h"
#include "spl/spl_exceptions.h"

#include "php_ephpm.h"
#include "ephpm_args.h"
#include "ephpm_library.h"
#include "ephpm_leader.h"
#include "ephpm_lock.h"
#include "ephpm_lease.h"
#include "ephpm_lockset.h"
#include "ephpm_queue.h"
#include "ephpm_rwlock.h"
#include "ephpm_semaphore.h"
#include "ephpm_session.h"
#include "ephpm_shm.h"
#include "ephpm_token.h"
#include "ephpm_arginfo.h"

ZEND_DECLARE_MODULE_GLOBALS(ephpm)

zend_class_entry *ephpm_kv_exception_ce;

/* A byte size such as "64M"; min is the smallest value accepted. */
static ZEND_INI_MH(OnUpdateEphpmBytes)
{
	zend_long min = (zend_long)(uintptr_t)mh_arg3;
	zend_long value = zend_ini_parse_quantity_warn(new_value, entry->name);
	if (value < min) {
		php_error_docref(NULL, E_WARNING, "Invalid \"%s\" setting: must be at least " ZEND_LONG_FMT " bytes",
			ZSTR_VAL(entry->name), min);
		return FAILURE;
	}
	*(zend_long *)ZEND_INI_GET_ADDR() = value;
	return SUCCESS;
}

/* ephpm.shm_size: 0 turns the shared segment off. A value that is not a
 * quantity is refused, not read as 0 (which would turn sharing off): an
 * empty one too, which zend_ini_parse_quantity reads as 0. */
static ZEND_INI_MH(OnUpdateEphpmShmSize)
{
	zend_string *errstr = NULL;
	zend_long value = zend_ini_parse_quantity(new_value, &errstr);
	bool blank = true;
	for (size_t i = 0; i < ZSTR_LEN(new_value); i++) {
		blank = blank && isspace((unsigned char)ZSTR_VAL(new_value)[i]);
	}
	if (errstr || blank) {
		php_error_docref(NULL, E_WARNING, "Invalid \"%s\" setting \"%s\": not a byte size such as \"64M\"",
			ZSTR_VAL(entry->name), ZSTR_VAL(new_value));
		if (errstr) {
			zend_string_release(errstr);
		}
		return FAILURE;
	}
	if (value != 0 && (value < EPHPM_SHM_MIN_SIZE || value > EPHPM_SHM_MAX_SIZE)) {
		php_error_docref(NULL, E_WARNING, "Invalid \"%s\" setting: must be 0 (off) or from " ZEND_LONG_FMT
			" to " ZEND_LONG_FMT " bytes", ZSTR_VAL(entry->name), EPHPM_SHM_MIN_SIZE, EPHPM_SHM_MAX_SIZE);
		return FAILURE;
	}
	EPHPM_G(shm_size) = value;
	return SUCCESS;
}

static ZEND_INI_MH(OnUpdateEphpmShmName)
{
	if (ZSTR_LEN(new_value) && !ephpm_shm_name_valid(ZSTR_VAL(new_value), ZSTR_LEN(new_value))) {
		php_error_docref(NULL, E_WARNING, "Invalid \"%s\" setting \"%s\": must be empty or one '/' followed by "
			"1 to 254 characters, none of them '/', and not \".\" or \"..\" (e.g. \"/ephpm\")",
			ZSTR_VAL(entry->name), ZSTR_VAL(new_value));
		return FAILURE;
	}
	return OnUpdateString(entry, new_value, mh_arg1, mh_arg2, mh_arg3, stage);
}

/* What a seconds setting is, in mh_arg3: each is checked by the conversion
 * that later turns it into nanoseconds, so an accepted value never wraps. */
enum { SECONDS_TTL, SECONDS_WAIT, SECONDS_TIMEOUT };

/* Seconds as a float. A value that is not a number, or that its conversion
 * refuses, gets a warning and is not applied (the default at startup). */
static ZEND_INI_MH(OnUpdateEphpmSeconds)
{
	int kind = (int)(uintptr_t)mh_arg3;
	char *end;
	double value = zend_strtod(ZSTR_VAL(new_value), (const char **)&end);
	while (end > ZSTR_VAL(new_value) && *end && isspace((unsigned char)*end)) {
		end++;
	}
	if (end == ZSTR_VAL(new_value) || *end) {
		php_error_docref(NULL, E_WARNING, "Invalid \"%s\" setting \"%s\": must be a number of seconds",
			ZSTR_VAL(entry->name), ZSTR_VAL(new_value));
		return FAILURE;
	}
	int64_t ns;
	ephpm_seconds_status status = kind == SECONDS_TTL ? ephpm_ttl_ns(value, false, &ns)
		: ephpm_wait_ns(value, kind == SECONDS_WAIT, &ns);
	if (status != EPHPM_SECONDS_OK) {
		char msg[EPHPM_SECONDS_MESSAGE_SIZE];
		php_error_docref(NULL, E_WARNING, "Invalid \"%s\" setting \"%s\": %s",
			ZSTR_VAL(entry->name), ZSTR_VAL(new_value), ephpm_seconds_message(status, msg, sizeof msg));
		return FAILURE;
	}
	*(double *)ZEND_INI_GET_ADDR() = value;
	return SUCCESS;
}

static ZEND_INI_MH(OnUpdateEphpmLockTimeout)
{
	bool fail = zend_string_equals_literal_ci(new_value, "fail");
	if (!fail && !zend_string_equals_literal_ci(new_value, "proceed")) {
		php_error_docref(NULL, E_WARNING, "Invalid \"%s\" setting: must be \"proceed\" or \"fail\"",
			ZSTR_VAL(entry->name));
		return FAILURE;
	}
	EPHPM_G(session_lock_timeout_fail) = fail;
	return SUCCESS;
}

/* ephpm.server_tls_verify_peer: turning verification off must be meant, so
 * only the boolean words count (php.ini's Off, false, no and none arrive
 * as ""). OnUpdateBool reads any other word as 0: "enabled" or a typo
 * would silently accept any server's certificate. */
static ZEND_INI_MH(OnUpdateEphpmVerifyPeer)
{
	static const char *const on[] = {"1", "on", "yes", "true"}, *const off[] = {"", "0", "off", "no", "false", "none"};
	for (size_t i = 0; i < sizeof on / sizeof *on; i++) {
		if (zend_binary_strcasecmp(ZSTR_VAL(new_value), ZSTR_LEN(new_value), on[i], strlen(on[i])) == 0) {
			EPHPM_G(server_tls_verify_peer) = true;
			return SUCCESS;
		}
	}
	for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
		if (zend_binary_strcasecmp(ZSTR_VAL(new_value), ZSTR_LEN(new_value), off[i], strlen(off[i])) == 0) {
			EPHPM_G(server_tls_verify_peer) = false;
			return SUCCESS;
		}
	}
	php_error_docref(NULL, E_WARNING, "Invalid \"%s\" setting \"%s\": must be 1 (verify the server's certificate) "
		"or 0 (accept any)", ZSTR_VAL(entry->name), ZSTR_VAL(new_value));
	return FAILURE;
}

/* phpinfo() and php --ri show whether a secret is set, never the secret;
 * ini_get() still returns it, as for any setting. */
static ZEND_INI_DISP(display_masked)
{
	zend_string *value = type == ZEND_INI_DISPLAY_ORIG && ini_entry->modified
		? ini_entry->orig_value : ini_entry->value;
	if (value && ZSTR_LEN(value)) {
		PUTS("********");
	} else {
		PUTS(sapi_module.phpinfo_as_text ? "no value" : "<i>no value</i>");
	}
}

#define EPHPM_BYTES_ENTRY(name, default_value, field, min) \
	ZEND_INI_ENTRY3_EX(name, default_value, PHP_INI_SYSTEM, OnUpdateEphpmBytes, \
		(void *)XtOffsetOf(zend_ephpm_globals, field), (void *)&ephpm_globals, (void *)(uintptr_t)(min), NULL)

PHP_INI_BEGIN()
	STD_PHP_INI_ENTRY("ephpm.library", "", PHP_INI_SYSTEM, OnUpdateString, library, zend_ephpm_globals, ephpm_globals)
	EPHPM_BYTES_ENTRY("ephpm.memory_limit", "64M", memory_limit, 1024)
	EPHPM_BYTES_ENTRY("ephpm.max_value_size", "1M", max_value_size, 1)
	EPHPM_BYTES_ENTRY("ephpm.compress_min", "1K", compress_min, 0)
	PHP_INI_ENTRY("ephpm.shm_size", "64M", PHP_INI_SYSTEM, OnUpdateEphpmShmSize)
	STD_PHP_INI_ENTRY("ephpm.shm_name", "", PHP_INI_SYSTEM, OnUpdateEphpmShmName, shm_name,
		zend_ephpm_globals, ephpm_globals)
	STD_PHP_INI_ENTRY("ephpm.server", "", PHP_INI_SYSTEM, OnUpdateString, server, zend_ephpm_globals, ephpm_globals)
	STD_PHP_INI_ENTRY_EX("ephpm.server_password", "", PHP_INI_SYSTEM, OnUpdateString, server_password,
		zend_ephpm_globals, ephpm_globals, display_masked)
	STD_PHP_INI_ENTRY("ephpm.server_tls_ca", "", PHP_INI_SYSTEM, OnUpdateString, server_tls_ca,
		zend_ephpm_globals, ephpm_globals)
	STD_PHP_INI_ENTRY("ephpm.server_tls_cert", "", PHP_INI_SYSTEM, OnUpdateString, server_tls_cert,
		zend_ephpm_globals, ephpm_globals)
	STD_PHP_INI_ENTRY("ephpm.server_tls_key", "", PHP_INI_SYSTEM, OnUpdateString, server_tls_key,
		zend_ephpm_globals, ephpm_globals)
	STD_PHP_INI_ENTRY("ephpm.server_tls_server_name", "", PHP_INI_SYSTEM, OnUpdateString, server_tls_server_name,
		zend_ephpm_globals, ephpm_globals)
	PHP_INI_ENTRY_EX("ephpm.server_tls_verify_peer", "1", PHP_INI_SYSTEM, OnUpdateEphpmVerifyPeer,
		zend_ini_boolean_displayer_cb)
	ZEND_INI_ENTRY3_EX("ephpm.server_timeout", "1", PHP_INI_SYSTEM, OnUpdateEphpmSeconds,
		(void *)XtOffsetOf(zend_ephpm_globals, server_timeout), (void *)&ephpm_globals, (void *)SECONDS_TIMEOUT, NULL)
	ZEND_INI_ENTRY3_EX("ephpm.shm_lock_timeout", "5", PHP_INI_SYSTEM, OnUpdateEphpmSeconds,
		(void *)XtOffsetOf(zend_ephpm_globals, shm_lock_timeout), (void *)&ephpm_globals, (void *)SECONDS_TIMEOUT, NULL)
	STD_PHP_INI_BOOLEAN("ephpm.session_locking", "1", PHP_INI_ALL, OnUpdateBool, session_locking,
		zend_ephpm_globals, ephpm_globals)
	ZEND_INI_ENTRY3_EX("ephpm.session_lock_ttl", "30", PHP_INI_ALL, OnUpdateEphpmSeconds,
		(void *)XtOffsetOf(zend_ephpm_globals, session_lock_ttl), (void *)&ephpm_globals, (void *)SECONDS_TTL, NULL)
	ZEND_INI_ENTRY3_EX("ephpm.session_lock_wait", "30", PHP_INI_ALL, OnUpdateEphpmSeconds,
		(void *)XtOffsetOf(zend_ephpm_globals, session_lock_wait), (void *)&ephpm_globals, (void *)SECONDS_WAIT, NULL)
	PHP_INI_ENTRY("ephpm.session_lock_timeout", "proceed", PHP_INI_ALL, OnUpdateEphpmLockTimeout)
PHP_INI_END()

static PHP_GINIT_FUNCTION(ephpm)
{
#if defined(COMPILE_DL_EPHPM) && defined(ZTS)
	ZEND_TSRMLS_CACHE_UPDATE();
#endif
	memset(ephpm_globals, 0, sizeof(*ephpm_globals));
}

static PHP_MINIT_FUNCTION(ephpm)
{
	/* No library load here: see ephpm_library.c (fork safety). */
	REGISTER_INI_ENTRIES();
	ephpm_token_init();
	/* Mapped here, before php-fpm or Apache prefork forks its workers, so
	 * they all inherit the one segment (a named one is opened on first use).
	 * Not needed in server mode. */
	if (!EPHPM_SERVER_MODE() && EPHPM_G(shm_size) > 0) {
		ephpm_shm_map((size_t)EPHPM_G(shm_size), EPHPM_G(shm_name));
	}
	ephpm_kv_exception_ce = register_class_Ephpm_KvException(spl_ce_RuntimeException);
	ephpm_lock_timeout_exception_ce = register_class_Ephpm_LockTimeoutException(spl_ce_RuntimeException);
	ephpm_lock_init_class(register_class_Ephpm_Lock());
	ephpm_lockset_init_class(register_class_Ephpm_LockSet());
	ephpm_rwlock_init_class(register_class_Ephpm_ReadWriteLock());
	ephpm_semaphore_init_class(register_class_Ephpm_Semaphore());
	ephpm_leader_init_class(register_class_Ephpm_Leader());
	register_class_Ephpm_Barrier();
	zend_class_entry *queue_ce = register_class_Ephpm_Queue();
	ephpm_queue_init_classes(queue_ce, register_class_Ephpm_Job());
	php_session_register_module(&ps_mod_ephpm);
	return SUCCESS;
}

/* A lock freed after the last request's RSHUTDOWN may have left this set. */
static PHP_RINIT_FUNCTION(ephpm)
{
	EPHPM_G(end_unreleased) = 0;
	return SUCCESS;
}

/* After a fatal error or max_execution_time PHP skips destructors: the
 * request's locks still held are released here instead of blocking others
 * for their whole TTL. */
static PHP_RSHUTDOWN_FUNCTION(ephpm)
{
	ephpm_lease_release_held(); /* first: the locks' pass reports what the store left unreleased */
	ephpm_lock_release_held();
	return SUCCESS;
}

static PHP_MSHUTDOWN_FUNCTION(ephpm)
{
	ephpm_shm_unmap();
	UNREGISTER_INI_ENTRIES();
	return SUCCESS;
}

/* Which engine first use starts (or started), in words. */
static const char *ephpm_store_description(void)
{
	switch (ephpm_library_engine()) {
	case EPHPM_ENGINE_SERVER:
		return "server: an ephpm-kv server (ephpm.server), shared by every process that points at it";
	case EPHPM_ENGINE_SHM:
		return "shm: a shared memory segment, shared by every process that maps it";
	case EPHPM_ENGINE_MAP:
		return "map: in this process (shared by its threads; ephpm.shm_size=0)";
	case EPHPM_ENGINE_NONE:
		break;
	}
	return "none: the shared memory segment cannot be used (see below)";
}

static void info_row_long(const char *name, int64_t value)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", (long long)value);
	php_info_print_table_row(2, name, buf);
}

static PHP_MINFO_FUNCTION(ephpm)
{
	php_info_print_table_start();
	php_info_print_table_row(2, "ephpm-kv support", "enabled");
	php_info_print_table_row(2, "Version", PHP_EPHPM_VERSION);
	info_row_long("Ops table ABI", EPHPM_KV_ABI_VERSION);
	php_info_print_table_row(2, "Store", ephpm_store_description());
	if (ephpm_library_engine() == EPHPM_ENGINE_SHM) {
		char segment[512]; /* a 255-byte name and the words around it */
		const char *name = EPHPM_G(shm_name);
		snprintf(segment, sizeof segment, "%zu bytes, %s%s%s", (size_t)EPHPM_G(shm_size),
			name && *name ? "named " : "anonymous (shared with the processes forked from this one)",
			name && *name ? name : "", name && *name && !ephpm_shm_base() ? " (opened on first use)" : "");
		php_info_print_table_row(2, "Shared segment", segment);
	} else if (ephpm_library_engine() == EPHPM_ENGINE_NONE) {
		php_info_print_table_row(2, "Shared segment",
			ephpm_shm_error((size_t)EPHPM_G(shm_size), EPHPM_G(shm_name)));
	}
	php_info_print_table_row(2, "Library", ephpm_library_path());
	php_info_print_table_row(2, "Library state", ephpm_library_state());
	/* Report only; never start the Go runtime from phpinfo(). */
	if (ephpm_library_ops) {
		ephpm_kv_stats st;
		ephpm_kv_error err;
		if (ephpm_library_ops->stats(&st, &err) == 0) {
			info_row_long("Keys", st.keys);
			info_row_long("Bytes used", st.bytes_used);
			info_row_long("Hits", st.hits);
			info_row_long("Misses", st.misses);
			info_row_long("Expired", st.expired);
			info_row_long("Rejected writes", st.rejected);
			info_row_long("Compressed entries", st.compressed);
			info_row_long("Fence records", st.fences);
			info_row_long("Quarantined entries", st.quarantined);
			info_row_long("Evicted entries", st.evicted);
			info_row_long("Evictable bytes", st.bytes_evictable);
		}
	}
	php_info_print_table_end();
	DISPLAY_INI_ENTRIES();
}

static const zend_module_dep ephpm_deps[] = {
	ZEND_MOD_REQUIRED("session")
	ZEND_MOD_REQUIRED("spl")
	ZEND_MOD_END
};

zend_module_entry ephpm_module_entry = {
	STANDARD_MODULE_HEADER_EX,
	NULL,
	ephpm_deps,
	"ephpm",
	ext_functions,
	PHP_MINIT(ephpm),
	PHP_MSHUTDOWN(ephpm),
	PHP_RINIT(ephpm),
	PHP_RSHUTDOWN(ephpm),
	PHP_MINFO(ephpm),
	PHP_EPHPM_VERSION,
	PHP_MODULE_GLOBALS(ephpm),
	PHP_GINIT(ephpm),
	NULL,
	NULL,
	STANDARD_MODULE_PROPERTIES_EX
};

#ifdef COMPILE_DL_EPHPM
#ifdef ZTS
ZEND_TSRMLS_CACHE_DEFINE()
#endif
ZEND_GET_MODULE(ephpm)
#endif
