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
	// libephpm_kv.so (README, Outgrowing one host).
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

// porcupine is the linearizability checker of go/lincheck, which only tests
// import: nothing built into libephpm_kv.so or ephpm-kv links it.
require github.com/anishathalye/porcupine v1.3.1
