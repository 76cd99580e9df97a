--TEST--
Server mode: every TTL over the whole int and float range is refused with a ValueError or honoured to the millisecond (a positive one never becomes "no expiry")
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
if (!is_executable(__DIR__ . '/../build/ephpm-kv')) die('skip build/ephpm-kv not built'); ?>
--FILE--
<?php
require __DIR__ . '/ttl_server.inc';
$server = ttl_server_start();
// ms on the wire, rounded up; PTTL rounds to the nearest ms
echo ttl_server_child($server, [], 'require "' . __DIR__ . '/ttl_range.inc"; ttl_range_check(0.002);');
ttl_server_stop($server);
?>
--EXPECT--
ephpm_kv_set: ok
ephpm_kv_setnx: ok
ephpm_kv_incr: ok
ephpm_kv_expire: ok
ephpm_kv_expire_if_eq: ok
Lock::acquire: ok
Lock::refresh: ok
