--TEST--
A session id in a warning is shown whole, its NUL and control bytes escaped (\x00, \n), not cut at the NUL
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
ephpm.session_lock_wait=0.1
ephpm.session_lock_timeout=fail
--FILE--
<?php
$id = "busy\0id\x01" . str_repeat('d', 20);
ephpm_kv_set("session_lock:$id", 'other-request', 30);
session_id($id);
var_dump(session_start());
var_dump(ephpm_kv_get("session_lock:$id"));
?>
--EXPECTF--
Warning: session_start(): Could not lock session busy\x00id\x01dddddddddddddddddddd within 0.100 seconds (ephpm.session_lock_wait): another request holds it in %s on line %d

Warning: session_start(): Failed to read session data: ephpm (path: %s) in %s on line %d
bool(false)
string(13) "other-request"
