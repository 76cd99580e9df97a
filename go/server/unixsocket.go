package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"
	"time"
)

// listenUnix listens on a unix socket at path with the given mode. Whatever
// is at path already is left alone unless it is a stale socket (one nobody
// accepts on, left by a server that was killed): a live socket means
// another server is running, and a file or directory is not ours to delete.
func listenUnix(path string, mode os.FileMode) (net.Listener, error) {
	if err := clearStaleSocket(path); err != nil {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, mode); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

func clearStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--unix %s: %w", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("--unix %s: a %s is there, not a socket; refusing to replace it (move it away or pick another path)", path, describeMode(fi.Mode()))
	}
	c, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("--unix %s: another server is listening there", path)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		// Not provably stale (no permission, a full backlog): leave it.
		return fmt.Errorf("--unix %s: cannot tell whether the socket there is in use: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("--unix %s: removing the stale socket: %w", path, err)
	}
	return nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	case m.Type() == fs.ModeSymlink:
		return "symbolic link"
	}
	return "file of type " + m.Type().String()
}
