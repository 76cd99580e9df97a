package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/ephpm/ephpm-kv/kv"
	"github.com/ephpm/ephpm-kv/shm"
)

// readMatches returns every match of re in file, failing when there is none.
func readMatches(t *testing.T, file, re string) [][]string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(re).FindAllStringSubmatch(string(src), -1)
	if len(m) == 0 {
		t.Fatalf("%s: nothing matches %s", file, re)
	}
	return m
}

// checkErrorCodes (in TestABIConstantsMatchGo): the C header's
// EPHPM_KV_E_* codes, Go's error table and the PHP names (Ephpm\KvException
// constants in the stub) must describe the same codes.
func checkErrorCodes(t *testing.T) {
	header := map[string]int32{}
	for _, m := range readMatches(t, "ephpm_kv_ops.h", `(?m)^#define EPHPM_KV_E_(\w+)\s+(\d+)`) {
		n, _ := strconv.Atoi(m[2])
		if _, dup := header[m[1]]; dup {
			t.Errorf("EPHPM_KV_E_%s defined twice", m[1])
		}
		header[m[1]] = int32(n)
	}
	seen := map[int32]string{}
	for name, code := range header {
		if other, dup := seen[code]; dup {
			t.Errorf("EPHPM_KV_E_%s and EPHPM_KV_E_%s are both %d", name, other, code)
		}
		seen[code] = name
	}

	covered := map[string]bool{"INTERNAL": true}
	for _, ec := range errorCodes {
		want, ok := header[ec.name]
		if !ok {
			t.Errorf("Go maps %v to %s, which the header does not define", ec.err, ec.name)
		} else if ec.code != want {
			t.Errorf("Go maps %v to %s = %d, the header says %d", ec.err, ec.name, ec.code, want)
		}
		covered[ec.name] = true
	}
	for _, e := range kv.Errors {
		if codeOf(e) == codeInternal {
			t.Errorf("%v has no EPHPM_KV_E_ code of its own: PHP would see INTERNAL", e)
		}
	}
	if header["INTERNAL"] != codeInternal {
		t.Errorf("codeInternal = %d, EPHPM_KV_E_INTERNAL = %d", codeInternal, header["INTERNAL"])
	}
	for name := range header {
		if !covered[name] {
			t.Errorf("EPHPM_KV_E_%s is in the header but no Go error maps to it", name)
		}
	}

	// Errors as engines return them: wrapped, with detail.
	samples := map[string]error{
		"INTERNAL":        errors.New("ephpm-kv server at x: ERR something unexpected"),
		"EMPTY_KEY":       kv.ErrEmptyKey,
		"KEY_TOO_LARGE":   fmt.Errorf("%w (server: ...)", kv.ErrKeyTooLarge),
		"VALUE_TOO_LARGE": fmt.Errorf("%w: 70000 bytes, the ephpm-kv server has --max-value-size 65536", kv.ErrValueTooLarge),
		"BAD_TTL":         fmt.Errorf("%w: -1 ns", kv.ErrBadTTL),
		"FULL":            fmt.Errorf("%w at the ephpm-kv server", kv.ErrFull),
		"NOT_INTEGER":     kv.ErrNotInteger,
		"OVERFLOW":        kv.ErrOverflow,
		"CONFIG":          configError{errors.New(`ephpm.server "unix:x": a unix socket path must be absolute`)},
		"UNAVAILABLE":     fmt.Errorf("%w: cannot reach the ephpm-kv server", kv.ErrUnavailable),
		"BAD_ARGUMENT":    fmt.Errorf("%w: permits must be 1 to 1024, got 0", kv.ErrBadArgument),
		"WRONG_TYPE":      fmt.Errorf("%w (server: WRONGTYPE ...)", kv.ErrWrongType),
		"CORRUPT":         fmt.Errorf("%w: the record of key %q fails its checksum", shm.ErrCorrupt, "k"),
	}
	for name, code := range header {
		err, ok := samples[name]
		if !ok {
			t.Errorf("no sample error for EPHPM_KV_E_%s: add one here", name)
			continue
		}
		if got := codeOf(err); got != code {
			t.Errorf("codeOf(%v) = %d, want EPHPM_KV_E_%s = %d", err, got, name, code)
		}
	}

	// The stub names each code after its EPHPM_KV_E_ suffix, bound to the
	// header by @cvalue, so PHP's values come from the header itself.
	php := map[string]bool{}
	for _, m := range readMatches(t, "../../ext/ephpm.stub.php", `@cvalue EPHPM_KV_E_(\w+)\s*\*/\s*public const (\w+) =`) {
		if m[1] != m[2] {
			t.Errorf("KvException::%s is bound to EPHPM_KV_E_%s", m[2], m[1])
		}
		php[m[2]] = true
	}
	for name := range header {
		if !php[name] {
			t.Errorf("Ephpm\\KvException has no constant %s for EPHPM_KV_E_%s", name, name)
		}
	}
	for name := range php {
		if _, ok := header[name]; !ok {
			t.Errorf("Ephpm\\KvException::%s names no EPHPM_KV_E_ code", name)
		}
	}
}
