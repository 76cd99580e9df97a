package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ephpm/ephpm-kv/kv"
)

// The stats names every surface uses are kv.StatsFields' (the server and
// the remote client use the table itself); here the C and PHP sides and
// the README are held to it.

func statsNames() []string {
	var names []string
	for _, f := range kv.StatsFields {
		names = append(names, f.Name)
	}
	return names
}

// section returns the part of file between the first match of start and
// the first "end" after it.
func section(t *testing.T, file, start, end string) string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i := strings.Index(text, start)
	if i < 0 {
		t.Fatalf("%s: no %q", file, start)
	}
	j := strings.Index(text[i:], end)
	if j < 0 {
		t.Fatalf("%s: no %q after %q", file, end, start)
	}
	return text[i : i+j]
}

// struct ephpm_kv_stats: the table's names, in its order, int64_t each
// (ephpmKvStats writes the struct as an array of them).
func TestStatsStructMatchesGo(t *testing.T) {
	body := section(t, "ephpm_kv_ops.h", "typedef struct ephpm_kv_stats {", "} ephpm_kv_stats;")
	var members []string
	for _, line := range strings.Split(body, "\n")[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		m := regexp.MustCompile(`^int64_t (\w+);(\s*/\*.*\*/)?$`).FindStringSubmatch(line)
		if m == nil {
			t.Errorf("ephpm_kv_stats member %q is not an int64_t counter", line)
			continue
		}
		members = append(members, m[1])
	}
	if want := statsNames(); !slices.Equal(members, want) {
		t.Errorf("struct ephpm_kv_stats members %v, kv.StatsFields %v", members, want)
	}
}

// ephpm_kv_stats() returns "engine" and then each counter under its name,
// from the struct member of that name.
func TestStatsArrayKeysMatchGo(t *testing.T) {
	body := section(t, "../../ext/ephpm_kv_functions.c", "PHP_FUNCTION(ephpm_kv_stats)", "\n}\n")
	var keys []string
	for _, m := range regexp.MustCompile(`add_assoc_(\w+)\(return_value, "(\w+)", ([^;]*)\);`).FindAllStringSubmatch(body, -1) {
		keys = append(keys, m[2])
		if m[1] != "long" {
			continue
		}
		if member := strings.TrimPrefix(m[3], "st."); member != m[2] {
			t.Errorf("ephpm_kv_stats()[%q] is %s", m[2], m[3])
		}
	}
	if want := append([]string{"engine"}, statsNames()...); !slices.Equal(keys, want) {
		t.Errorf("ephpm_kv_stats() keys %v, want %v", keys, want)
	}
}

// The README's function table lists the same keys.
func TestStatsREADMEMatchesGo(t *testing.T) {
	row := section(t, "../../README.md", "| `ephpm_kv_stats(): array` |", "\n")
	row = strings.TrimPrefix(row, "| `ephpm_kv_stats(): array` |")
	row = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(row, "") // a key's values, such as engine's
	var keys []string
	for _, m := range regexp.MustCompile("`(\\w+)`").FindAllStringSubmatch(row, -1) {
		keys = append(keys, m[1])
	}
	if want := append([]string{"engine"}, statsNames()...); !slices.Equal(keys, want) {
		t.Errorf("README lists ephpm_kv_stats() keys %v, want %v", keys, want)
	}
}
