/* The shared segment: mapped in MINIT, before any fork, so every worker a
 * php-fpm master (or Apache prefork) forks inherits one mapping. Go attaches
 * to it on first use in each process (ephpm_library.c); MINIT never starts
 * Go. */
#ifndef EPHPM_SHM_H
#define EPHPM_SHM_H

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

/* The mapping, or NULL when there is none. */
void *ephpm_shm_base(void);
size_t ephpm_shm_size(void);

/* Why the segment cannot serve ephpm.shm_size = size and ephpm.shm_name =
 * name (mapping or opening failed, or the anonymous segment was mapped for
 * other settings), or NULL when it can or a named one is not opened yet. */
const char *ephpm_shm_error(size_t size, const char *name);

#endif
