package main

import (
	"math"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	ok := map[string]int64{
		"0": 0, "1": 1, "64M": 64 << 20, "64m": 64 << 20, "1K": 1024, "2g": 2 << 30,
		"9223372036854775807": math.MaxInt64, "8589934591G": 8589934591 << 30, "007": 7,
	}
	for in, want := range ok {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("%q = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{
		"", "M", "-1", "+1", " 1", "1 ", "1.5M", "1KB", "0x10", "1T", "9223372036854775808",
		"8589934592G", "9999999999999G", "99999999999999999999",
	} {
		if got, err := parseByteSize(in); err == nil {
			t.Errorf("%q accepted as %d", in, got)
		}
	}
	b := byteSize{min: 1}
	if err := b.Set("0"); err == nil {
		t.Error("0 accepted where the minimum is 1")
	}
}
