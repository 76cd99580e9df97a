--TEST--
session_destroy deletes the data and releases the lock
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
--FILE--
<?php
session_start();
$id = session_id();
$_SESSION['x'] = 1;
session_write_close();
session_start();
var_dump(ephpm_kv_exists("session:$id"), ephpm_kv_exists("session_lock:$id"));
var_dump(session_destroy());
var_dump(ephpm_kv_exists("session:$id"), ephpm_kv_exists("session_lock:$id"));
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
