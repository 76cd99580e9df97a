--TEST--
A request whose session lock was replaced under it neither writes nor releases the new holder's lock
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
--FILE--
<?php
session_id('victim' . str_repeat('b', 26));
session_start();
$_SESSION['v'] = 'first';
session_write_close();

session_start();
$id = session_id();
// The lock expires and another request takes it while this one still runs.
ephpm_kv_set("session_lock:$id", 'new-holder-token', 30);
$_SESSION['v'] = 'stale overwrite';
var_dump(session_write_close()); // PHP reports failed writes as warnings only
var_dump(ephpm_kv_get("session_lock:$id"));  // the new holder keeps its lock
var_dump(ephpm_kv_get("session:$id"));       // and its data is not clobbered
?>
--EXPECTF--
Warning: session_write_close(): Session victimbbbbbbbbbbbbbbbbbbbbbbbbbb was not written: its lock expired (ephpm.session_lock_ttl = 30.000 seconds) and another request may hold it now in %s on line %d

Warning: session_write_close(): Failed to write session data (ephpm). Please verify that the current setting of session.save_path is correct (%s) in %s on line %d
bool(true)
string(16) "new-holder-token"
string(14) "v|s:5:"first";"
