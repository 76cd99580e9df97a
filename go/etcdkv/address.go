package etcdkv

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

const addressForm = "use etcd://host1:port1,host2:port2,host3:port3 (every member of the cluster, or some of them)"

// ParseAddress turns an ephpm.server value of the form
// etcd://[user@]host1:port1,host2:port2 into the members' endpoints and the
// user name (empty: no authentication). Anything else is refused with a
// message that names ephpm.server and the accepted form.
func ParseAddress(url string) (endpoints []string, user string, err error) {
	bad := func(why string) ([]string, string, error) {
		return nil, "", fmt.Errorf("ephpm.server %q: %s; %s", url, why, addressForm)
	}
	rest, ok := strings.CutPrefix(url, "etcd://")
	if !ok {
		return bad("not an etcd:// address")
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		user, rest = rest[:at], rest[at+1:]
		if user == "" {
			return bad("empty user name before @")
		}
	}
	if rest == "" {
		return bad("no member given")
	}
	for _, hp := range strings.Split(rest, ",") {
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" {
			return bad(fmt.Sprintf("member %q is not host:port", hp))
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return bad(fmt.Sprintf("member %q: port must be 1..65535", hp))
		}
		endpoints = append(endpoints, hp)
	}
	return endpoints, user, nil
}
