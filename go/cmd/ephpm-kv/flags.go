package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// usageError is a bad command line: main exits 2 for it, as flag does.
// printed: flag already printed the message and the usage.
type usageError struct {
	error
	printed bool
}

func usagef(format string, args ...any) error {
	return usageError{error: fmt.Errorf(format, args...)}
}

// byteSize is a size flag such as 64M: digits and an optional K, M or G
// (powers of 1024). min is the smallest value that means something.
type byteSize struct {
	n   int64
	min int64
}

func (b *byteSize) String() string {
	if b == nil {
		return "0"
	}
	return strconv.FormatInt(b.n, 10)
}

// Set refuses what cannot be represented instead of wrapping it.
func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	if n < b.min {
		return fmt.Errorf("%d is below the smallest meaningful value, %d", n, b.min)
	}
	b.n = n
	return nil
}

var errNotSize = errors.New("want a whole number of bytes, optionally followed by K, M or G (e.g. 64M)")

func parseByteSize(s string) (int64, error) {
	digits, mult := s, int64(1)
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult != 1 {
			digits = s[:len(s)-1]
		}
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, errNotSize // also refuses signs and spaces
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%s is too large (at most %d bytes)", s, int64(math.MaxInt64))
	}
	return n * mult, nil
}
