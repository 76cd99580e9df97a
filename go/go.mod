module github.com/ephpm/ephpm-kv

go 1.26.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/puzpuzpuz/xsync/v4 v4.5.0
	// The Redis Cluster client only (remote/cluster.go: slot map, MOVED
	// and ASK); single-node Redis and ephpm-kv servers use remote's own
	// RESP client. Chosen over rueidis (also kept up, by the same org):
	// the issue names it first, its Cmder's NoRetry turns off the cluster
	// client's resend after a network error per command (a resent SET NX
	// would read its own first attempt as "held"), and it was already in
	// the module cache; rueidis was not measured. It adds ~4 MB to
	// libephpm_kv.so (docs/backends.md).
	github.com/redis/go-redis/v9 v9.23.0
	go.etcd.io/etcd/api/v3 v3.5.35
	// v3.5: Debian 12's etcd-server is 3.4.23; the 3.5 client line is the one etcd supports against 3.4 servers (one minor ahead), and the one the tests run on (go/etcdkv/README.md).
	go.etcd.io/etcd/client/v3 v3.5.35
	go.uber.org/zap v1.17.0
	google.golang.org/grpc v1.83.2
)

// x/sys (already in the build, through gRPC): go/lincheck's etcd tests read
// CLOCK_MONOTONIC, the clock of the PHP workers' hrtime().
require golang.org/x/sys v0.49.0

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coreos/go-semver v0.3.0 // indirect
	github.com/coreos/go-systemd/v22 v22.3.2 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	go.etcd.io/etcd/client/pkg/v3 v3.5.35 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.uber.org/multierr v1.6.0 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260803160001-6ac0973c030d // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260803160001-6ac0973c030d // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

// porcupine is the linearizability checker of go/lincheck, which only tests
// import: nothing built into libephpm_kv.so or ephpm-kv links it.
require github.com/anishathalye/porcupine v1.3.1
