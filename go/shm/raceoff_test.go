//go:build !race

package shm

// takeoverBound: see raceon_test.go.
const takeoverBound = 100e6
