package main

import (
	"os"
	"runtime"
)

// Every PHP process that uses the store starts a Go runtime of its own, and
// a php-fpm pool has many: left at its default (every core), each one's
// scheduler may grow that many threads for work that comes from one PHP
// thread at a time. So the library caps GOMAXPROCS when it starts, unless
// the GOMAXPROCS environment variable chose a value; the environment is
// left as it was, so scripts and the processes they start see no change.
const phpMaxProcs = 2

func init() {
	if n := maxProcs(os.Getenv("GOMAXPROCS"), runtime.NumCPU()); n > 0 {
		runtime.GOMAXPROCS(n)
	}
}

// maxProcs returns the GOMAXPROCS to set, or 0 to keep the runtime's.
func maxProcs(env string, numCPU int) int {
	if env != "" {
		return 0
	}
	return min(phpMaxProcs, numCPU)
}
