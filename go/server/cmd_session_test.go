package server

import "testing"

func TestSessionCommands(t *testing.T) {
	_, addr := startServer(t, Config{Store: storeCfg(1<<20, 1024)})
	runSteps(t, dial(t, "unix", addr), []step{
		// The holder writes and renews; the data gets its own ttl.
		cmd("OK", "SET", "lock", "tok", "PX", "5000"),
		cmd("1", "EPHPM.SETIFLOCKED", "data", "v1", "60000", "lock", "tok", "30000"),
		cmd(`"v1"`, "GET", "data"), cmd("60", "TTL", "data"), cmd("30", "TTL", "lock"),
		// 0: no expiry.
		cmd("1", "EPHPM.SETIFLOCKED", "data", "v2", "0", "lock", "tok", "0"),
		cmd("-1", "TTL", "data"), cmd("-1", "TTL", "lock"),
		// Another token, or no lock: nothing written, the lock untouched.
		cmd("0", "EPHPM.SETIFLOCKED", "data", "v3", "0", "lock", "other", "30000"),
		cmd("-1", "TTL", "lock"), cmd(`"v2"`, "GET", "data"),
		cmd("1", "DEL", "lock"),
		cmd("0", "EPHPM.SETIFLOCKED", "data", "v3", "0", "lock", "tok", "30000"),
		cmd(`"v2"`, "GET", "data"), cmd("0", "EXISTS", "lock"),
		// Bad input.
		cmd("ERR wrong number of arguments for 'ephpm.setiflocked' command", "EPHPM.SETIFLOCKED", "data", "v", "0", "lock", "tok"),
		cmd("ERR value is not an integer or out of range", "EPHPM.SETIFLOCKED", "data", "v", "x", "lock", "tok", "0"),
		cmd("ERR value is not an integer or out of range", "EPHPM.SETIFLOCKED", "data", "v", "0", "lock", "tok", "x"),
		cmd("ERR invalid expire time in 'ephpm.setiflocked' command", "EPHPM.SETIFLOCKED", "data", "v", "-1", "lock", "tok", "0"),
		cmd("ERR invalid expire time in 'ephpm.setiflocked' command", "EPHPM.SETIFLOCKED", "data", "v", "0", "lock", "tok", "9223372036854775807"),
		cmd("ERR key must not be empty", "EPHPM.SETIFLOCKED", "", "v", "0", "lock", "tok", "0"),
		// A value over the limit: refused, and the lock not renewed.
		cmd("OK", "SET", "lock", "tok", "PX", "5000"),
		cmd("TOOLARGE value is too large: 2000 bytes, max_value_size is 1024", "EPHPM.SETIFLOCKED", "data", string(make([]byte, 2000)), "0", "lock", "tok", "60000"),
		cmd("5", "TTL", "lock"),
	})
}
