--TEST--
An unusable store makes session_start throw at once instead of spinning for the lock wait
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
session.save_handler=ephpm
session.use_cookies=0
session.cache_limiter=
session.use_strict_mode=0
ephpm.library=/nonexistent/libephpm_kv.so
ephpm.session_lock_wait=30
--FILE--
<?php
$start = microtime(true);
try {
    session_start();
    echo "no exception\n";
} catch (Ephpm\KvException $e) {
    echo get_class($e), ': ', $e->getMessage(), "\n";
}
var_dump(microtime(true) - $start < 5);
?>
--EXPECTF--
Ephpm\KvException: ephpm-kv: cannot load the library /nonexistent/libephpm_kv.so: %s
bool(true)
