#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "php.h"
#include "ephpm_shm.h"

/* Process-wide. The anonymous segment is mapped in MINIT, so every forked
 * child sees the same mapping; a named one by the first use in a process. */
static void *shm_base;
static size_t shm_size;
static bool shm_named;      /* shm_base is a named segment's */
static char shm_name[256];  /* ephpm.shm_name at startup */
static bool shm_tried;      /* ephpm_shm_map was called */
static size_t startup_size; /* ephpm.shm_size at startup */
/* Why the segment cannot be used (room for a 255-byte name, twice). */
static char shm_error[1024];      /* opening or mapping the named segment */
static char anon_error[1024];     /* mapping the anonymous one */
static char settings_error[1024];
/* The named segment mapped (its name may be a pool's, not php.ini's), and
 * its inode, to tell it from what the name opens now. */
static char mapped_name[256];
static dev_t mapped_dev;
static ino_t mapped_ino;
int64_t ephpm_shm_recheck_at;
static char lost_error[1024]; /* the name was removed or replaced */

bool ephpm_shm_name_valid(const char *name, size_t len)
{
	/* "/." and "/.." name /dev/shm and /dev: shm_open refuses them, only
	 * later, at first use. */
	bool dots = (len == 2 || len == 3) && memcmp(name, "/..", len) == 0;
	return len >= 2 && len <= 255 && name[0] == '/' && !memchr(name + 1, '/', len - 1)
		&& strlen(name) == len && !dots;
}

/* Checks a segment someone else published: ours alone, of our size. */
static int check_existing(int fd, const char *name, size_t size)
{
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(shm_error, sizeof shm_error, "cannot stat the shared memory segment %s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	/* Whoever else can write the segment could forge sessions and take or
	 * free locks: only a segment private to this user is attached. */
	if (st.st_uid != geteuid()) {
		snprintf(shm_error, sizeof shm_error, "the shared memory segment %s belongs to uid %ld, and this process "
			"runs as uid %ld: run every process that shares it as one user, or set another ephpm.shm_name",
			name, (long)st.st_uid, (long)geteuid());
		close(fd);
		return -1;
	}
	if (st.st_mode & 077) {
		snprintf(shm_error, sizeof shm_error, "the shared memory segment %s has mode %04o: other users may read "
			"or write it; remove it (/dev/shm%s) and let ephpm-kv create it (mode 0600), or set another "
			"ephpm.shm_name", name, (unsigned)(st.st_mode & 07777), name);
		close(fd);
		return -1;
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

/* Opens the named segment, creating it when there is none (O_EXCL: one
 * creator, one reservation of its pages). The creator holds an exclusive
 * flock while it sizes the segment; a process that finds it unsized waits
 * on that lock, however long a large segment takes, instead of a fixed
 * time after which it refused the segment for good. */
static int open_named(const char *name, size_t size)
{
	for (int attempt = 0; attempt < 1000; attempt++) {
		int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			flock(fd, LOCK_EX);
			fchmod(fd, 0600); /* the umask may have taken the owner's own rights */
			/* Reserve the pages, not only the size: a segment only
			 * ftruncated on a tmpfs without room would SIGBUS a worker
			 * mid-operation. */
			int rc = posix_fallocate(fd, 0, (off_t)size);
			if (rc == EOPNOTSUPP || rc == EINVAL) {
				rc = ftruncate(fd, (off_t)size) == 0 ? 0 : errno;
			}
			if (rc != 0) {
				snprintf(shm_error, sizeof shm_error, "cannot size the shared memory segment %s to %zu bytes: "
					"%s", name, size, strerror(rc));
				shm_unlink(name); /* nobody could use it at size 0 */
				close(fd);
				return -1;
			}
			flock(fd, LOCK_UN);
			return fd;
		}
		if (errno != EEXIST) {
			snprintf(shm_error, sizeof shm_error, "cannot create the shared memory segment %s: %s", name,
				strerror(errno));
			return -1;
		}
		if ((fd = shm_open(name, O_RDWR, 0)) < 0) {
			if (errno == ENOENT) {
				continue; /* removed meanwhile: create it */
			}
			snprintf(shm_error, sizeof shm_error, "cannot open the shared memory segment %s: %s", name,
				strerror(errno));
			return -1;
		}
		struct stat st;
		if (fstat(fd, &st) == 0 && st.st_size == 0 && st.st_uid == geteuid() && !(st.st_mode & 077)) {
			/* being sized: wait for its creator (a lock it holds until
			 * then, released if it dies), then look again */
			flock(fd, LOCK_SH);
			if (fstat(fd, &st) == 0 && (st.st_size == 0 || st.st_nlink == 0)) {
				/* its creator failed, or has not taken the lock yet */
				close(fd);
				nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
				continue;
			}
		}
		return check_existing(fd, name, size); /* the mapping does not keep the flock */
	}
	snprintf(shm_error, sizeof shm_error, "the shared memory segment %s stays empty (0 bytes): remove it "
		"(/dev/shm%s) while no process uses it", name, name);
	return -1;
}

/* Maps size bytes (from the named segment's fd, or anonymous with fd -1). */
static bool map_segment(size_t size, int fd, const char *name)
{
	char *error = fd >= 0 ? shm_error : anon_error;
	struct stat st;
	bool watch = fd >= 0 && fstat(fd, &st) == 0; /* without its inode, nothing to compare */
	if (watch) {
		snprintf(mapped_name, sizeof mapped_name, "%s", name);
		mapped_dev = st.st_dev;
		mapped_ino = st.st_ino;
	}
	void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, fd >= 0 ? MAP_SHARED : MAP_SHARED | MAP_ANONYMOUS, fd, 0);
	int mmap_errno = errno;
	if (fd >= 0) {
		close(fd); /* the mapping keeps the segment */
	}
	if (base == MAP_FAILED) {
		snprintf(error, sizeof shm_error, "cannot map %zu bytes of shared memory%s%s: %s; lower "
			"ephpm.shm_size, or set it to 0 for a store in each process",
			size, fd >= 0 ? " from " : "", fd >= 0 ? name : "", strerror(mmap_errno));
		return false;
	}
	shm_base = base;
	shm_size = size;
	shm_named = fd >= 0;
	if (watch) {
		__atomic_store_n(&ephpm_shm_recheck_at, ephpm_coarse_ns() + EPHPM_SHM_RECHECK_NS, __ATOMIC_RELAXED);
	}
	return true;
}

void ephpm_shm_map(size_t size, const char *name)
{
	shm_tried = true;
	startup_size = size;
	snprintf(shm_name, sizeof shm_name, "%s", name ? name : "");
	/* A named segment is opened on first use instead (ephpm_shm_attach),
	 * by the process that uses it: a php-fpm master started as root would
	 * create it owned by root, mode 0600, and the pool's CLI jobs, running
	 * as the pool's user, could not open it. */
	if (!shm_name[0]) {
		map_segment(size, -1, NULL);
	}
}

const char *ephpm_shm_attach(size_t size, const char *name)
{
	if (name && *name && !shm_named && !shm_error[0]) {
		ephpm_shm_unmap(); /* the anonymous segment, when php.ini has one: not this one */
		int fd = open_named(name, size);
		if (fd >= 0) {
			map_segment(size, fd, name);
		}
	}
	return ephpm_shm_error(size, name);
}

const char *ephpm_shm_lost(void)
{
	int64_t now = ephpm_coarse_ns();
	if (shm_named && !lost_error[0] && now >= __atomic_load_n(&ephpm_shm_recheck_at, __ATOMIC_RELAXED)) {
		char path[sizeof mapped_name + 8];
		struct stat st;
		snprintf(path, sizeof path, "/dev/shm%s", mapped_name);
		int rc = stat(path, &st);
		/* another stat error (EACCES on /dev/shm) proves nothing */
		bool removed = rc != 0 && errno == ENOENT;
		bool replaced = rc == 0 && (st.st_dev != mapped_dev || st.st_ino != mapped_ino);
		if (removed || replaced) {
			snprintf(lost_error, sizeof lost_error, "the shared memory segment %s was %s while this process "
				"used it: the locks and data this process sees are not the ones new processes see, so a lock "
				"may be held twice; restart every process that shares the segment (php-fpm and its workers), "
				"and remove /dev/shm%s only while none runs", mapped_name,
				removed ? "removed" : "removed, and another created in its place,", mapped_name);
		}
		/* once lost, due at every call: the slow path refuses it */
		__atomic_store_n(&ephpm_shm_recheck_at, lost_error[0] ? 1 : now + EPHPM_SHM_RECHECK_NS, __ATOMIC_RELAXED);
	}
	return lost_error[0] ? lost_error : NULL;
}

void ephpm_shm_unmap(void)
{
	if (shm_base) {
		munmap(shm_base, shm_size);
		shm_base = NULL;
		shm_size = 0;
		shm_named = false;
		__atomic_store_n(&ephpm_shm_recheck_at, 0, __ATOMIC_RELAXED);
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
	if (name && *name) {
		/* opened on first use with the settings in force then */
		return shm_error[0] ? shm_error : NULL;
	}
	if (anon_error[0]) {
		return anon_error;
	}
	/* Settings changed after startup, e.g. per php-fpm pool: the segment
	 * the master mapped (or did not) is what every worker has. */
	if (!shm_tried || startup_size != size || shm_name[0] || shm_named) {
		snprintf(settings_error, sizeof settings_error, "ephpm.shm_size and ephpm.shm_name were %zu and \"%s\" "
			"at startup, when the anonymous segment is mapped, and are %zu and \"%s\" now: set ephpm.shm_size in "
			"php.ini, not per php-fpm pool or directory (a named segment, ephpm.shm_name, may be set per pool)",
			shm_tried ? startup_size : 0, shm_name, size, name ? name : "");
		return settings_error;
	}
	return NULL;
}
