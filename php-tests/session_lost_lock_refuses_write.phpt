--TEST--
A request that outlives its session lock does not write, even if nobody took the lock yet
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
ephpm.session_lock_ttl=0.1
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
$id = 'slow' . str_repeat('e', 28);
ephpm_kv_set("session:$id", 'v|s:3:"old";');
session_id($id);
session_start();
$_SESSION['v'] = 'new';
ephpm_wait_expiry("session_lock:$id", 0.1, 0.2); // the request overruns its 0.1 s lock
var_dump(@session_write_close());
var_dump(ephpm_kv_get("session:$id"));
var_dump(error_get_last()['message']);
?>
--EXPECTF--
bool(true)
string(12) "v|s:3:"old";"
string(%d) "session_write_close(): Failed to write session data (ephpm)%s"
