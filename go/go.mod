module github.com/ephpm/ephpm-kv

go 1.26.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/puzpuzpuz/xsync/v4 v4.5.0
)

// porcupine is the linearizability checker of go/lincheck, which only tests
// import: nothing built into libephpm_kv.so or ephpm-kv links it.
require github.com/anishathalye/porcupine v1.3.1
