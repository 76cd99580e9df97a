--TEST--
Session data expires after session.gc_maxlifetime
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
session.gc_maxlifetime=1
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
session_start();
$id = session_id();
$_SESSION['x'] = 1;
session_write_close();
$ttl = ephpm_kv_ttl("session:$id");
var_dump($ttl > 0.9 - ephpm_test_ttl_slack() && $ttl <= 1);
ephpm_wait_expiry("session:$id", 1, 1.1);
var_dump(ephpm_kv_exists("session:$id"));
session_start();
var_dump($_SESSION, session_gc()); // expiry did the collecting
?>
--EXPECT--
bool(true)
bool(false)
array(0) {
}
int(0)
