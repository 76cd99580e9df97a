module github.com/ephpm/ephpm-kv

go 1.26.0

require (
	github.com/klauspost/compress v1.20.4
	github.com/puzpuzpuz/xsync/v4 v4.5.0
)

require github.com/anishathalye/porcupine v1.3.1
