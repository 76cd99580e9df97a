package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
)

// The fence mark file (the snapshot's path + ".fence") holds the durable
// fence high-water mark: no fence above it has been issued. Written with
// writeFileAtomic a block of fences ahead (store.DurableFences), read at
// start so a restarted server, even after kill -9, issues fences above it.
//
// It also says whether the last run ended cleanly: a graceful shutdown
// writes it once more, after the final snapshot, with that snapshot's id
// (a random number in its meta frame); the first reservation at the next
// start clears it. A start that does not find the id of the snapshot it
// loads there (a crash, another snapshot put in place) cannot trust the
// fences the snapshot recorded per resource, and raises the fence floor
// (see openSnapshot). The id, not the snapshot's whole-file check: 32 bits
// of CRC are not unique to one file, and in format 3 that check depended on
// the frame lengths alone (see snapshot.go).
//
// Layout, all little-endian: "EPHPMKVF", version (uint32), mark (int64),
// in version 2 the clean shutdown's snapshot id (uint64, 0 = none), and a
// CRC-32C of every preceding byte (uint32). Version 1 (no id) reads as not
// clean.

const (
	fenceFileMagic   = "EPHPMKVF"
	fenceFileVersion = 2
	fenceFileSizeV1  = 8 + 4 + 8 + 4
	fenceFileSize    = 8 + 4 + 8 + 8 + 4
)

func fencePath(snapshot string) string { return snapshot + ".fence" }

// fenceFile is the fence mark file's content.
type fenceFile struct {
	mark      int64
	cleanSnap uint64 // written at a clean shutdown: the final snapshot's id; 0 = not clean
}

func writeFenceFile(path string, ff fenceFile) error {
	b := make([]byte, 0, fenceFileSize)
	b = append(b, fenceFileMagic...)
	b = binary.LittleEndian.AppendUint32(b, fenceFileVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(ff.mark))
	b = binary.LittleEndian.AppendUint64(b, ff.cleanSnap)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return writeFileAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeFenceMark records a mark while the server runs: not clean.
func writeFenceMark(path string, mark int64) error {
	return writeFenceFile(path, fenceFile{mark: mark})
}

// readFenceFile returns the file's content; found is false when there is
// no file yet.
func readFenceFile(path string) (ff fenceFile, found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fenceFile{}, false, nil
	}
	if err != nil {
		return fenceFile{}, false, err
	}
	size := 0
	if len(b) >= 12 && string(b[:8]) == fenceFileMagic {
		switch binary.LittleEndian.Uint32(b[8:]) {
		case 1:
			size = fenceFileSizeV1
		case fenceFileVersion:
			size = fenceFileSize
		}
	}
	if size == 0 || len(b) != size || crc32.Checksum(b[:size-4], castagnoli) != binary.LittleEndian.Uint32(b[size-4:]) {
		return fenceFile{}, false, fmt.Errorf("fence mark file %s is damaged (%d bytes, failed verification); refusing to start, "+
			"as fences could go backwards: restore it, or remove it if fences issued before may be reused", path, len(b))
	}
	ff.mark = int64(binary.LittleEndian.Uint64(b[12:]))
	if size == fenceFileSize {
		ff.cleanSnap = binary.LittleEndian.Uint64(b[20:])
	}
	return ff, true, nil
}

// readFenceMark returns the mark, 0 when there is no file yet.
func readFenceMark(path string) (int64, error) {
	ff, _, err := readFenceFile(path)
	return ff.mark, err
}
