//go:build !race

package shm

// takeoverBound is how long a killed stripe owner may stop the others; see
// raceon_test.go.
const takeoverBound = 100e6
