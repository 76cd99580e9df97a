package kv

import "testing"

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, key string
		want         bool
	}{
		{"", "anything", true},
		{"*", "", true},
		{"lock:*", "lock:a/b", true},
		{"lock:*", "lok:a", false},
		{"l?ck", "lock", true},
		{"l?ck", "lck", false},
		{"[ab]x", "bx", true},
		{"[^ab]x", "bx", false},
		{"[a-c]x", "cx", true},
		{"[c-a]x", "bx", true},
		{"a\\*b", "a*b", true},
		{"a\\*b", "axb", false},
		{"*:*:*", "a:b:c", true},
		{"*a", "bbbb", false},
		{"[abc", "a", true},
	} {
		if got := Match(c.pattern, c.key); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.key, got, c.want)
		}
	}
	// Many stars against a long key: bounded, not exponential.
	if Match("*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa") {
		t.Error("matched a key without b")
	}
}
