package server

// The session family: what the extension's session handler needs in one
// round trip where Redis would need several (or a Lua script).

// EPHPM.SETIFLOCKED key value ms lockkey token lockms: a session's write.
// While lockkey's live value equals token, renews it to lockms and then
// sets key to value with ms (0 = no expiry): :1. Otherwise writes nothing:
// :0. What is atomic is Store.SetIfLocked's to say. A client that also
// releases pipelines DELIFEQ lockkey token after it.
func cmdSetIfLocked(s *Server, c *conn, a [][]byte) {
	ttl, ok := msArg(c, a[3], a)
	if !ok {
		return
	}
	lockTTL, ok := msArg(c, a[6], a)
	if !ok {
		return
	}
	replyBool(c)(s.store.SetIfLocked(key(a[1]), a[2], ttl, key(a[4]), a[5], lockTTL, false))
}
