--TEST--
ephpm.session_locking=0 takes no lock
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
ephpm.session_locking=0
--FILE--
<?php
session_start();
$id = session_id();
var_dump(ephpm_kv_exists("session_lock:$id"));
$_SESSION['x'] = 1;
var_dump(session_write_close(), ephpm_kv_get("session:$id"));
?>
--EXPECT--
bool(false)
bool(true)
string(6) "x|i:1;"
