/* The shared segment: mapped in MINIT, before any fork, so every worker a
 * php-fpm master (or Apache prefork) forks inherits one mapping. Go attaches
 * to it on first use in each process (ephpm_library.c); MINIT never starts
 * Go. */
#ifndef EPHPM_SHM_H
#define EPHPM_SHM_H

#include <time.h>

#include "php.h"

/* ephpm.shm_size: 0 (off) or within these bounds. Below the minimum the
 * engine has no room beside its header, stripes and index; above the
 * maximum a size does not fit size_t or a Go slice (1 << 48 on 64-bit). */
#define EPHPM_SHM_MIN_SIZE ((zend_long)1 << 20)
#if SIZEOF_SIZE_T >= 8
#define EPHPM_SHM_MAX_SIZE ((zend_long)1 << 47)
#else
#define EPHPM_SHM_MAX_SIZE ZEND_LONG_MAX
#endif

/* ephpm.shm_name: empty, or "/" followed by 1 to 254 characters, none a
 * '/', and not "." or ".." (shm_open's portable form). */
bool ephpm_shm_name_valid(const char *name, size_t len);

/* At startup: maps the anonymous segment (a named one is opened on first
 * use, by ephpm_shm_attach). A failure does not stop PHP's startup: it is
 * remembered and reported on first use. */
void ephpm_shm_map(size_t size, const char *name);

/* On first use in a process: opens and maps the named segment (the
 * anonymous one is already mapped); NULL when the segment can serve these
 * settings, else why not (as ephpm_shm_error). */
const char *ephpm_shm_attach(size_t size, const char *name);
void ephpm_shm_unmap(void);

/* A named segment's name is checked at most this often (a stat): was it
 * removed or replaced while this process maps it? */
#define EPHPM_SHM_RECHECK_NS ((int64_t)1000000000)

/* When the named segment's name is next checked (CLOCK_MONOTONIC_COARSE
 * ns); 0 when nothing is mapped by name (the anonymous segment has none). */
extern int64_t ephpm_shm_recheck_at;

/* CLOCK_MONOTONIC_COARSE in ns: a few ns from the vDSO, where a precise
 * read costs ~20. */
static zend_always_inline int64_t ephpm_coarse_ns(void)
{
	struct timespec ts = { 0 };
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Whether the name is due a check: one load and, for a named segment, the
 * coarse clock, per store call. */
static zend_always_inline bool ephpm_shm_recheck_due(void)
{
	int64_t at = __atomic_load_n(&ephpm_shm_recheck_at, __ATOMIC_RELAXED);
	return UNEXPECTED(at != 0) && UNEXPECTED(ephpm_coarse_ns() >= at);
}

/* Why the named segment can no longer be trusted (its name was removed, or
 * opens another segment now: new processes use that one), or NULL. Checks
 * the name when due; once lost, stays lost. */
const char *ephpm_shm_lost(void);

/* The mapping, or NULL when there is none. */
void *ephpm_shm_base(void);
size_t ephpm_shm_size(void);

/* Why the segment cannot serve ephpm.shm_size = size and ephpm.shm_name =
 * name (mapping or opening failed, or the anonymous segment was mapped for
 * other settings), or NULL when it can or a named one is not opened yet. */
const char *ephpm_shm_error(size_t size, const char *name);

#endif
