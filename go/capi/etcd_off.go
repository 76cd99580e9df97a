//go:build ephpm_noetcd

package main

import (
	"errors"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
)

// The memcheck lane's library (Makefile, VG_LIB) leaves etcd out: the
// package inits of its client (gRPC, protobuf) were 0.6 s of every PHP
// process's first call under memcheck, and that lane runs the shm engine.
func etcdEngine(url, password string, timeout time.Duration) (kv.Engine, error) {
	return nil, errors.New("ephpm.server: this build of the library has no etcd engine (built with -tags ephpm_noetcd)")
}
