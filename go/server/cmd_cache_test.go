package server

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// infoField is the value of name in an INFO reply.
func infoField(t *testing.T, info, name string) int64 {
	t.Helper()
	if u, err := strconv.Unquote(info); err == nil {
		info = u // as respConn renders a bulk
	}
	_, rest, ok := strings.Cut(info, "\r\n"+name+":")
	if !ok {
		t.Fatalf("INFO has no %s", name)
	}
	line, _, _ := strings.Cut(rest, "\r\n")
	n, err := strconv.ParseInt(line, 10, 64)
	if err != nil {
		t.Fatalf("INFO %s:%s", name, line)
	}
	return n
}

// EPHPM.SETEVICTABLE key value ms [NX]: a SET (ttl in ms, 0 none) of
// cache, refused as the other EPHPM commands refuse their arguments; with
// NX, nil over a live entry of either kind.
func TestSetEvictableCommand(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(1<<20, 1024)})
	runSteps(t, dial(t, "unix", addr), []step{
		cmd("OK", "EPHPM.SETEVICTABLE", "k", "v", "0"), cmd(`"v"`, "GET", "k"), cmd("-1", "PTTL", "k"),
		cmd("OK", "EPHPM.SETEVICTABLE", "k", "w", "5000"), cmd(`"w"`, "GET", "k"), cmd("5", "TTL", "k"),
		cmd("ERR value is not an integer or out of range", "EPHPM.SETEVICTABLE", "k", "v", "soon"),
		cmd("ERR invalid expire time in 'ephpm.setevictable' command", "EPHPM.SETEVICTABLE", "k", "v", "-1"),
		cmd("ERR wrong number of arguments for 'ephpm.setevictable' command", "EPHPM.SETEVICTABLE", "k", "v"),
		cmd("*", "EPHPM.SETEVICTABLE", "", "v", "0"),
		cmd("*", "EPHPM.SETEVICTABLE", "big", strings.Repeat("x", 1025), "0"),
		cmd("0", "EXISTS", "big"), cmd(`"w"`, "GET", "k"),
		cmd("(nil)", "EPHPM.SETEVICTABLE", "k", "x", "0", "NX"), cmd(`"w"`, "GET", "k"),
		cmd("OK", "SET", "lock", "token"), cmd("(nil)", "EPHPM.SETEVICTABLE", "lock", "x", "0", "nx"),
		cmd("OK", "EPHPM.SETEVICTABLE", "added", "a", "5000", "NX"), cmd(`"a"`, "GET", "added"), cmd("5", "TTL", "added"),
		cmd("ERR syntax error", "EPHPM.SETEVICTABLE", "k2", "v", "0", "XX"),
		cmd("ERR syntax error", "EPHPM.SETEVICTABLE", "k2", "v", "0", "NX", "NX"),
		cmd("0", "EXISTS", "k2"), cmd(`"token"`, "GET", "lock"),
	})
}

// The server's memory limit evicts cache: EPHPM.SETEVICTABLE writes of
// many times the limit all succeed, a lock taken before them and held
// keys written between them stay, INFO and EPHPM.STATS count what went;
// once held data fills the store, writes of either kind are OOM errors.
func TestServerEvictsCache(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(256<<10, 4096)})
	rc := dial(t, "unix", addr)
	runSteps(t, rc, []step{cmd("*", "EPHPM.SETNXFENCED", "lock", "token", "60000")})
	value := strings.Repeat("c", 1000)
	for i := range 1000 {
		if got := rc.do("EPHPM.SETEVICTABLE", fmt.Sprint("cache:", i), value, "0"); got != "OK" {
			t.Fatalf("evictable write %d: %s", i, got)
		}
		if i%100 == 0 {
			runSteps(t, rc, []step{cmd("OK", "SET", fmt.Sprint("held:", i), "h")})
		}
	}
	for i := 0; i < 1000; i += 100 {
		runSteps(t, rc, []step{cmd(`"h"`, "GET", fmt.Sprint("held:", i))})
	}
	runSteps(t, rc, []step{cmd("1", "DELIFEQ", "lock", "token"), cmd(`"`+value+`"`, "GET", "cache:999")})
	info := rc.do("INFO")
	evicted, evictable := infoField(t, info, "evicted_keys"), infoField(t, info, "bytes_evictable")
	if evicted < 700 || evictable < 200<<10 || evictable > infoField(t, info, "used_memory") {
		t.Fatalf("INFO: evicted_keys %d, bytes_evictable %d, used_memory %d", evicted, evictable, infoField(t, info, "used_memory"))
	}
	stats := strings.Fields(strings.Trim(rc.do("EPHPM.STATS"), "[]"))
	pairs := map[string]string{}
	for i := 0; i+1 < len(stats); i += 2 {
		pairs[stats[i]] = stats[i+1]
	}
	if pairs[`"evicted"`] != fmt.Sprint(evicted) || pairs[`"bytes_evictable"`] != fmt.Sprint(evictable) {
		t.Errorf("EPHPM.STATS %s, INFO evicted_keys %d, bytes_evictable %d", stats, evicted, evictable)
	}
	// Held writes take the cache's room, then are refused: 1000-byte
	// values, then 1-byte ones.
	held := 0
	for _, v := range []string{value, "h"} {
		for ; ; held++ {
			got := rc.do("SET", fmt.Sprint("fill:", held), v)
			if got == "OK" {
				continue
			}
			if !strings.HasPrefix(got, "OOM") {
				t.Fatalf("held write into a full store: %s", got)
			}
			break
		}
	}
	if held < 200 {
		t.Errorf("only %d held writes fitted in 256 KiB of cache", held)
	}
	info = rc.do("INFO")
	if n := infoField(t, info, "bytes_evictable"); n != 0 {
		t.Errorf("held writes refused with %d evictable bytes left", n)
	}
	if n := infoField(t, info, "evicted_keys"); n != 1000 {
		t.Errorf("evicted_keys %d with all 1000 evictable entries gone", n)
	}
	if got := rc.do("EPHPM.SETEVICTABLE", "late", "v", "0"); !strings.HasPrefix(got, "OOM") {
		t.Errorf("evictable write into a store full of held data: %s", got)
	}
	runSteps(t, rc, []step{cmd(`"h"`, "GET", "held:0"), cmd(`"`+value+`"`, "GET", "fill:0")})
}

// A snapshot keeps an evictable entry evictable ('C' frames, format 6):
// brought back held, a full cache would fill the restarted store with
// entries nothing may evict.
func TestSnapshotKeepsCacheEvictable(t *testing.T) {
	cfg := quietConfig(t.TempDir())
	cfg.Store = storeCfg(256<<10, 4096)
	s, rc := restart(t, cfg)
	runSteps(t, rc, []step{
		cmd("OK", "EPHPM.SETEVICTABLE", "cache", "c", "0"), cmd("OK", "EPHPM.SETEVICTABLE", "ttl", "t", "600000"),
		cmd("OK", "SET", "held", "h"),
	})
	before := infoField(t, rc.do("INFO"), "bytes_evictable")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, rc = restart(t, cfg)
	info := rc.do("INFO")
	if got := infoField(t, info, "bytes_evictable"); got != before || before == 0 {
		t.Fatalf("bytes_evictable %d after the restart, %d before", got, before)
	}
	if ttl, _ := strconv.Atoi(rc.do("TTL", "ttl")); ttl < 590 || ttl > 600 {
		t.Errorf("TTL of the restored evictable entry: %d", ttl)
	}
	value := strings.Repeat("c", 1000)
	for i := range 1000 {
		rc.do("EPHPM.SETEVICTABLE", fmt.Sprint("flood:", i), value, "0")
	}
	runSteps(t, rc, []step{cmd("0", "EXISTS", "cache"), cmd("0", "EXISTS", "ttl"), cmd(`"h"`, "GET", "held")})
	s.Close()

	// A format 5 file never holds 'C' frames: one that does is refused.
	s, rc = restart(t, cfg)
	runSteps(t, rc, []step{cmd("OK", "EPHPM.SETEVICTABLE", "cache", "c", "0")})
	s.Close()
	frames := snapFrames(mustRead(t, cfg.Snapshot))
	hasC := false
	for _, f := range frames {
		hasC = hasC || f.tag == 'C'
	}
	if !hasC {
		t.Fatal("no 'C' frame in the snapshot")
	}
	v5 := asFormat(mustRead(t, cfg.Snapshot), 5)
	if err := refused(t, cfg, v5, len(v5), "format 5 with a 'C' frame"); !strings.Contains(err.Error(), "in a format 5 file") {
		t.Errorf("refused for another reason: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
