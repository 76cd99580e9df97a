--TEST--
Session TTLs from ini: gc_maxlifetime past 100 years is capped with a warning, lock_ttl=1e-12 still expires, lock_wait=1e10 waits
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
session.gc_maxlifetime=18446744074
ephpm.session_lock_ttl=1e-12
ephpm.session_lock_wait=1e10
--FILE--
<?php
require __DIR__ . '/ttl_session.inc';
ttl_session_repros();
?>
--EXPECTF--
string(5) "1e-12"
lock_ttl 1e-12: the lock expires at once
lock_wait 1e10: waited for the holder, then took the lock

Warning: session_write_close(): session.gc_maxlifetime of 18446744074 seconds is more than ephpm-kv's maximum TTL; sessions expire after 3153600000 seconds (100 years) instead in %s on line %d
gc_maxlifetime 18446744074: capped at 100 years
