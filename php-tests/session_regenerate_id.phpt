--TEST--
session_regenerate_id moves the data to a new ID, drops the old one and its lock
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
$old = session_id();
$_SESSION['x'] = 'kept';
var_dump(session_regenerate_id(true));
$new = session_id();
var_dump($new !== $old);
var_dump(ephpm_kv_exists("session:$old"), ephpm_kv_exists("session_lock:$old"));
var_dump(ephpm_kv_exists("session_lock:$new"));
session_write_close();
var_dump(ephpm_kv_get("session:$new"), ephpm_kv_exists("session_lock:$new"));
?>
--EXPECT--
bool(true)
bool(true)
bool(false)
bool(false)
bool(true)
string(13) "x|s:4:"kept";"
bool(false)
