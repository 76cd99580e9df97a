package server

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// A restart after a crash cannot know which fences EPHPM.FENCE recorded
// since the last snapshot; a clean shutdown's final snapshot holds them all.

// crash stops s the way kill -9 would leave its files: no final snapshot,
// no clean record (the listeners and connections still close, so the test
// can go on).
func crash(s *Server) {
	s.cfg.Snapshot = ""
	s.Close()
}

// restart starts a server on cfg's snapshot with a socket of its own.
func restart(t *testing.T, cfg Config) (*Server, *respConn) {
	t.Helper()
	cfg.Unix = filepath.Join(t.TempDir(), "kv.sock")
	s, addr := startServer(t, cfg)
	return s, dial(t, "unix", addr)
}

// fences takes and releases lock n times and returns the fences issued.
func fences(t *testing.T, rc *respConn, n int) []string {
	t.Helper()
	var fs []string
	for range n {
		f := rc.do("EPHPM.SETNXFENCED", "lock", "t", "60000")
		if n, err := strconv.ParseInt(f, 10, 64); err != nil || n <= 0 {
			t.Fatalf("SETNXFENCED: %s", f)
		}
		rc.do("DEL", "lock")
		fs = append(fs, f)
	}
	return fs
}

func TestCleanRestartKeepsFenceChecks(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	s, rc := restart(t, cfg)
	f := fences(t, rc, 2)
	runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "r", f[1])})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, rc = restart(t, cfg)
	if floor := s.Store().Fences().Floor; floor != 0 {
		t.Fatalf("a clean restart raised the fence floor to %d", floor)
	}
	runSteps(t, rc, []step{
		cmd("1", "EPHPM.FENCE", "r", f[1]),     // still the highest: accepted
		cmd("0", "EPHPM.FENCE", "r", f[0]),     // the record survived: stale
		cmd("1", "EPHPM.FENCE", "other", f[0]), // never recorded: nothing refuses it
	})
	// The clean record is spent once the server runs again: a crash now
	// may lose what it records.
	crash(s)
	_, rc = restart(t, cfg)
	runSteps(t, rc, []step{cmd("0", "EPHPM.FENCE", "r", f[1])})
}

func TestCrashRestartRefusesPreCrashFences(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	s, rc := restart(t, cfg)
	f := fences(t, rc, 3)
	runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "r", f[1])})
	if err := s.saveSnapshot(); err != nil { // a periodic snapshot: r at f[1]
		t.Fatal(err)
	}
	runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "r", f[2])}) // lost with the crash
	crash(s)

	s, rc = restart(t, cfg)
	runSteps(t, rc, []step{
		cmd("0", "EPHPM.FENCE", "r", f[1]),     // the snapshot's record, but f[2] was accepted after it
		cmd("0", "EPHPM.FENCE", "r", f[2]),     // the highest before the crash: refused too
		cmd("0", "EPHPM.FENCE", "never", f[0]), // a resource the snapshot does not know
	})
	if st := s.Store().Fences(); len(st.Highest) != 0 {
		t.Fatalf("records below the floor kept: %v", st.Highest)
	}
	after := fences(t, rc, 1)[0]
	runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "r", after), cmd("1", "EPHPM.FENCE", "never", after)})

	// A clean restart after that keeps the floor: the crash's losses are
	// still unknown.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, rc = restart(t, cfg)
	runSteps(t, rc, []step{
		cmd("0", "EPHPM.FENCE", "third", f[2]),
		cmd("1", "EPHPM.FENCE", "r", after),
	})
}

// The clean record names its snapshot: another one put in its place (a
// backup restored) may lack fences recorded since, and raises the floor.
func TestCleanRecordIsForItsSnapshotOnly(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	s, rc := restart(t, cfg)
	f := fences(t, rc, 2)
	runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "r", f[0])})
	if err := s.saveSnapshot(); err != nil {
		t.Fatal(err)
	}
	backup, err := os.ReadFile(cfg.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "r", f[1])})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfg.Snapshot, string(backup))
	s, rc = restart(t, cfg)
	runSteps(t, rc, []step{cmd("0", "EPHPM.FENCE", "r", f[0])})

	// No snapshot at all beside a fence file (moved away to start empty).
	os.Remove(cfg.Snapshot)
	s, rc = restart(t, cfg)
	runSteps(t, rc, []step{cmd("0", "EPHPM.FENCE", "r", f[1])})
}

// A fence file written before the clean record existed (version 1) reads
// as not clean; a first start (no files) has no floor.
func TestFenceFileVersion1(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	s, _ := restart(t, cfg)
	if floor := s.Store().Fences().Floor; floor != 0 {
		t.Fatalf("a first start raised the fence floor to %d", floor)
	}
	s.Close()
	os.Remove(cfg.Snapshot)
	mark := s.Store().LastFence() + 1000
	b := binary.LittleEndian.AppendUint32([]byte(fenceFileMagic), 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(mark))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	writeFile(t, fencePath(cfg.Snapshot), string(b))
	s, _ = restart(t, cfg)
	if floor := s.Store().Fences().Floor; floor <= mark {
		t.Fatalf("floor %d after a version 1 fence file with mark %d", floor, mark)
	}
}
