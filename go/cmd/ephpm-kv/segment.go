package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/ephpm/ephpm-kv/shm"
)

// shmDir is where shm_open(3) keeps named segments.
const shmDir = "/dev/shm"

// validShmName is ephpm_shm_name_valid (ext/ephpm_shm.c): what
// ephpm.shm_name accepts, "/" then 1 to 254 bytes, no other "/", no NUL,
// not "/." or "/.." (which name /dev/shm and /dev).
func validShmName(name string) bool {
	return len(name) >= 2 && len(name) <= 255 && name[0] == '/' && !strings.ContainsAny(name[1:], "/\x00") &&
		name != "/." && name != "/.."
}

// openSegment maps the named segment an extension made (ephpm.shm_name)
// as another process of its user would, with the checks the extension
// makes on a segment someone else published (check_existing in
// ext/ephpm_shm.c): it belongs to this user, no other user may read or
// write it (mode 0600), and it is not empty. It never creates, sizes or
// resizes one: no O_CREAT, and the mapping is the file's own size, the
// size every process sharing it gave (shm.MapFile would create and grow a
// file, so the checked descriptor is mapped here instead). A segment never
// used yet is all zero, and Attach formats it, as the first PHP process to
// use it would. close unmaps it.
func openSegment(name string, lockTimeout time.Duration) (e *shm.Engine, close func(), err error) {
	if !validShmName(name) {
		hint := ""
		if rest, ok := strings.CutPrefix(name, shmDir+"/"); ok && rest != "" {
			hint = fmt.Sprintf(" (for the file %s, give its name: /%s)", name, rest)
		}
		return nil, nil, usagef("--shm %q: a segment's name is ephpm.shm_name's, \"/\" and 1 to 254 bytes with no other \"/\", such as /app%s", name, hint)
	}
	path := shmDir + name
	// As shm_open(3) opens: no symlink followed, not inherited.
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil, fmt.Errorf("no shared memory segment %s (no file %s): check the name against ephpm.shm_name; "+
			"the first PHP process that uses the store creates it, this command never does", name, path)
	case errors.Is(err, syscall.ELOOP):
		return nil, nil, fmt.Errorf("%s is a symbolic link, not a shared memory segment: refused", path)
	case errors.Is(err, os.ErrPermission):
		return nil, nil, fmt.Errorf("cannot open the shared memory segment %s: %v; run this command as the user the "+
			"PHP processes that share it run as", name, err)
	case err != nil:
		return nil, nil, fmt.Errorf("cannot open the shared memory segment %s: %v", name, err)
	}
	defer f.Close() // the mapping keeps the segment
	st, err := stat(f)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot stat the shared memory segment %s: %v", name, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, nil, fmt.Errorf("%s is not a shared memory segment (not a regular file): refused", path)
	}
	// Whoever else can write the segment could forge sessions and take or
	// free locks: only a segment private to this user is attached.
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return nil, nil, fmt.Errorf("the shared memory segment %s belongs to uid %d, and this command runs as uid %d: "+
			"run it as the user the PHP processes that share the segment run as (sudo -u USER ephpm-kv ...)", name, st.Uid, uid)
	}
	if st.Mode&0o077 != 0 {
		return nil, nil, fmt.Errorf("the shared memory segment %s has mode %04o: other users may read or write it, so "+
			"its locks and sessions cannot be trusted; the extension refuses it too: remove it (%s) while no process "+
			"uses it, and let the extension create it (mode 0600)", name, st.Mode&0o7777, path)
	}
	if st.Size == 0 {
		// Being sized by its creator, which holds an exclusive flock until
		// then (released if it dies): wait for it, as the extension does.
		syscall.Flock(int(f.Fd()), syscall.LOCK_SH)
		if st, err = stat(f); err != nil {
			return nil, nil, fmt.Errorf("cannot stat the shared memory segment %s: %v", name, err)
		}
		if st.Size == 0 {
			return nil, nil, fmt.Errorf("the shared memory segment %s is empty (0 bytes): its creator failed; remove it "+
				"(%s) while no process uses it", name, path)
		}
	}
	if st.Size < shm.MinSize || st.Size > math.MaxInt || uint64(st.Size) > shm.MaxSize {
		return nil, nil, fmt.Errorf("the shared memory segment %s is %d bytes, not a size ephpm-kv makes (%d to %d): "+
			"not an ephpm-kv segment", name, st.Size, shm.MinSize, uint64(shm.MaxSize))
	}
	mem, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot map the shared memory segment %s (%d bytes): %v", name, st.Size, err)
	}
	e, err = shm.Attach(mem, shm.Config{LockTimeout: lockTimeout})
	if err != nil {
		shm.Unmap(mem)
		return nil, nil, fmt.Errorf("the shared memory segment %s: %w", name, err)
	}
	return e, func() { shm.Unmap(mem) }, nil
}

func stat(f *os.File) (*syscall.Stat_t, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return nil, err
	}
	return &st, nil
}
