package server

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fenceOf is a granted EPHPM.LEASEACQUIRE's fence; it fails on anything else.
func fenceOf(t *testing.T, rc *respConn, args ...string) int64 {
	t.Helper()
	got := rc.do(append([]string{"EPHPM.LEASEACQUIRE"}, args...)...)
	f, err := strconv.ParseInt(got, 10, 64)
	if err != nil || f <= 0 {
		t.Fatalf("EPHPM.LEASEACQUIRE %v = %s, want a fence", args, got)
	}
	return f
}

func TestLeaseCommands(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(1<<20, 1024)})
	rc := dial(t, "unix", addr)
	lock, _ := strconv.ParseInt(rc.do("EPHPM.SETNXFENCED", "lock", "t", "60000"), 10, 64)
	fa := fenceOf(t, rc, "rw", "A", "shared", "0", "60000", "0")
	if fa <= lock {
		t.Fatalf("a lease's fence %d is not above the lock's before it, %d", fa, lock)
	}
	fb := fenceOf(t, rc, "rw", "B", "SHARED", "0", "60000", "0")
	runSteps(t, rc, []step{
		// A writer is refused and records its intent; new readers are
		// refused, holders renew (with their own fence).
		cmd("0", "EPHPM.LEASEACQUIRE", "rw", "W", "Exclusive", "0", "60000", "60000"),
		cmd("0", "EPHPM.LEASEACQUIRE", "rw", "C", "SHARED", "0", "60000", "0"),
		cmd(strconv.FormatInt(fa, 10), "EPHPM.LEASEACQUIRE", "rw", "A", "SHARED", "0", "120000", "0"),
		cmd("2", "EPHPM.LEASECOUNT", "rw"),
		cmd("120", "TTL", "rw"), // the latest holder's
		cmd("1", "EPHPM.LEASERENEW", "rw", "B", "30000"),
		cmd("0", "EPHPM.LEASERENEW", "rw", "W", "30000"), // an intent is no lease
		cmd("0", "EPHPM.LEASERENEW", "rw", "nobody", "30000"),
		cmd("-2", "EPHPM.LEASETTL", "rw", "W"), // nor for LEASETTL
		cmd("-2", "EPHPM.LEASETTL", "rw", "nobody"),
		cmd("-2", "EPHPM.LEASETTL", "absent", "A"),
	})
	// LEASETTL: microseconds left of the holder's own lease, a read.
	for _, c := range []struct {
		token string
		ms    int64
	}{{"A", 120000}, {"B", 30000}, {"A", 120000}} {
		got := rc.do("EPHPM.LEASETTL", "rw", c.token)
		us, err := strconv.ParseInt(got, 10, 64)
		if err != nil || us > c.ms*1000 || us < c.ms*1000-5e6 {
			t.Fatalf("EPHPM.LEASETTL rw %s = %s, want about %d ms in microseconds", c.token, got, c.ms)
		}
	}
	runSteps(t, rc, []step{
		cmd("1", "EPHPM.LEASERELEASE", "rw", "A"),
		cmd("-2", "EPHPM.LEASETTL", "rw", "A"),
		cmd("0", "EPHPM.LEASERELEASE", "rw", "A"),
		cmd("1", "EPHPM.LEASERELEASE", "rw", "B"),
		cmd("0", "EPHPM.LEASECOUNT", "rw"),
	})
	if fw := fenceOf(t, rc, "rw", "W", "EXCLUSIVE", "0", "60000", "0"); fw <= fb {
		t.Fatalf("the writer's fence %d is not above the readers' %d", fw, fb)
	}
	runSteps(t, rc, []step{
		cmd("1", "EPHPM.LEASERELEASE", "rw", "W"),
		cmd("0", "EXISTS", "rw"), // gone with its last holder
		// Permits: the count is the semaphore's size.
		cmd("0", "EPHPM.LEASECOUNT", "sem"),
	})
	fenceOf(t, rc, "sem", "1", "permit", "2", "60000", "0")
	fenceOf(t, rc, "sem", "2", "PERMIT", "2", "60000", "0")
	runSteps(t, rc, []step{
		cmd("0", "EPHPM.LEASEACQUIRE", "sem", "3", "PERMIT", "2", "60000", "0"),
		cmd("2", "EPHPM.LEASECOUNT", "sem"),
		// A plain value, the other family's key: WRONGTYPE, untouched.
		cmd("OK", "SET", "plain", "v"),
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.LEASEACQUIRE", "plain", "A", "SHARED", "0", "60000", "0"),
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.LEASERELEASE", "plain", "A"),
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.LEASERENEW", "plain", "A", "1000"),
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.LEASECOUNT", "plain"),
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.LEASETTL", "plain", "A"),
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.RATELIMIT", "plain", "5", "1000"),
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.RATELIMIT", "sem", "5", "1000"),
		cmd(`"v"`, "GET", "plain"),
		// A plain DEL frees every holder.
		cmd("1", "DEL", "sem"),
		cmd("0", "EPHPM.LEASECOUNT", "sem"),
	})
}

func TestLeaseCommandsRefuseBadInput(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(1<<20, 1024)})
	rc := dial(t, "unix", addr)
	long := strings.Repeat("t", 65)
	runSteps(t, rc, []step{
		cmd("ERR wrong number of arguments for 'ephpm.leaseacquire' command", "EPHPM.LEASEACQUIRE", "k", "t", "SHARED", "0", "1000"),
		cmd("ERR wrong number of arguments for 'ephpm.leaseacquire' command", "EPHPM.LEASEACQUIRE", "k", "t", "SHARED", "0", "1000", "0", "x"),
		cmd("ERR wrong number of arguments for 'ephpm.leaserelease' command", "EPHPM.LEASERELEASE", "k"),
		cmd("ERR wrong number of arguments for 'ephpm.leaserenew' command", "EPHPM.LEASERENEW", "k", "t"),
		cmd("ERR wrong number of arguments for 'ephpm.leasecount' command", "EPHPM.LEASECOUNT"),
		cmd("ERR wrong number of arguments for 'ephpm.leasettl' command", "EPHPM.LEASETTL", "k"),
		cmd("ERR wrong number of arguments for 'ephpm.ratelimit' command", "EPHPM.RATELIMIT", "k", "5"),
		cmd("ERR bad lease or rate-limit argument: unknown mode 'reader' (SHARED, EXCLUSIVE or PERMIT)", "EPHPM.LEASEACQUIRE", "k", "t", "reader", "0", "1000", "0"),
		cmd("ERR value is not an integer or out of range", "EPHPM.LEASEACQUIRE", "k", "t", "PERMIT", "x", "1000", "0"),
		cmd("ERR value is not an integer or out of range", "EPHPM.LEASEACQUIRE", "k", "t", "SHARED", "0", "1.5", "0"),
		cmd("ERR value is not an integer or out of range", "EPHPM.LEASEACQUIRE", "k", "t", "SHARED", "0", "1000", "x"),
		cmd("ERR invalid expire time in 'ephpm.leaseacquire' command", "EPHPM.LEASEACQUIRE", "k", "t", "SHARED", "0", "-1", "0"),
		cmd("ERR invalid expire time in 'ephpm.leaseacquire' command", "EPHPM.LEASEACQUIRE", "k", "t", "EXCLUSIVE", "0", "1000", "9223372036854775807"),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.LEASEACQUIRE", "k", "", "SHARED", "0", "1000", "0"),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.LEASEACQUIRE", "k", long, "SHARED", "0", "1000", "0"),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.LEASEACQUIRE", "k", "t", "PERMIT", "0", "1000", "0"),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.LEASEACQUIRE", "k", "t", "PERMIT", "1025", "1000", "0"),
		cmd("ERR ttl must be a finite duration from 0 to 100 years*", "EPHPM.LEASEACQUIRE", "k", "t", "SHARED", "0", "0", "0"), // a lease always expires
		cmd("ERR key must not be empty", "EPHPM.LEASEACQUIRE", "", "t", "SHARED", "0", "1000", "0"),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.LEASERELEASE", "k", ""),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.LEASERENEW", "k", long, "1000"),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.LEASETTL", "k", ""),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.LEASETTL", "k", long),
		cmd("ERR ttl must be a finite duration from 0 to 100 years*", "EPHPM.LEASERENEW", "k", "t", "0"),
		cmd("ERR invalid expire time in 'ephpm.leaserenew' command", "EPHPM.LEASERENEW", "k", "t", "-5"),
		cmd("ERR value is not an integer or out of range", "EPHPM.RATELIMIT", "k", "five", "1000"),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.RATELIMIT", "k", "0", "1000"),
		cmd("ERR bad lease or rate-limit argument: *", "EPHPM.RATELIMIT", "k", "10001", "1000"),
		cmd("ERR ttl must be a finite duration from 0 to 100 years*", "EPHPM.RATELIMIT", "k", "5", "0"),
		cmd("ERR invalid expire time in 'ephpm.ratelimit' command", "EPHPM.RATELIMIT", "k", "5", "-1"),
		cmd("0", "EXISTS", "k"), // nothing refused left anything
	})
}

func TestRateLimitCommand(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(1<<20, 1024)})
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{
		cmd("[1 1 0]", "EPHPM.RATELIMIT", "r", "2", "60000"),
		cmd("[1 0 0]", "EPHPM.RATELIMIT", "r", "2", "60000"),
		cmd("60", "TTL", "r"),
	})
	got := rc.do("EPHPM.RATELIMIT", "r", "2", "60000")
	f := strings.Fields(strings.Trim(got, "[]"))
	retry, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if len(f) != 3 || f[0] != "0" || f[1] != "0" || err != nil || retry <= 59_000_000 || retry > 60_000_000 {
		t.Fatalf("the third call of 2 a minute: %s; want [0 0 about a minute in microseconds]", got)
	}
	runSteps(t, rc, []step{
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.LEASECOUNT", "r"),
		cmd("1", "DEL", "r"),
		cmd("[1 0 0]", "EPHPM.RATELIMIT", "r", "1", "60000"),
	})
}

// Lease sets and rate logs come back from a snapshot as what they were:
// holders, fences, intents and calls, with their expiry.
func TestSnapshotKeepsLeasesAndRateLogs(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Unix: filepath.Join(dir, "kv.sock"), Snapshot: filepath.Join(dir, "kv.snap")}
	s, addr := startServer(t, cfg)
	rc := dial(t, "unix", addr)
	fa := fenceOf(t, rc, "rw", "A", "SHARED", "0", "100000", "0")
	fenceOf(t, rc, "sem", "A", "PERMIT", "1", "100000", "0")
	runSteps(t, rc, []step{
		cmd("0", "EPHPM.LEASEACQUIRE", "rw", "W", "EXCLUSIVE", "0", "100000", "100000"),
		cmd("[1 0 0]", "EPHPM.RATELIMIT", "rate", "1", "100000"),
		cmd("OK", "SET", "plain", "L"),
	})
	rc.c.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, addr = startServer(t, cfg)
	rc = dial(t, "unix", addr)
	runSteps(t, rc, []step{
		cmd("1", "EPHPM.LEASECOUNT", "rw"),
		cmd("100", "TTL", "rw"),
		cmd(strconv.FormatInt(fa, 10), "EPHPM.LEASEACQUIRE", "rw", "A", "SHARED", "0", "100000", "0"),
		cmd("0", "EPHPM.LEASEACQUIRE", "rw", "B", "SHARED", "0", "100000", "0"), // W's intent
		cmd("0", "EPHPM.LEASEACQUIRE", "sem", "B", "PERMIT", "1", "100000", "0"),
		cmd("[0 0 *", "EPHPM.RATELIMIT", "rate", "1", "100000"),
		cmd("100", "TTL", "rate"),
		cmd("WRONGTYPE Operation against a key holding the wrong kind of value", "EPHPM.LEASECOUNT", "plain"),
	})
}

// Before AUTH the lease and rate-limit commands run nothing.
func TestLeaseCommandsNeedAuth(t *testing.T) {
	_, addr := startServer(t, Config{Password: "pw", Store: storeCfg(1<<20, 1024)})
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{
		cmd("NOAUTH Authentication required.", "EPHPM.LEASEACQUIRE", "k", "t", "EXCLUSIVE", "0", "60000", "0"),
		cmd("NOAUTH Authentication required.", "EPHPM.RATELIMIT", "r", "1", "60000"),
		cmd("OK", "AUTH", "pw"),
		cmd("0", "EPHPM.LEASECOUNT", "k"),
		cmd("0", "EXISTS", "r"),
	})
}
