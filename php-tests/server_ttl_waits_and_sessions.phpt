--TEST--
Server mode: huge waits wait, and session TTL settings are capped, rounded up or saturated, never wrapped
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_run_once('brings its own ephpm-kv server');
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/ttl_server.inc';
require __DIR__ . '/ttl_session.inc';
$server = ttl_server_start();
echo ttl_server_child($server, [], 'require "' . __DIR__ . '/ttl_waits.inc"; ttl_huge_waits();');
echo ttl_server_child($server, TTL_SESSION_INI, 'require "' . __DIR__ . '/ttl_session.inc"; ttl_session_repros();');
ttl_server_stop($server);
?>
--EXPECTF--
9223372035: acquired after the holder expired
10000000000.0: acquired after the holder expired
9.223372036854776E+18: acquired after the holder expired
1.0E+300: acquired after the holder expired
9223372036854775807: acquired after the holder expired
string(5) "1e-12"
lock_ttl 1e-12: the lock expires at once
lock_wait 1e10: waited for the holder, then took the lock

Warning: session_write_close(): session.gc_maxlifetime of 18446744074 seconds is more than ephpm-kv's maximum TTL; sessions expire after 3153600000 seconds (100 years) instead in %s on line %d
gc_maxlifetime 18446744074: capped at 100 years
