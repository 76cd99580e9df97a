package etcdkv

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// The tests run against real etcd members (Debian's etcd-server), on
// loopback, started by build/etcd-cluster.sh. EPHPM_ETCD_PORT moves the
// ports (base and base+10, for the fault tests' own cluster).

// cluster is a 3-member etcd cluster the test started.
type cluster struct {
	dir       string
	endpoints []string
}

// portBase is EPHPM_ETCD_PORT, or 0: etcd-cluster.sh then picks free ports
// itself (fixed ones collide with any other etcd on the machine, such as
// another test binary's or a bench's).
func portBase() int {
	if p, err := strconv.Atoi(os.Getenv("EPHPM_ETCD_PORT")); err == nil {
		return p
	}
	return 0
}

// startCluster starts three members, with env (ETCD_* settings) added to
// theirs; stop stops them and removes their data.
func startCluster(base int, env ...string) (*cluster, error) {
	tmp := "/dev/shm" // etcd fsyncs every commit: tmpfs keeps that cheap
	if _, err := os.Stat(tmp); err != nil {
		tmp = ""
	}
	dir, err := os.MkdirTemp(tmp, "ephpm-etcd-")
	if err != nil {
		return nil, err
	}
	port := "auto"
	if base != 0 {
		port = strconv.Itoa(base)
	}
	cmd := exec.Command(script(), "start", dir, port)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		os.RemoveAll(dir)
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		return nil, fmt.Errorf("etcd-cluster.sh start: %v: %s", err, stderr)
	}
	return &cluster{dir: dir, endpoints: strings.Split(strings.TrimSpace(string(out)), ",")}, nil
}

func (c *cluster) stop() {
	exec.Command(script(), "stop", c.dir).Run()
	os.RemoveAll(c.dir)
}

// pid is member i's (1..3) process.
func (c *cluster) pid(t *testing.T, i int) int {
	b, err := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("m%d", i), "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func script() string {
	p, _ := filepath.Abs("../../build/etcd-cluster.sh")
	return p
}

var shared *cluster // the conformance tests' cluster

func TestMain(m *testing.M) {
	// The conformance checks run in parallel (kvtest.Target.Parallel) and
	// mostly wait out 1 s leases, not for a CPU: more of them at once
	// than -parallel's default (GOMAXPROCS), unless -parallel was given.
	flag.Parse()
	if f := flag.Lookup("test.parallel"); f != nil && f.Value.String() == f.DefValue {
		flag.Set("test.parallel", "8")
	}
	c, err := startCluster(portBase())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared = c
	code := m.Run()
	c.stop()
	os.Exit(code)
}

var prefixes atomic.Int64

// newTestEngine is an engine on cl under a prefix of its own, so tests do
// not see one another's keys (and Flush stays in it).
func newTestEngine(t *testing.T, cl *cluster, cfg Config) *Engine {
	t.Helper()
	cfg.Endpoints = cl.endpoints
	if cfg.Prefix == "" {
		cfg.Prefix = fmt.Sprintf("test/%d-%d/", os.Getpid(), prefixes.Add(1))
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
