package server

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempPrefix names the temp files written beside path, so the ones a crash
// left behind can be found and removed (and only those of this path).
func tempPrefix(path string) string {
	return ".ephpm-kv-snapshot-" + filepath.Base(path) + "-"
}

// writeFileAtomic replaces path with what write produces, all or nothing,
// durably: a temp file in the same directory is written, fsynced, renamed
// over path, and the directory is fsynced so the rename survives a crash.
// A failed write leaves no temp file behind.
func writeFileAtomic(path string, write func(w *bufio.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPrefix(path))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 256<<10)
	if err = write(w); err != nil {
		return err
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// removeStaleTemps deletes the temp files of path that a crash or kill -9
// in the middle of a write left behind.
func removeStaleTemps(path string) error {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	prefix := tempPrefix(path)
	var errs []error
	for _, e := range entries {
		if isTempOf(e.Name(), prefix) && e.Type().IsRegular() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// isTempOf reports whether name is prefix followed by os.CreateTemp's random
// digits, so a snapshot whose name merely extends path's ("a-b" for "a") keeps
// its files.
func isTempOf(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	return ok && rest != "" && strings.Trim(rest, "0123456789") == ""
}

// checkWritable proves at startup that path can be replaced later, rather
// than finding out at shutdown with everything to lose.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("snapshot %s is a %s, not a file", path, describeMode(fi.Mode()))
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("snapshot %s: the directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("snapshot %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("snapshot %s: %s is not a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, tempPrefix(path))
	if err != nil {
		return fmt.Errorf("snapshot %s cannot be written: %w", path, err)
	}
	_, werr := probe.Write([]byte("probe"))
	cerr := probe.Close()
	rerr := os.Remove(probe.Name())
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return fmt.Errorf("snapshot %s cannot be written: %w", path, err)
	}
	return nil
}
