/*
 * The Go runtime cannot be started in a process that forks afterwards (the
 * child hangs on its first call into Go), and php-fpm and Apache prefork
 * load extensions in a parent that forks workers. So the library is opened on
 * first use in a process, never in MINIT, and a process that forks after
 * that gets an exception in the child instead of a hang.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "php.h"
#include "zend_exceptions.h"
#include "php_ephpm.h"
#include "ephpm_args.h"
#include "ephpm_library.h"
#include "ephpm_shm.h"

#define EPHPM_LIBRARY_NAME "libephpm_kv.so"

const ephpm_kv_ops *ephpm_library_ops;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t loaded_pid;       /* the process that started the Go runtime */
static bool forked_after_load; /* this process is a child of loaded_pid */
static char *load_error;       /* a permanent failure, e.g. ABI mismatch */
static int load_error_code = EPHPM_KV_E_UNAVAILABLE; /* its exception code */
static char default_path[PATH_MAX];
static ephpm_engine loaded_engine; /* what configure started, once loaded */

static void forget_ops_in_child(void)
{
	ephpm_library_ops = NULL;
	forked_after_load = true;
}

/* Default: libephpm_kv.so beside ephpm.so itself. */
const char *ephpm_library_path(void)
{
	const char *ini = EPHPM_G(library);
	if (ini && *ini) {
		return ini;
	}
	if (!default_path[0]) {
		Dl_info info;
		if (dladdr((void *)ephpm_library_path, &info) && info.dli_fname) {
			const char *slash = strrchr(info.dli_fname, '/');
			int dir_len = slash ? (int)(slash - info.dli_fname) : 1;
			snprintf(default_path, sizeof default_path, "%.*s/%s",
				dir_len, slash ? info.dli_fname : ".", EPHPM_LIBRARY_NAME);
		} else {
			snprintf(default_path, sizeof default_path, "%s", EPHPM_LIBRARY_NAME);
		}
	}
	return default_path;
}

bool ephpm_library_forked(void)
{
	return forked_after_load;
}

const char *ephpm_library_state(void)
{
	if (forked_after_load) {
		return "unusable: process forked after the store started";
	}
	if (load_error) {
		return load_error;
	}
	return ephpm_library_ops ? "loaded" : "not loaded yet in this process (loads on first use)";
}

ephpm_engine ephpm_library_engine(void)
{
	/* Once started, the engine is what runs, whatever the settings say now
	 * (php-fpm applies a FastCGI PHP_ADMIN_VALUE to a running worker). */
	if (ephpm_library_ops) {
		return loaded_engine;
	}
	if (EPHPM_SERVER_MODE()) {
		return EPHPM_ENGINE_SERVER;
	}
	if (EPHPM_G(shm_size) == 0) {
		return EPHPM_ENGINE_MAP;
	}
	return ephpm_shm_error((size_t)EPHPM_G(shm_size), EPHPM_G(shm_name)) ? EPHPM_ENGINE_NONE : EPHPM_ENGINE_SHM;
}

const char *ephpm_engine_name(ephpm_engine engine)
{
	switch (engine) {
	case EPHPM_ENGINE_MAP:
		return "map";
	case EPHPM_ENGINE_SHM:
		return "shm";
	case EPHPM_ENGINE_SERVER:
		return "server";
	case EPHPM_ENGINE_NONE:
		break;
	}
	return "none";
}

/* ephpm.shm_lock_timeout; 0 (the default) should its ini handler not have
 * accepted it */
static int64_t shm_lock_timeout_ns(void)
{
	int64_t ns;
	return ephpm_wait_ns(EPHPM_G(shm_lock_timeout), false, &ns) == EPHPM_SECONDS_OK ? ns : 0;
}

/* ephpm.server_timeout, accepted by its ini handler through the same
 * saturating conversion: a huge timeout waits "forever", never wraps. */
static const char *ini_or_empty(const char *value) { return value ? value : ""; }

static int64_t server_timeout_ns(void)
{
	int64_t ns;
	return ephpm_wait_ns(EPHPM_G(server_timeout), false, &ns) == EPHPM_SECONDS_OK ? ns : EPHPM_NS_PER_SEC;
}

/* Throws Ephpm\KvException. With no frame at all (PHP reads and writes
 * sessions before and after the script), PHP would turn it into a fatal
 * error "in [no active file]" at once: a warning says it instead, and the
 * caller fails as after a throw. */
static void throw_kv(int code, const char *message)
{
	if (!EG(current_execute_data)) {
		php_error_docref(NULL, E_WARNING, "%s", message);
		return;
	}
	zend_throw_exception(ephpm_kv_exception_ce, message, code);
}

static void throw_fork_error(void)
{
	char msg[512];
	snprintf(msg, sizeof msg, "ephpm-kv cannot be used in this process: it was forked (e.g. by pcntl_fork()) "
		"after the store started in its parent (pid %ld), and a Go runtime does not survive fork(). "
		"Fork before the first ephpm_kv_* call, or use the store only in the parent", (long)loaded_pid);
	throw_kv(EPHPM_KV_E_UNAVAILABLE, msg);
}

/* Signals PHP handles itself (max_execution_time's SIGPROF, pcntl_signal()
 * handlers, Ctrl-C) must reach a PHP thread, not one of Go's: threads the
 * runtime creates inherit the mask in force while it starts. */
static void block_php_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	int signals[] = { SIGPROF, SIGALRM, SIGVTALRM, SIGHUP, SIGINT, SIGQUIT,
	                  SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD, SIGWINCH };
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		sigaddset(&set, signals[i]);
	}
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* What to change when the engine refuses the segment (another layout, or
 * not an ephpm-kv segment): it was made by another build. */
static const char *shm_refused_hint(void)
{
	static char hint[512];
	const char *name = EPHPM_G(shm_name);
	if (name && *name) {
		snprintf(hint, sizeof hint, "; every process that shares the segment must run the same ephpm-kv build: "
			"stop them and remove /dev/shm%s, or set another ephpm.shm_name", name);
	} else {
		snprintf(hint, sizeof hint, "; the process that mapped it at startup (php-fpm's master) runs another "
			"ephpm-kv build than this one: restart it");
	}
	return hint;
}

/* Opens, checks and configures the library; false with msg filled on failure.
 * retry tells whether a later call may succeed (a file still being deployed)
 * or not (a wrong library or configuration will not fix itself). */
static bool load_locked(const char *path, char *msg, size_t size, bool *retry, int *code)
{
	*retry = false;
	*code = EPHPM_KV_E_UNAVAILABLE;
	ephpm_engine engine = ephpm_library_engine();
	size_t shm_size = (size_t)EPHPM_G(shm_size);
	const char *shm_name = EPHPM_G(shm_name);
	const char *shm_error = engine == EPHPM_ENGINE_SHM ? ephpm_shm_attach(shm_size, shm_name)
		: engine == EPHPM_ENGINE_NONE ? ephpm_shm_error(shm_size, shm_name) : NULL;
	if (shm_error) {
		*code = EPHPM_KV_E_CONFIG;
		snprintf(msg, size, "ephpm-kv: the shared memory segment (ephpm.shm_size, ephpm.shm_name) cannot be used: %s",
			shm_error);
		return false;
	}
	void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!handle) {
		*retry = true;
		snprintf(msg, size, "ephpm-kv: cannot load the library %s: %s (build it with `make`, or set "
			"ephpm.library to its path)", path, dlerror());
		return false;
	}
	ephpm_kv_get_ops_fn get_ops = (ephpm_kv_get_ops_fn)dlsym(handle, "ephpm_kv_get_ops");
	if (!get_ops) {
		snprintf(msg, size, "ephpm-kv: %s is not an ephpm-kv library: %s", path, dlerror());
		return false;
	}
	const ephpm_kv_ops *ops = get_ops();
	if (ops->abi_version != EPHPM_KV_ABI_VERSION || ops->struct_size < sizeof(ephpm_kv_ops)) {
		snprintf(msg, size, "ephpm-kv: %s speaks ABI %u (table of %u bytes), this extension needs ABI %d "
			"(%zu bytes): build both from the same source", path, ops->abi_version, ops->struct_size,
			EPHPM_KV_ABI_VERSION, sizeof(ephpm_kv_ops));
		return false;
	}
	ephpm_kv_error err;
	ephpm_kv_config cfg = {
		.memory_limit = EPHPM_G(memory_limit),
		.max_value_size = EPHPM_G(max_value_size),
		/* ini 0 means "never compress"; the ABI's 0 means "default" */
		.compress_min = EPHPM_G(compress_min) > 0 ? EPHPM_G(compress_min) : -1,
		.shm_lock_timeout = shm_lock_timeout_ns(),
	};
	int rc;
	if (engine == EPHPM_ENGINE_SERVER) {
		const char *url = EPHPM_G(server), *password = EPHPM_G(server_password) ? EPHPM_G(server_password) : "";
		/* TLS settings for a rediss:// server; Go refuses them for any
		 * other address */
		ephpm_kv_tls tls = {
			.ca_file = ini_or_empty(EPHPM_G(server_tls_ca)),
			.cert_file = ini_or_empty(EPHPM_G(server_tls_cert)),
			.key_file = ini_or_empty(EPHPM_G(server_tls_key)),
			.server_name = ini_or_empty(EPHPM_G(server_tls_server_name)),
			.verify_peer = EPHPM_G(server_tls_verify_peer),
		};
		rc = ops->configure_server_tls(url, strlen(url), password, strlen(password),
			server_timeout_ns(), &tls, &err);
	} else if (engine == EPHPM_ENGINE_SHM) {
		rc = ops->configure_shm(ephpm_shm_base(), ephpm_shm_size(), &cfg, &err);
	} else {
		rc = ops->configure(&cfg, &err);
	}
	if (rc < 0) {
		/* e.g. EPHPM_KV_E_CONFIG for a malformed ephpm.server */
		*code = err.code;
		snprintf(msg, size, "ephpm-kv: the library refused its configuration: %s%s", err.message,
			engine == EPHPM_ENGINE_SHM && err.code == EPHPM_KV_E_CONFIG ? shm_refused_hint() : "");
		return false;
	}
	loaded_pid = getpid();
	loaded_engine = engine;
	__atomic_store_n(&ephpm_library_ops, ops, __ATOMIC_RELEASE);
	return true;
}

const ephpm_kv_ops *ephpm_library_load(void)
{
	static bool atfork_registered;
	char msg[PATH_MAX + 512];
	bool retry = false;
	int code = EPHPM_KV_E_UNAVAILABLE;

	if (forked_after_load) {
		throw_fork_error();
		return NULL;
	}
	const ephpm_kv_ops *loaded = __atomic_load_n(&ephpm_library_ops, __ATOMIC_ACQUIRE);
	const char *lost = loaded ? ephpm_shm_lost() : NULL;
	if (lost) {
		snprintf(msg, sizeof msg, "ephpm-kv: %s", lost);
		throw_kv(EPHPM_KV_E_CONFIG, msg);
		return NULL;
	}
	if (loaded) {
		return loaded; /* the name checked, and still ours */
	}
	pthread_mutex_lock(&load_lock);
	const ephpm_kv_ops *ops = ephpm_library_ops;
	if (!ops && !load_error) {
		if (!atfork_registered) {
			pthread_atfork(NULL, NULL, forget_ops_in_child);
			atfork_registered = true;
		}
		sigset_t old;
		block_php_signals(&old);
		bool loaded = load_locked(ephpm_library_path(), msg, sizeof msg, &retry, &code);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (loaded) {
			ops = ephpm_library_ops;
		} else if (!retry) {
			load_error = strdup(msg);
			load_error_code = code;
		}
	} else if (!ops) {
		snprintf(msg, sizeof msg, "%s", load_error);
		code = load_error_code;
	}
	pthread_mutex_unlock(&load_lock);
	if (!ops) {
		throw_kv(code, msg);
	}
	return ops;
}

void ephpm_throw_store_error(const ephpm_kv_error *err)
{
	/* In server mode the server's flags set the limits, not this php.ini;
	 * the shared segment's size is its limit. */
	ephpm_engine engine = ephpm_library_engine();
	bool server = engine == EPHPM_ENGINE_SERVER;
	/* the Go side names a Valkey or Redis it talks to as such (go/remote) */
	bool redis = server && strstr(err->message, "Valkey/Redis server") != NULL;
	const char *hint = "", *shm_name = EPHPM_G(shm_name);
	char named_full[512];
	switch (err->code) {
	case EPHPM_KV_E_FULL:
		/* A lease key's holders are bounded (kv.MaxLeaseHolders), which no
		 * memory setting changes; every engine's message names them. */
		if (strstr(err->message, " holders")) {
			hint = "; one name takes at most " ZEND_TOSTR(EPHPM_KV_MAX_LEASE_HOLDERS) " holders: release some, or "
				"spread them over more names";
			break;
		}
		if (engine == EPHPM_ENGINE_SHM && shm_name && *shm_name) {
			/* a named segment outlives its processes: a restart keeps its size */
			snprintf(named_full, sizeof named_full, "; raise ephpm.shm_size: stop every process that shares the "
				"segment, remove it (/dev/shm%s), and start them with the new size; or give entries a TTL, or "
				"delete what is no longer needed", shm_name);
			hint = named_full;
			break;
		}
		hint = redis ? "; raise the server's maxmemory, give entries a TTL, or delete what is no longer needed"
			: server ? "; raise the ephpm-kv server's --memory-limit, give entries a TTL, or delete what is no longer needed"
			: engine == EPHPM_ENGINE_SHM ? "; raise ephpm.shm_size (every process that shares the segment must "
				"restart with the new size), give entries a TTL, or delete what is no longer needed"
			: "; raise ephpm.memory_limit, give entries a TTL, or delete what is no longer needed";
		break;
	case EPHPM_KV_E_VALUE_TOO_LARGE:
		hint = redis ? "; raise the server's proto-max-bulk-len or store smaller values"
			: server
			? "; raise the ephpm-kv server's --max-value-size or store smaller values"
			: "; raise ephpm.max_value_size or store smaller values";
		break;
	case EPHPM_KV_E_INTERNAL:
		hint = "; this is a bug in ephpm-kv";
		break;
	}
	zend_string *msg = strpprintf(0, "ephpm-kv: %s%s", err->message, hint);
	throw_kv(err->code, ZSTR_VAL(msg));
	zend_string_release(msg);
}

void ephpm_throw_missing_ops(const char *what)
{
	char msg[256];
	snprintf(msg, sizeof msg, "ephpm-kv: the library has no %s operations: build it and the extension from the "
		"same source", what);
	throw_kv(EPHPM_KV_E_CONFIG, msg);
}
