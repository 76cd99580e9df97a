#ifndef PHP_EPHPM_H
#define PHP_EPHPM_H

#include "php.h"

extern zend_module_entry ephpm_module_entry;
#define phpext_ephpm_ptr &ephpm_module_entry

#define PHP_EPHPM_VERSION "0.1.0"

ZEND_BEGIN_MODULE_GLOBALS(ephpm)
	char *library;
	char *server;          /* ephpm.server: use that ephpm-kv server instead of an in-process store */
	char *server_password;
	char *server_tls_ca;          /* ephpm.server_tls_*: TLS for a rediss:// server */
	char *server_tls_cert;
	char *server_tls_key;
	char *server_tls_server_name;
	bool server_tls_verify_peer;
	double server_timeout;
	double shm_lock_timeout; /* ephpm.shm_lock_timeout: seconds a stripe held by a live process is waited for */
	zend_long memory_limit;
	zend_long max_value_size;
	zend_long compress_min;
	zend_long shm_size;    /* ephpm.shm_size: the shared segment's bytes; 0 = the in-process map */
	char *shm_name;        /* ephpm.shm_name: a named segment, shared beyond this process's children */
	bool session_locking;
	double session_lock_ttl;
	double session_lock_wait;
	bool session_lock_timeout_fail; /* ephpm.session_lock_timeout = fail */
	struct ephpm_holder *held_locks;  /* this request's acquired, unreleased Ephpm\Lock objects (ephpm_holder.h) */
	struct ephpm_holder *held_leases; /* this request's unreleased ReadWriteLock and Semaphore holders */
	zend_long end_unreleased;       /* at request end: 0, or 1 + locks and leases not tried after the store did not answer */
ZEND_END_MODULE_GLOBALS(ephpm)

ZEND_EXTERN_MODULE_GLOBALS(ephpm)
#define EPHPM_G(v) ZEND_MODULE_GLOBALS_ACCESSOR(ephpm, v)

extern zend_class_entry *ephpm_kv_exception_ce;

/* Whether ephpm.server points the store at a server. */
#define EPHPM_SERVER_MODE() (EPHPM_G(server) && *EPHPM_G(server))

#endif
