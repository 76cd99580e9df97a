package etcdkv

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseAddress(t *testing.T) {
	good := []struct {
		url       string
		endpoints []string
		user      string
	}{
		{"etcd://127.0.0.1:2379", []string{"127.0.0.1:2379"}, ""},
		{"etcd://a:1,b:2,c:3", []string{"a:1", "b:2", "c:3"}, ""},
		{"etcd://[::1]:2379,h:2379", []string{"[::1]:2379", "h:2379"}, ""},
		{"etcd://app@a:1,b:2", []string{"a:1", "b:2"}, "app"},
	}
	for _, g := range good {
		eps, user, err := ParseAddress(g.url)
		if err != nil || !reflect.DeepEqual(eps, g.endpoints) || user != g.user {
			t.Errorf("%s: %v, %q, %v", g.url, eps, user, err)
		}
	}
	for _, bad := range []string{"", "etcd://", "etcd:/a:1", "redis://a:1", "etcd://a", "etcd://a:1,", "etcd://a:1,,b:2",
		"etcd://a:0", "etcd://a:65536", "etcd://a:x", "etcd://:1", "etcd://@a:1", "etcd://a:1 ", "etcd://::1:2379"} {
		_, _, err := ParseAddress(bad)
		if err == nil || !strings.Contains(err.Error(), "ephpm.server") || !strings.Contains(err.Error(), "etcd://host1:port1") {
			t.Errorf("%q: %v, want a refusal that names ephpm.server and the form", bad, err)
		}
	}
}

// Authentication needs both a user (etcd://user@...) and a password
// (ephpm.server_password): either alone is refused, since the client would
// silently not authenticate.
func TestAuthNeedsUserAndPassword(t *testing.T) {
	for _, c := range []struct{ url, password string }{{"etcd://app@a:1", ""}, {"etcd://a:1", "secret"}} {
		if _, err := NewFromURL(c.url, c.password, 0); err == nil || !strings.Contains(err.Error(), "ephpm.server_password") {
			t.Errorf("%s with password %q: %v", c.url, c.password, err)
		}
	}
	if _, err := NewFromURL("etcd://app@a:1", "secret", 0); err != nil {
		t.Errorf("user and password: %v", err)
	}
}
