package server

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func quietConfig(dir string) Config {
	return Config{Unix: filepath.Join(dir, "kv.sock"), Snapshot: filepath.Join(dir, "kv.snap"),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// smallSnapshot writes a snapshot with keys (one with a TTL, one binary,
// a lease set and a rate log), fence records and a fence counter, and
// returns its bytes.
func smallSnapshot(t *testing.T, cfg Config) []byte {
	t.Helper()
	s, addr := startServer(t, cfg)
	runSteps(t, dial(t, "unix", addr), []step{
		cmd("OK", "SET", "a", "1"), cmd("OK", "SET", "bin\x00", "\x00\xff\x00", "EX", "1000"),
		cmd("OK", "SET", "c", strings.Repeat("x", 40)),
		cmd("*", "EPHPM.SETNXFENCED", "lock", "t", "60000"), cmd("1", "EPHPM.FENCE", "res", "7"),
		cmd("*", "EPHPM.LEASEACQUIRE", "sem", "t", "PERMIT", "2", "60000", "0"),
		cmd("[1 4 0]", "EPHPM.RATELIMIT", "rate", "5", "60000"),
	})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cfg.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// refused checks that a server will not start on the damaged file, says
// which file and where, and leaves the file alone.
func refused(t *testing.T, cfg Config, damaged []byte, lastGoodByte int, what string) error {
	t.Helper()
	if err := os.WriteFile(cfg.Snapshot, damaged, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg)
	if err == nil {
		s.Close()
		t.Fatalf("%s: the server started", what)
	}
	if !strings.Contains(err.Error(), cfg.Snapshot) {
		t.Fatalf("%s: the error does not name the file: %v", what, err)
	}
	var se *snapshotError
	if errors.As(err, &se) && se.off > int64(lastGoodByte) {
		t.Fatalf("%s: reported at byte %d, after the damage at %d: %v", what, se.off, lastGoodByte, err)
	}
	if got, _ := os.ReadFile(cfg.Snapshot); !bytes.Equal(got, damaged) {
		t.Fatalf("%s: the refused file was changed", what)
	}
	return err
}

func TestSnapshotRefusesEveryTruncation(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	good := smallSnapshot(t, cfg)
	for n := range len(good) {
		refused(t, cfg, good[:n], n, fmt.Sprintf("cut at %d of %d bytes", n, len(good)))
	}
	// Loading the intact file still works.
	os.WriteFile(cfg.Snapshot, good, 0o600)
	_, addr := startServer(t, cfg)
	runSteps(t, dial(t, "unix", addr), []step{cmd("6", "DBSIZE"), cmd(`"\x00\xff\x00"`, "GET", "bin\x00"),
		cmd("1", "EPHPM.LEASECOUNT", "sem"), cmd("[1 3 0]", "EPHPM.RATELIMIT", "rate", "5", "60000")})
}

func TestSnapshotRefusesEveryByteFlip(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	good := smallSnapshot(t, cfg)
	for i := range good {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(good)
			bad[i] ^= mask
			refused(t, cfg, bad, i, fmt.Sprintf("byte %d ^ %#x", i, mask))
		}
	}
	refused(t, cfg, append(bytes.Clone(good), 0), len(good), "a byte appended")
}

func TestSnapshotPathMustBeWritable(t *testing.T) {
	dir := t.TempDir()
	aFile := filepath.Join(dir, "file")
	writeFile(t, aFile, "x")
	os.Mkdir(filepath.Join(dir, "adir"), 0o700)
	cases := map[string]string{
		"missing directory":     filepath.Join(dir, "missing", "kv.snap"),
		"a file as directory":   filepath.Join(aFile, "kv.snap"),
		"a directory as target": filepath.Join(dir, "adir"),
	}
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o500)
	if f, err := os.CreateTemp(ro, "probe"); err != nil {
		cases["read-only directory"] = filepath.Join(ro, "kv.snap")
	} else {
		// root ignores the mode; sysfs refuses new files even to root.
		f.Close()
		os.Remove(f.Name())
		if f, err := os.CreateTemp("/sys", "probe"); err == nil {
			f.Close()
			os.Remove(f.Name())
			t.Log("no read-only directory available to test")
		} else {
			cases["read-only directory"] = "/sys/kv.snap"
		}
	}
	for name, path := range cases {
		cfg := quietConfig(dir)
		cfg.Snapshot = path
		s, err := New(cfg)
		if err == nil {
			s.Close()
			t.Errorf("%s (%s): the server started", name, path)
			continue
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: the error does not name the path: %v", name, err)
		}
	}
}

func TestSnapshotTempFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := quietConfig(dir)
	stale := filepath.Join(dir, tempPrefix(cfg.Snapshot)+"123456")
	staleMark := filepath.Join(dir, tempPrefix(fencePath(cfg.Snapshot))+"123456")
	writeFile(t, staleMark, "left by kill -9")
	other := filepath.Join(dir, tempPrefix(filepath.Join(dir, "other.snap"))+"123456")
	// A snapshot whose name extends this one's must keep its temp files.
	longer := filepath.Join(dir, tempPrefix(cfg.Snapshot+"-b")+"123456")
	writeFile(t, stale, "left by kill -9")
	writeFile(t, other, "another server's")
	writeFile(t, longer, "another server's")
	s, _ := startServer(t, cfg)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a stale temp file survived the start: %v", err)
	}
	if _, err := os.Stat(staleMark); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a stale fence mark temp file survived the start: %v", err)
	}
	for _, keep := range []string{other, longer} {
		if _, err := os.Stat(keep); err != nil {
			t.Fatalf("another snapshot's temp file was removed: %v", err)
		}
	}
	// A write that fails leaves no temp file: the rename cannot replace a
	// non-empty directory.
	os.Remove(cfg.Snapshot)
	os.MkdirAll(filepath.Join(cfg.Snapshot, "x"), 0o700)
	if err := s.saveSnapshot(); err == nil {
		t.Fatal("a snapshot replaced a directory")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if isTempOf(e.Name(), tempPrefix(cfg.Snapshot)) {
			t.Fatalf("temp file %s left after a failed write", e.Name())
		}
	}
	os.RemoveAll(cfg.Snapshot)
}

// The fence mark file is written at start, covers every fence issued, and
// a damaged one stops the server rather than let fences go backwards.
func TestFenceMarkFile(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	cfg.FenceBlock = 10
	s, addr := startServer(t, cfg)
	rc := dial(t, "unix", addr)
	var last int64
	for range 25 {
		fmt.Sscan(rc.do("EPHPM.SETNXFENCED", "l", "t", "60000"), &last)
		rc.do("DEL", "l")
		if mark, err := readFenceMark(fencePath(cfg.Snapshot)); err != nil || mark < last {
			t.Fatalf("fence %d issued above the durable mark %d (%v)", last, mark, err)
		}
	}
	s.Close()
	good, _ := os.ReadFile(fencePath(cfg.Snapshot))
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0x10
		os.WriteFile(fencePath(cfg.Snapshot), bad, 0o600)
		if s, err := New(cfg); err == nil || !strings.Contains(err.Error(), fencePath(cfg.Snapshot)) {
			if s != nil {
				s.Close()
			}
			t.Fatalf("byte %d of the fence mark flipped: %v", i, err)
		}
	}
}

// A file whose frames all check out but whose end frame counts differ
// from what it holds (a frame lost whole, or one too many) is refused.
func TestSnapshotRefusesWrongCounts(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	good := smallSnapshot(t, cfg)
	fs := snapFrames(good)
	endAt, end := int64(fs[len(fs)-1].off), fs[len(fs)-1].payload
	fences, rest, _ := uvarint(end)
	keys, sum, _ := uvarint(rest)
	for _, c := range [][2]uint64{{fences + 1, keys}, {fences, keys - 1}, {fences, keys + 1}} {
		var b bytes.Buffer
		b.Write(good[:endAt])
		fw := &frameWriter{w: bufio.NewWriter(&b)}
		payload := binary.AppendUvarint(binary.AppendUvarint(nil, c[0]), c[1])
		fw.frame('E', append(payload, sum...))
		fw.w.Flush()
		what := fmt.Sprintf("end frame counting %d fences and %d keys", c[0], c[1])
		if err := refused(t, cfg, b.Bytes(), int(endAt), what); !strings.Contains(err.Error(), "counts") {
			t.Errorf("%s: refused for another reason: %v", what, err)
		}
	}
}

// snapFrame is one frame of a snapshot file, b[off:end].
type snapFrame struct {
	tag      byte
	off, end int
	payload  []byte
}

// snapFrames splits a snapshot file into its frames, checking nothing.
func snapFrames(b []byte) []snapFrame {
	var fs []snapFrame
	for off := snapshotHeader; off < len(b); {
		n, k := binary.Uvarint(b[off+1:])
		start := off + 1 + k
		end := start + int(n) + 4
		fs = append(fs, snapFrame{b[off], off, end, b[start : start+int(n)]})
		off = end
	}
	return fs
}

// keyFrame returns the key frame holding key.
func keyFrame(t *testing.T, fs []snapFrame, key string) snapFrame {
	t.Helper()
	for _, f := range fs {
		if k, _, ok := lenPrefixed(f.payload); f.tag == 'K' && ok && string(k) == key {
			return f
		}
	}
	t.Fatalf("no key frame for %q", key)
	return snapFrame{}
}

// twoKeys writes a snapshot holding k1 and k2 and returns its bytes.
func twoKeys(t *testing.T, cfg Config, v1, v2 string) []byte {
	t.Helper()
	s, addr := startServer(t, cfg)
	runSteps(t, dial(t, "unix", addr), []step{cmd("OK", "SET", "k1", v1), cmd("OK", "SET", "k2", v2)})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cfg.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Frames that each check out but are not where their snapshot wrote them
// (reordered, or one from another snapshot spliced in) are refused by the
// end frame's whole-file check. Format 3 ran that CRC-32C over frames that
// each end with their own CRC-32C, which leaves a constant residue per
// frame, so its value depended on the frame lengths alone.
func TestSnapshotRefusesFramesMovedOrSpliced(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	a := twoKeys(t, cfg, "aaaa", "bbbb")
	b := twoKeys(t, quietConfig(t.TempDir()), "cccc", "dddd")
	fa := snapFrames(a)
	k1, k2, endAt := keyFrame(t, fa, "k1"), keyFrame(t, fa, "k2"), fa[len(fa)-1].off
	if k1.end-k1.off != k2.end-k2.off {
		t.Fatal("the key frames differ in length")
	}
	swapped := bytes.Clone(a)
	copy(swapped[k1.off:], a[k2.off:k2.end])
	copy(swapped[k2.off:], a[k1.off:k1.end])
	spliced := bytes.Clone(a)
	other := keyFrame(t, snapFrames(b), "k1")
	if copy(spliced[k1.off:k1.end], b[other.off:other.end]) != k1.end-k1.off {
		t.Fatal("the other snapshot's k1 frame differs in length")
	}
	for what, bad := range map[string][]byte{"key frames swapped": swapped, "k1 from another snapshot": spliced} {
		if err := refused(t, cfg, bad, endAt, what); !strings.Contains(err.Error(), "whole-file") {
			t.Errorf("%s: refused for another reason: %v", what, err)
		}
	}
}

// A format 3 snapshot (testdata, written by the server before format 4)
// still loads, checked as it was written, and a clean stop recorded for it
// still keeps the fence records exact: an upgrade is a clean restart.
func TestSnapshotFormat3(t *testing.T) {
	v3, err := os.ReadFile("testdata/snapshot-v3.snap")
	if err != nil {
		t.Fatal(err)
	}
	const fence = "1795977156444315" // recorded for "res" in the file
	fs := snapFrames(v3)
	_, meta, _ := varint(fs[0].payload) // counter, written at, floor, id
	_, meta, _ = varint(meta)
	_, meta, _ = varint(meta)
	id, _, _ := uvarint(meta)
	cfg := quietConfig(t.TempDir())
	writeFile(t, cfg.Snapshot, string(v3))
	if err := writeFenceFile(fencePath(cfg.Snapshot), fenceFile{mark: 1795977156445315, cleanSnap: id}); err != nil {
		t.Fatal(err)
	}
	s, rc := restart(t, cfg)
	if floor := s.Store().Fences().Floor; floor != 0 {
		t.Fatalf("the clean record of a format 3 snapshot raised the fence floor to %d", floor)
	}
	runSteps(t, rc, []step{
		cmd(`"1"`, "GET", "a"), cmd(`"\x00\xff\x00"`, "GET", "bin\x00"), cmd(`"xxxxxxxxxx"`, "GET", "c"),
		cmd("3", "DBSIZE"), cmd("-1", "TTL", "a"),
		cmd("0", "EPHPM.FENCE", "res", "1795977156444314"), cmd("1", "EPHPM.FENCE", "res", fence),
	})
	if ttl, _ := strconv.ParseInt(rc.do("TTL", "bin\x00"), 10, 64); ttl < 1_000_000_000 {
		t.Fatalf("TTL %d, written as about 50 years", ttl)
	}
	// The server writes the current format from then on, and loads it.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cfg.Snapshot); binary.LittleEndian.Uint32(b[8:]) != snapshotVersion {
		t.Fatalf("rewritten as format %d", binary.LittleEndian.Uint32(b[8:]))
	}
	_, rc = restart(t, cfg)
	runSteps(t, rc, []step{cmd("3", "DBSIZE"), cmd("0", "EPHPM.FENCE", "res", "1795977156444314")})

	// Damage is still refused: any byte flipped, or a whole-file check that
	// does not match (in an end frame whose own checksum does).
	for i := range v3 {
		bad := bytes.Clone(v3)
		bad[i] ^= 0x01
		refused(t, cfg, bad, i, fmt.Sprintf("format 3, byte %d ^ 0x01", i))
	}
	end := fs[len(fs)-1]
	wrong := bytes.Clone(end.payload)
	wrong[len(wrong)-1] ^= 0x01
	var b bytes.Buffer
	b.Write(v3[:end.off])
	fw := &frameWriter{w: bufio.NewWriter(&b)}
	fw.frame('E', wrong)
	fw.w.Flush()
	if err := refused(t, cfg, b.Bytes(), end.off, "format 3, whole-file check"); !strings.Contains(err.Error(), "whole-file") {
		t.Errorf("format 3, whole-file check: refused for another reason: %v", err)
	}
}

// asFormat re-encodes snapshot b (its frames as they are) under format
// version v, with every checksum made anew.
func asFormat(b []byte, v uint32) []byte {
	var out bytes.Buffer
	fw := &frameWriter{w: bufio.NewWriter(&out)}
	fw.checked(binary.LittleEndian.AppendUint32([]byte(snapshotMagic), v))
	fs := snapFrames(b)
	for _, f := range fs[:len(fs)-1] {
		fw.frame(f.tag, f.payload)
	}
	fences, rest, _ := uvarint(fs[len(fs)-1].payload)
	keys, _, _ := uvarint(rest)
	fw.frame('E', binary.LittleEndian.AppendUint32(binary.AppendUvarint(binary.AppendUvarint(nil, fences), keys), fw.all))
	fw.w.Flush()
	return out.Bytes()
}

// A format 4 file (no lease sets or rate logs in it) loads as it is; a
// newer format than this server writes is refused by name.
func TestSnapshotLoadsFormat4(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	v4 := asFormat(twoKeys(t, cfg, "aaaa", "bbbb"), 4)
	if err := os.WriteFile(cfg.Snapshot, v4, 0o600); err != nil {
		t.Fatal(err)
	}
	_, addr := startServer(t, cfg)
	runSteps(t, dial(t, "unix", addr), []step{cmd(`"aaaa"`, "GET", "k1"), cmd(`"bbbb"`, "GET", "k2")})

	cfg = quietConfig(t.TempDir())
	if err := os.WriteFile(cfg.Snapshot, asFormat(v4, snapshotVersion+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := New(cfg); err == nil || !strings.Contains(err.Error(), "format version") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("a format %d file: %v", snapshotVersion+1, err)
	}
}

// Lease sets and rate logs are frames of their own ('L', 'R') from format
// 5 on; a file of an older format that holds one is refused, as its
// writer never wrote one.
func TestSnapshotFormat4HasNoLeaseFrames(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	v5 := smallSnapshot(t, cfg)
	var tags []byte
	for _, f := range snapFrames(v5) {
		tags = append(tags, f.tag)
	}
	if !bytes.Contains(tags, []byte("L")) || !bytes.Contains(tags, []byte("R")) {
		t.Fatalf("frames %q: no lease set or rate log frame", tags)
	}
	for _, v := range []uint32{3, 4} {
		err := refused(t, cfg, asFormat(v5, v), len(v5), fmt.Sprintf("format %d with lease frames", v))
		if !strings.Contains(err.Error(), fmt.Sprintf("in a format %d file", v)) {
			t.Errorf("format %d: refused for another reason: %v", v, err)
		}
	}
}
