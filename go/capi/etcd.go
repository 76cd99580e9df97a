//go:build !ephpm_noetcd

package main

import (
	"time"

	"github.com/ephpm/ephpm-kv/etcdkv"
	"github.com/ephpm/ephpm-kv/kv"
)

func etcdEngine(url, password string, timeout time.Duration) (kv.Engine, error) {
	return etcdkv.NewFromURL(url, password, timeout)
}
