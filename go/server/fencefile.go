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
// Layout: "EPHPMKVF", version (uint32), mark (int64), CRC-32C of the
// preceding 20 bytes (uint32), all little-endian.

const (
	fenceFileMagic   = "EPHPMKVF"
	fenceFileVersion = 1
	fenceFileSize    = 8 + 4 + 8 + 4
)

func fencePath(snapshot string) string { return snapshot + ".fence" }

func writeFenceMark(path string, mark int64) error {
	b := make([]byte, 0, fenceFileSize)
	b = append(b, fenceFileMagic...)
	b = binary.LittleEndian.AppendUint32(b, fenceFileVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(mark))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	return writeFileAtomic(path, func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// readFenceMark returns the mark, 0 when there is no file yet.
func readFenceMark(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(b) != fenceFileSize || string(b[:8]) != fenceFileMagic ||
		binary.LittleEndian.Uint32(b[8:]) != fenceFileVersion ||
		crc32.Checksum(b[:20], castagnoli) != binary.LittleEndian.Uint32(b[20:]) {
		return 0, fmt.Errorf("fence mark file %s is damaged (%d bytes, failed verification); refusing to start, "+
			"as fences could go backwards: restore it, or remove it if fences issued before may be reused", path, len(b))
	}
	return int64(binary.LittleEndian.Uint64(b[12:])), nil
}
