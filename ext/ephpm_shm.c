#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "php.h"
#include "ephpm_shm.h"

/* Process-wide, set once in MINIT: every thread and every forked child sees
 * the same mapping. */
static void *shm_base;
static size_t shm_size;
static char shm_name[256]; /* "" for an anonymous segment */
static bool shm_tried;     /* ephpm_shm_map was called */
static char shm_error[1024]; /* room for a 255-byte name, twice */

bool ephpm_shm_name_valid(const char *name, size_t len)
{
	return len >= 2 && len <= 255 && name[0] == '/' && !memchr(name + 1, '/', len - 1)
		&& strlen(name) == len;
}

/* A process that finds the segment it did not create still empty waits
 * this long for the creator's ftruncate before calling the size wrong. */
#define SIZING_WAIT_MS 1000

static int open_named(const char *name, size_t size)
{
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd >= 0) {
		/* Reserve the pages, not only the size: a segment only ftruncated
		 * on a tmpfs without room would SIGBUS a worker mid-operation. */
		int rc = posix_fallocate(fd, 0, (off_t)size);
		if (rc == EOPNOTSUPP || rc == EINVAL) {
			rc = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
		}
		if (rc != 0) {
			snprintf(shm_error, sizeof shm_error, "cannot size the shared memory segment %s to %zu bytes: %s",
				name, size, strerror(rc));
			close(fd);
			shm_unlink(name); /* nobody could use it at size 0 */
			return -1;
		}
		return fd;
	}
	if (errno != EEXIST || (fd = shm_open(name, O_RDWR, 0)) < 0) {
		snprintf(shm_error, sizeof shm_error, "cannot open the shared memory segment %s: %s", name, strerror(errno));
		return -1;
	}
	struct stat st;
	for (int waited = 0;; waited++) {
		if (fstat(fd, &st) != 0) {
			snprintf(shm_error, sizeof shm_error, "cannot stat the shared memory segment %s: %s",
				name, strerror(errno));
			close(fd);
			return -1;
		}
		if (st.st_size != 0 || waited == SIZING_WAIT_MS) {
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	}
	if ((uint64_t)st.st_size != size) {
		/* Never attach at another size: the store's layout depends on it. */
		snprintf(shm_error, sizeof shm_error, "the shared memory segment %s is %lld bytes, but ephpm.shm_size "
			"is %zu: give every process that shares it the same ephpm.shm_size, or remove the segment "
			"(/dev/shm%s) while no process uses it", name, (long long)st.st_size, size, name);
		close(fd);
		return -1;
	}
	return fd;
}

void ephpm_shm_map(size_t size, const char *name)
{
	int fd = -1, flags = MAP_SHARED | MAP_ANONYMOUS;
	shm_tried = true;
	snprintf(shm_name, sizeof shm_name, "%s", name ? name : "");
	if (name && *name) {
		if ((fd = open_named(name, size)) < 0) {
			return;
		}
		flags = MAP_SHARED;
	}
	void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, fd, 0);
	int mmap_errno = errno;
	if (fd >= 0) {
		close(fd); /* the mapping keeps the segment */
	}
	if (base == MAP_FAILED) {
		snprintf(shm_error, sizeof shm_error, "cannot map %zu bytes of shared memory%s%s: %s; lower "
			"ephpm.shm_size, or set it to 0 for a store in each process",
			size, fd >= 0 ? " from " : "", fd >= 0 ? name : "", strerror(mmap_errno));
		return;
	}
	shm_base = base;
	shm_size = size;
}

void ephpm_shm_unmap(void)
{
	if (shm_base) {
		munmap(shm_base, shm_size);
		shm_base = NULL;
		shm_size = 0;
	}
}

void *ephpm_shm_base(void)
{
	return shm_base;
}

size_t ephpm_shm_size(void)
{
	return shm_size;
}

const char *ephpm_shm_error(size_t size, const char *name)
{
	if (shm_error[0]) {
		return shm_error;
	}
	/* Settings changed after startup, e.g. per php-fpm pool: the segment
	 * the master mapped (or did not) is what every worker has. */
	if (!shm_tried || shm_size != size || strcmp(shm_name, name ? name : "") != 0) {
		snprintf(shm_error, sizeof shm_error, "ephpm.shm_size and ephpm.shm_name were %zu and \"%s\" at startup, "
			"when the segment is mapped, and are %zu and \"%s\" now: set them in php.ini, not per php-fpm pool "
			"or directory", shm_tried ? shm_size : 0, shm_name, size, name ? name : "");
		return shm_error;
	}
	return NULL;
}
