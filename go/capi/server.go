package main

/*
#include "ops_go.h"
*/
import "C"

import (
	"errors"
	"strings"
	"time"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/remote"
)

// serverEngine is the engine for ephpm.server: the one place where its
// address chooses a backend. An ephpm-kv server, a Valkey or a Redis all
// speak RESP (remote learns which answers); unix://, tcp://, redis:// and
// rediss:// go there; etcd:// to an etcd cluster. Anything it refuses is
// a configuration error.
func serverEngine(url, password string, timeout time.Duration, tls remote.TLSFiles) (kv.Engine, error) {
	var (
		e   kv.Engine
		err error
	)
	switch {
	case remote.IsClusterAddress(url):
		// A Redis Cluster: redis-cluster://h1:p1,h2:p2 (rediss-cluster://).
		e, err = remote.NewCluster(url, password, timeout, tls)
	case strings.HasPrefix(url, "etcd://"):
		if tls != (remote.TLSFiles{}) {
			return nil, configError{errors.New("ephpm.server: etcd:// does not take TLS settings yet (ephpm.server_tls_*)")}
		}
		e, err = etcdEngine(url, password, timeout)
	default:
		e, err = remote.New(url, password, timeout, remote.RawSyscalls(), remote.WithTLS(tls))
		// Lock watchdogs renew on a connection of their own, with Go's
		// netpoller (a raw wait would keep a P from PHP's thread).
		renewerFactory = func() (kv.Engine, error) { return remote.New(url, password, timeout, remote.WithTLS(tls)) }
	}
	if err != nil {
		return nil, configError{err}
	}
	return e, nil
}

//export ephpmKvConfigureServerTLS
func ephpmKvConfigureServerTLS(url *C.ephpm_cchar, urlLen C.size_t, password *C.ephpm_cchar, passwordLen C.size_t, timeout C.int64_t, tls *C.ephpm_ctls, cerr *C.ephpm_kv_error) (rc C.int) {
	defer recoverInto(cerr, &rc)
	var files remote.TLSFiles
	if tls != nil {
		files = tlsFiles(C.GoString(tls.ca_file), C.GoString(tls.cert_file), C.GoString(tls.key_file),
			C.GoString(tls.server_name), tls.verify_peer != 0)
	}
	err := startWith(func() (kv.Engine, error) {
		return serverEngine(cString(url, urlLen), cString(password, passwordLen), time.Duration(timeout), files)
	})
	return boolRC(false, err, cerr)
}

// tlsFiles is struct ephpm_kv_tls in Go.
func tlsFiles(ca, cert, key, serverName string, verifyPeer bool) remote.TLSFiles {
	return remote.TLSFiles{CAFile: ca, CertFile: cert, KeyFile: key, ServerName: serverName, SkipVerify: !verifyPeer}
}
