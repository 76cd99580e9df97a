package remote

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// maxUnixPath is the longest socket path a sockaddr_un holds (108 bytes
// with the terminating NUL).
const maxUnixPath = 107

// addressForms ends every refusal. The redis:// forms are left out: the
// message must fit the C ABI's 256 bytes with the address in it.
const addressForms = "use unix:///path/to.sock (or unix:/path/to.sock, or the bare /path/to.sock) " +
	"or tcp://host:port (or host:port)"

// ParseAddress turns an ephpm.server value into a network and an address.
// Accepted: unix:///abs.sock, unix:/abs.sock, /abs.sock, tcp://host:port and
// host:port ([::1]:port for IPv6), and redis://host[:port] (port 6379 when
// left out), the form Valkey and Redis users write, or rediss:// for TLS
// (network "tls": TCP, then a TLS handshake); which server answers
// (ephpm-kv, Valkey or Redis) is learned when connected, whatever the form.
// Anything else is refused with a message
// that names ephpm.server and the accepted forms, never guessed at.
func ParseAddress(url string) (network, addr string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("ephpm.server %q: %s; %s", url, why, addressForms)
	}
	switch {
	case url == "":
		return bad("empty")
	case strings.TrimSpace(url) != url:
		// a path may hold spaces, but one at either end is a typo that
		// would only show later as "no such file"
		return bad("spaces around the address")
	case strings.HasPrefix(url, "unix:"):
		path := strings.TrimPrefix(url, "unix:")
		if rest, ok := strings.CutPrefix(path, "//"); ok {
			if !strings.HasPrefix(rest, "/") {
				return bad("unix:// takes an absolute path, so it has three slashes (unix:///run/ephpm-kv.sock)")
			}
			path = rest
		}
		return unixAddress(path, bad)
	case strings.HasPrefix(url, "/"):
		return unixAddress(url, bad)
	case strings.HasPrefix(url, "redis:"), strings.HasPrefix(url, "rediss:"):
		scheme, hostport, _ := strings.Cut(url, ":")
		hostport, ok := strings.CutPrefix(hostport, "//")
		if !ok {
			return bad(scheme + " addresses are written " + scheme + "://host:port")
		}
		if strings.ContainsAny(hostport, "/@?") {
			return bad("a redis:// address here is only host and port (no user, password or database: " +
				"the password goes in ephpm.server_password)")
		}
		if bracketed := strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]"); bracketed || !strings.Contains(hostport, ":") {
			hostport += ":6379" // Redis's port
		}
		network, addr, err := tcpAddress(hostport, bad)
		if err == nil && scheme == "rediss" {
			network = "tls" // TCP, then a TLS handshake
		}
		return network, addr, err
	case strings.HasPrefix(url, "tcp:"):
		hostport, ok := strings.CutPrefix(url, "tcp://")
		if !ok {
			return bad("tcp addresses are written tcp://host:port")
		}
		return tcpAddress(hostport, bad)
	case strings.Contains(url, "://"):
		return bad("unknown scheme " + strconv.Quote(url[:strings.Index(url, "://")]))
	case strings.Contains(url, ":"):
		return tcpAddress(url, bad)
	}
	return bad("not an address (a unix socket path must be absolute)")
}

func unixAddress(path string, bad func(string) (string, string, error)) (string, string, error) {
	switch {
	case !strings.HasPrefix(path, "/"):
		return bad("a unix socket path must be absolute")
	case len(path) > maxUnixPath:
		return bad(fmt.Sprintf("a unix socket path can have at most %d bytes", maxUnixPath))
	case strings.ContainsRune(path, 0):
		return bad("the path contains a NUL byte")
	}
	return "unix", path, nil
}

func tcpAddress(hostport string, bad func(string) (string, string, error)) (string, string, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		if strings.Count(hostport, ":") > 1 && !strings.HasPrefix(hostport, "[") {
			return bad("an IPv6 address goes in brackets ([::1]:7379)")
		}
		return bad("expected host:port (" + err.Error() + ")")
	}
	if host == "" {
		return bad("the host is missing (tcp://127.0.0.1:7379)")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || port[0] < '0' || port[0] > '9' {
		return bad("the port must be a number from 1 to 65535")
	}
	return "tcp", hostport, nil
}
