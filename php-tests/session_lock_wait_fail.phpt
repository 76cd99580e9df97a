--TEST--
With ephpm.session_lock_timeout=fail a held lock makes session_start fail after the wait
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
$id = 'busy' . str_repeat('d', 28);
ephpm_kv_set("session_lock:$id", 'other-request', 30);
session_id($id);
var_dump(session_start());
var_dump(session_status() === PHP_SESSION_ACTIVE);
var_dump(ephpm_kv_get("session_lock:$id"));
?>
--EXPECTF--
Warning: session_start(): Could not lock session busydddddddddddddddddddddddddddd within 0.100 seconds (ephpm.session_lock_wait): another request holds it in %s on line %d

Warning: session_start(): Failed to read session data: ephpm (path: %s) in %s on line %d
bool(false)
bool(false)
string(13) "other-request"
