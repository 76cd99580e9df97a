package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

func TestMaxProcs(t *testing.T) {
	for _, c := range []struct {
		env    string
		numCPU int
		want   int
	}{
		{"", 1, 1},
		{"", 2, 2},
		{"", 64, 2},
		{"8", 64, 0}, // the environment's choice is kept
		{"1", 64, 0},
	} {
		if got := maxProcs(c.env, c.numCPU); got != c.want {
			t.Errorf("maxProcs(%q, %d) = %d, want %d", c.env, c.numCPU, got, c.want)
		}
	}
}

// The cap is applied when the runtime starts (the test binary runs the same
// init as the library), GOMAXPROCS from the environment is honoured, and the
// environment is not changed either way.
func TestGOMAXPROCSAtStart(t *testing.T) {
	if os.Getenv("EPHPM_KV_PRINT_PROCS") != "" {
		fmt.Printf("procs=%d env=%q\n", runtime.GOMAXPROCS(0), os.Getenv("GOMAXPROCS"))
		os.Exit(0)
	}
	for _, env := range []string{"", "3"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGOMAXPROCSAtStart$")
		cmd.Env = append(withoutEnv("GOMAXPROCS"), "EPHPM_KV_PRINT_PROCS=1")
		want := fmt.Sprintf("procs=%d env=\"\"", min(2, runtime.NumCPU()))
		if env != "" {
			cmd.Env = append(cmd.Env, "GOMAXPROCS="+env)
			want = fmt.Sprintf("procs=%s env=%q", env, env)
		}
		out, err := cmd.CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != want {
			t.Errorf("GOMAXPROCS=%q: got %q (%v), want %q", env, out, err, want)
		}
	}
}

func withoutEnv(name string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, name+"=") {
			env = append(env, kv)
		}
	}
	return env
}
