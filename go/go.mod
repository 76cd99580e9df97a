module github.com/ephpm/ephpm-kv

go 1.26.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/puzpuzpuz/xsync/v4 v4.5.0
	// The Redis Cluster client only (remote/cluster.go: slot map, MOVED
	// and ASK); single-node Redis and ephpm-kv servers use remote's own
	// RESP client. Chosen over rueidis: the client the issue names first,
	// redis' own, kept up (v9.23, 2026), with a per-command NoRetry hook
	// that keeps a retried SET NX from reading its own first attempt as
	// "held"; rueidis always pipelines and retries reads on its own terms.
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
