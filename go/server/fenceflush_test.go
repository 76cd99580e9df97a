package server

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// FLUSHDB and FLUSHALL delete every lock: every fence issued before them
// is refused after them, on every resource, and the floor they raise
// outlives a restart (a crash restart's, which they never lower, too).
func TestFlushRefusesEarlierFences(t *testing.T) {
	_, addr := startServer(t, Config{})
	rc := dial(t, "unix", addr)
	for _, flush := range []string{"FLUSHDB", "FLUSHALL"} {
		f := fences(t, rc, 2)
		runSteps(t, rc, []step{
			cmd("1", "EPHPM.FENCE", "r", f[1]),
			cmd("OK", flush),
			cmd("0", "EPHPM.FENCE", "r", f[0]),
			cmd("0", "EPHPM.FENCE", "r", f[1]),
			cmd("0", "EPHPM.FENCE", "never", f[1]),
			cmd("0", "DBSIZE"),
		})
		after := fences(t, rc, 1)[0]
		runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "r", after), cmd("1", "EPHPM.FENCE", "never", after)})
	}

	cfg := quietConfig(t.TempDir())
	s, rc := restart(t, cfg)
	f := fences(t, rc, 1)
	crash(s)
	s, rc = restart(t, cfg) // the floor refuses every fence issued before
	runSteps(t, rc, []step{cmd("OK", "FLUSHDB"), cmd("0", "EPHPM.FENCE", "other", f[0])})
	f = fences(t, rc, 2)
	runSteps(t, rc, []step{cmd("1", "EPHPM.FENCE", "r", f[1]), cmd("OK", "FLUSHALL")})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_, rc = restart(t, cfg) // a clean restart: the snapshot's floor
	after := fences(t, rc, 1)[0]
	runSteps(t, rc, []step{
		cmd("0", "EPHPM.FENCE", "r", f[1]),
		cmd("0", "EPHPM.FENCE", "third", f[0]),
		cmd("1", "EPHPM.FENCE", "r", after),
	})
}

// Distinct EPHPM.FENCE resources never leave the server without room for
// data: their records fold into the floor past their share of the limit.
func TestManyFenceResourcesLeaveRoomForData(t *testing.T) {
	const limit, n = 2 << 20, 40_000 // the records' bytes: about 1.5 times the limit
	_, addr := startServer(t, Config{Store: storeCfg(limit, limit/2)})
	rc := dial(t, "unix", addr)
	const batch = 1000
	for i := 0; i < n; i += batch {
		var b strings.Builder
		for j := i; j < i+batch; j++ {
			name, fence := fmt.Sprint("resource:", j), strconv.Itoa(j+1)
			fmt.Fprintf(&b, "*3\r\n$11\r\nEPHPM.FENCE\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", len(name), name, len(fence), fence)
		}
		if _, err := rc.c.Write([]byte(b.String())); err != nil {
			t.Fatal(err)
		}
		for j := i; j < i+batch; j++ {
			if got := rc.read(); got != "1" {
				t.Fatalf("EPHPM.FENCE resource:%d %d = %s", j, j+1, got)
			}
		}
	}
	stats := rc.do("EPHPM.STATS")
	held, err := strconv.Atoi(regexp.MustCompile(`"fences" (\d+)|$`).FindStringSubmatch(stats)[1])
	if err != nil || held == 0 || held >= n {
		t.Fatalf("EPHPM.STATS counts %d fence records of %d (%v): %s", held, n, err, stats)
	}
	if info := rc.do("INFO"); !strings.Contains(info, fmt.Sprintf(`fence_records:%d\r\n`, held)) {
		t.Fatalf("INFO does not count %d fence records: %s", held, info)
	}
	runSteps(t, rc, []step{
		cmd("OK", "SET", "data", strings.Repeat("x", limit/2)),
		cmd("1", "DBSIZE"),
		cmd("0", "EPHPM.FENCE", "resource:0", "0"),
		cmd("0", "EPHPM.FENCE", fmt.Sprint("resource:", n-1), strconv.Itoa(n-1)),
		cmd("1", "EPHPM.FENCE", fmt.Sprint("resource:", n-1), strconv.Itoa(n)),
	})
}
