package server

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"time"
	"unsafe"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/store"
)

// Snapshot file, format 6, all integers little-endian or varints:
//
//	header  "EPHPMKVS", version (uint32), CRC-32C of those 12 bytes (uint32)
//	frames  tag (byte), payload length (uvarint), payload,
//	        CRC-32C of tag, length and payload (uint32)
//	  'M'   once, first: fence counter (varint), written at (Unix ms, varint),
//	        then, absent from files written before they were added: the
//	        fence floor (varint), the snapshot's id (random, uvarint; see
//	        fencefile.go)
//	  'F'   per resource: name length (uvarint), name, highest fence (varint)
//	  'K'   per key: key length (uvarint), key, expiry (Unix ms, 0 = none;
//	        varint), value (the rest)
//	  'L'   per lease set, 'R' per rate log (the records only the lease and
//	        rate-limit ops write, which a plain SET cannot forge): as 'K';
//	        the times inside the value (holders' expiries, calls) are Unix
//	        ns, like the expiry wall-clock time (store.ExportKinds); holders
//	        whose time ran out by the load are dropped (store.Restore)
//	  'C'   per evictable entry (EPHPM.SETEVICTABLE's cache), as 'K'
//	  'E'   last: F and key (K, L and R) frame counts (uvarints), then the
//	        whole-file check (uint32): CRC-32C of every byte before this
//	        frame but the 4-byte checksums (the header's and each frame's)
//
// Every frame is checked on its own, so a damaged file is refused naming
// the offset of the first frame that fails; the end frame's counts catch
// frames lost or added whole, and its whole-file check catches frames that
// each check out but are not where, or in the order, they were written
// (reordered, or taken from another snapshot). Format 3 differed only
// there: its whole-file CRC-32C included the checksums, and a CRC run over
// bytes followed by their own CRC ends on a constant, whatever the bytes,
// so its value depended on the frame lengths alone. Format 3 files still
// load, checked as they were written, which adds nothing to their frame
// checks and counts. Format 4 had no 'L' or 'R' frames (a lease set was
// not kept as one), format 5 no 'C' frames (an evictable entry came back
// held); both load. Expiry is wall-clock time: it
// survives a restart, the store's monotonic deadlines do not.
//
// The file is written to a temp file beside it and renamed into place with
// fsyncs around the rename (writeFileAtomic), and is checked to be writable
// at startup. A file that fails verification stops the server before it
// serves anything, so an empty store never overwrites it.

const (
	snapshotMagic   = "EPHPMKVS"
	snapshotVersion = 6
	snapshotOldest  = 3 // read too: the whole-file check includes the checksums; 4 and 5 too
	snapshotHeader  = 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// kindTags are the key frames' tags by the kind of value; tagKinds the
// other way.
var (
	kindTags = map[store.Kind]byte{store.KindPlain: 'K', store.KindLease: 'L', store.KindRate: 'R', store.KindCache: 'C'}
	tagKinds = map[byte]store.Kind{'K': store.KindPlain, 'L': store.KindLease, 'R': store.KindRate, 'C': store.KindCache}
)

// openSnapshot runs at start when --snapshot is set: it removes temp files
// a crash left, checks that the file can be written, loads it (verified)
// and makes fences durable beside it.
//
// The fences recorded per resource (EPHPM.FENCE) are only in the snapshot,
// so a crash loses those recorded since it was written, while the fences
// issued survive in the fence mark file. Unless the last run ended with a
// clean shutdown that wrote this very snapshot, every fence check is held
// to a floor, the first fence this run issues: a fence issued before the
// crash is refused, as one above it may have been recorded and lost. That
// costs nothing per check (no fsync), and refuses holders whose locks the
// crash may have lost anyway.
func (s *Server) openSnapshot() error {
	path := s.cfg.Snapshot
	if err := checkWritable(path); err != nil {
		return err
	}
	if err := errors.Join(removeStaleTemps(path), removeStaleTemps(fencePath(path))); err != nil {
		return fmt.Errorf("removing stale snapshot temp files: %w", err)
	}
	ff, ffFound, err := readFenceFile(fencePath(path))
	if err != nil {
		return err
	}
	n, id, found, err := s.loadSnapshot()
	if err != nil {
		return err
	}
	if err := s.store.RestoreFences(store.FenceState{Counter: ff.mark}); err != nil {
		return err
	}
	if clean := found && id != 0 && id == ff.cleanSnap; !clean && (ffFound || found) {
		floor := s.store.LastFence() + 1
		s.store.RaiseFenceFloor(floor)
		s.log.Warn("the last run did not end with a clean shutdown after this snapshot: "+
			"fence checks refuse every fence issued before this start", "path", path, "floor", floor)
	}
	// The first reservation also overwrites a clean record: from here on
	// the snapshot on disk no longer holds every recorded fence.
	if err := s.store.DurableFences(func(mark int64) error {
		return writeFenceMark(fencePath(path), mark)
	}, s.cfg.FenceBlock); err != nil {
		return fmt.Errorf("snapshot %s: %w", path, err)
	}
	s.log.Info("snapshot loaded", "path", path, "keys", n)
	return nil
}

// frameWriter writes frames, keeping the whole-file check.
type frameWriter struct {
	w    *bufio.Writer
	all  uint32 // CRC-32C of everything written but the checksums
	buf  []byte
	keys uint64
	fncs uint64
}

// checked writes b followed by its CRC-32C, which the whole-file check
// leaves out.
func (fw *frameWriter) checked(b []byte) []byte {
	fw.all = crc32.Update(fw.all, castagnoli, b)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	fw.w.Write(b)
	return b
}

// frame assembles one frame in a reused buffer: one write, one checksum
// pass each, whatever the number of parts.
func (fw *frameWriter) frame(tag byte, parts ...[]byte) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := append(fw.buf[:0], tag)
	b = binary.AppendUvarint(b, uint64(n))
	for _, p := range parts {
		b = append(b, p...)
	}
	fw.buf = fw.checked(b)
}

func (s *Server) saveSnapshot() error {
	_, err := s.writeSnapshot()
	return err
}

// writeSnapshot writes the snapshot and returns its id.
func (s *Server) writeSnapshot() (uint64, error) {
	path := s.cfg.Snapshot
	var keys uint64
	id := rand.Uint64() | 1 // never 0, which means none
	err := writeFileAtomic(path, func(w *bufio.Writer) error {
		fw := &frameWriter{w: w}
		hdr := binary.LittleEndian.AppendUint32([]byte(snapshotMagic), snapshotVersion)
		fw.checked(hdr)
		fences := s.store.Fences()
		meta := binary.AppendVarint(nil, fences.Counter)
		meta = binary.AppendVarint(meta, time.Now().UnixMilli())
		meta = binary.AppendVarint(meta, fences.Floor)
		fw.frame('M', binary.AppendUvarint(meta, id))
		for resource, fence := range fences.Highest {
			h := binary.AppendUvarint(nil, uint64(len(resource)))
			fw.frame('F', h, []byte(resource), binary.AppendVarint(nil, fence))
			fw.fncs++
		}
		now := time.Now()
		var hdrBuf [2 * binary.MaxVarintLen64]byte
		err := s.store.ExportKinds(func(k string, kind store.Kind, v []byte, ttl time.Duration) error {
			var at int64
			if ttl > 0 {
				at = now.Add(ttl).UnixMilli() + 1
			}
			kl := binary.AppendUvarint(hdrBuf[:0], uint64(len(k)))
			n := len(kl)
			fw.frame(kindTags[kind], kl, unsafe.Slice(unsafe.StringData(k), len(k)), binary.AppendVarint(hdrBuf[n:n], at), v)
			fw.keys++
			return nil
		})
		if err != nil {
			return err
		}
		end := binary.AppendUvarint(nil, fw.fncs)
		end = binary.AppendUvarint(end, fw.keys)
		end = binary.LittleEndian.AppendUint32(end, fw.all)
		fw.frame('E', end)
		keys = fw.keys
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("writing snapshot %s: %w", path, err)
	}
	s.log.Info("snapshot saved", "path", path, "keys", keys)
	return id, nil
}

// snapshotError names the file and the offset of the first bad byte range.
type snapshotError struct {
	path string
	off  int64
	what string
}

func (e *snapshotError) Error() string {
	return fmt.Sprintf("snapshot %s is damaged at byte %d: %s; refusing to start (the file is left as it is: "+
		"restore a good copy, or move it away to start empty)", e.path, e.off, e.what)
}

// frameReader reads and verifies frames, tracking offsets for messages.
type frameReader struct {
	path     string
	r        *bufio.Reader
	off      int64 // of the next byte
	size     int64
	maxFrame int64
	all      uint32 // the whole-file check of the frames read so far
	withSums bool   // format 3: the whole-file check includes the checksums
	buf      []byte
}

func (fr *frameReader) bad(off int64, format string, args ...any) error {
	return &snapshotError{fr.path, off, fmt.Sprintf(format, args...)}
}

func (fr *frameReader) read(b []byte) error {
	if _, err := io.ReadFull(fr.r, b); err != nil {
		return err
	}
	fr.off += int64(len(b))
	return nil
}

// add adds checked bytes and their checksum to the whole-file check.
func (fr *frameReader) add(head, payload, sum []byte) {
	fr.all = crc32.Update(crc32.Update(fr.all, castagnoli, head), castagnoli, payload)
	if fr.withSums {
		fr.all = crc32.Update(fr.all, castagnoli, sum)
	}
}

// next returns the next frame's tag, payload (valid until the next call)
// and starting offset.
func (fr *frameReader) next() (byte, []byte, int64, error) {
	start := fr.off
	if start == fr.size {
		return 0, nil, start, fr.bad(start, "the file ends without its end frame (truncated)")
	}
	var head [1 + binary.MaxVarintLen64]byte
	n := 0
	var length uint64
	for {
		if n == len(head) || fr.read(head[n:n+1]) != nil {
			return 0, nil, start, fr.bad(start, "frame header cut short or malformed")
		}
		n++
		if n > 1 && head[n-1] < 0x80 {
			var k int
			length, k = binary.Uvarint(head[1:n])
			if k <= 0 {
				return 0, nil, start, fr.bad(start, "malformed frame length")
			}
			break
		}
	}
	if left := fr.size - fr.off - 4; int64(length) > left || left < 0 {
		return 0, nil, start, fr.bad(start, "frame of %d bytes runs past the end of the file (truncated)", length)
	}
	if int64(length) > fr.maxFrame {
		return 0, nil, start, fr.bad(start, "frame of %d bytes is larger than the largest key and value this server accepts (--max-value-size)", length)
	}
	if cap(fr.buf) < int(length)+4 {
		fr.buf = make([]byte, int(length)+4)
	}
	body := fr.buf[:length+4]
	if err := fr.read(body); err != nil {
		return 0, nil, start, fr.bad(start, "frame cut short")
	}
	payload := body[:length]
	sum := crc32.Update(crc32.Checksum(head[:n], castagnoli), castagnoli, payload)
	if sum != binary.LittleEndian.Uint32(body[length:]) {
		return 0, nil, start, fr.bad(start, "frame checksum mismatch")
	}
	fr.add(head[:n], payload, body[length:])
	return head[0], payload, start, nil
}

// loadSnapshot loads the snapshot into the store, verifying all of it, and
// returns the keys loaded and its id (0 in files written before ids); an
// absent file (found false) is an empty store.
func (s *Server) loadSnapshot() (keys int, id uint64, found bool, err error) {
	path := s.cfg.Snapshot
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, false, nil
	}
	if err != nil {
		return 0, 0, false, err
	}
	keys, id, err = s.readSnapshot(f)
	return keys, id, err == nil, err
}

func (s *Server) readSnapshot(f *os.File) (int, uint64, error) {
	path := s.cfg.Snapshot
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	fr := &frameReader{path: path, r: bufio.NewReaderSize(f, 256<<10), size: fi.Size(),
		maxFrame: kv.MaxKeySize + max(s.cfg.MaxBulk, store.MaxRecordSize) + 3*binary.MaxVarintLen64}
	hdr := make([]byte, snapshotHeader)
	if err := fr.read(hdr); err != nil {
		return 0, 0, fr.bad(0, "shorter than the %d-byte header", snapshotHeader)
	}
	switch {
	case string(hdr[:7]) == "EPHPMKV" && hdr[7] != 'S':
		return 0, 0, fmt.Errorf("snapshot %s is in an older, unverifiable format (%q); refusing to start: move it away to start empty", path, hdr[:8])
	case string(hdr[:8]) != snapshotMagic:
		return 0, 0, fr.bad(0, "not an ephpm-kv snapshot (no %q header)", snapshotMagic)
	case crc32.Checksum(hdr[:12], castagnoli) != binary.LittleEndian.Uint32(hdr[12:]):
		return 0, 0, fr.bad(0, "header checksum mismatch")
	}
	version := binary.LittleEndian.Uint32(hdr[8:])
	switch version {
	case snapshotOldest:
		fr.withSums = true
	case 4, 5, snapshotVersion:
	default:
		return 0, 0, fmt.Errorf("snapshot %s has format version %d; this server reads versions %d to %d", path, version, snapshotOldest, snapshotVersion)
	}
	fr.add(nil, hdr[:12], hdr[12:])
	fences := store.FenceState{Highest: map[string]int64{}}
	var nkeys, nfences, id uint64
	loaded, metaSeen := 0, false
	for {
		sumBefore := fr.all
		tag, p, off, err := fr.next()
		if err != nil {
			return 0, 0, err
		}
		if (tag == 'M') == metaSeen {
			return 0, 0, fr.bad(off, "frame %q out of place", tag)
		}
		switch tag {
		case 'M':
			metaSeen = true
			var ok bool
			if fences.Counter, p, ok = varint(p); !ok {
				return 0, 0, fr.bad(off, "malformed meta frame")
			}
			if _, p, ok = varint(p); ok && len(p) > 0 { // written at, then the floor and the id
				if fences.Floor, p, ok = varint(p); ok {
					id, p, ok = uvarint(p)
				}
			}
			if !ok || len(p) != 0 {
				return 0, 0, fr.bad(off, "malformed meta frame")
			}
		case 'F':
			name, rest, ok := lenPrefixed(p)
			fence, rest, ok2 := varint(rest)
			if !ok || !ok2 || len(rest) != 0 || nkeys > 0 {
				return 0, 0, fr.bad(off, "malformed fence frame")
			}
			fences.Highest[string(name)] = fence
			nfences++
		case 'K', 'L', 'R', 'C':
			key, rest, ok := lenPrefixed(p)
			at, value, ok2 := varint(rest)
			if !ok || !ok2 || len(key) == 0 {
				return 0, 0, fr.bad(off, "malformed key frame")
			}
			if (tag == 'L' || tag == 'R') && version < 5 {
				return 0, 0, fr.bad(off, "frame %q in a format %d file, which writes lease sets and rate logs as 'K'", tag, version)
			}
			if tag == 'C' && version < 6 {
				return 0, 0, fr.bad(off, "frame 'C' in a format %d file, which writes evictable entries as 'K'", version)
			}
			nkeys++
			var ttl time.Duration
			if at != 0 {
				if ttl = time.Until(time.UnixMilli(at)); ttl <= 0 {
					continue // expired while the server was down
				}
			}
			stored, err := s.store.Restore(string(key), tagKinds[tag], value, min(ttl, kv.MaxTTL))
			if err != nil {
				return 0, 0, fmt.Errorf("loading snapshot %s (key frame at byte %d): %w", path, off, err)
			}
			if stored { // not a lease set whose every holder expired while the server was down
				loaded++
			}
		case 'E':
			wantF, rest, ok := uvarint(p)
			wantK, rest, ok2 := uvarint(rest)
			if !ok || !ok2 || len(rest) != 4 {
				return 0, 0, fr.bad(off, "malformed end frame")
			}
			if wantF != nfences || wantK != nkeys {
				return 0, 0, fr.bad(off, "end frame counts %d fences and %d keys, the file holds %d and %d", wantF, wantK, nfences, nkeys)
			}
			if binary.LittleEndian.Uint32(rest) != sumBefore {
				return 0, 0, fr.bad(off, "whole-file checksum mismatch")
			}
			if fr.off != fr.size {
				return 0, 0, fr.bad(fr.off, "%d bytes after the end frame", fr.size-fr.off)
			}
			return loaded, id, s.store.RestoreFences(fences)
		default:
			return 0, 0, fr.bad(off, "unknown frame type %q", tag)
		}
	}
}

func uvarint(p []byte) (uint64, []byte, bool) {
	v, n := binary.Uvarint(p)
	if n <= 0 {
		return 0, p, false
	}
	return v, p[n:], true
}

func varint(p []byte) (int64, []byte, bool) {
	v, n := binary.Varint(p)
	if n <= 0 {
		return 0, p, false
	}
	return v, p[n:], true
}

func lenPrefixed(p []byte) ([]byte, []byte, bool) {
	n, rest, ok := uvarint(p)
	if !ok || n > uint64(len(rest)) {
		return nil, p, false
	}
	return rest[:n], rest[n:], true
}

func (s *Server) snapshotLoop() {
	defer close(s.snapDone)
	t := time.NewTicker(s.cfg.SnapshotEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stopSnap:
			return
		case <-t.C:
			if err := s.saveSnapshot(); err != nil {
				s.log.Error("periodic snapshot failed", "err", err)
			}
		}
	}
}
