--TEST--
ephpm_kv_expire sets, replaces and (with 0) removes a ttl on a live key
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
var_dump(ephpm_kv_expire('missing', 10));
ephpm_kv_set('k', 'v');
var_dump(ephpm_kv_expire('k', 10));
$ttl = ephpm_kv_ttl('k');
var_dump($ttl > 9.9 - ephpm_test_ttl_slack() && $ttl <= 10);
var_dump(ephpm_kv_expire('k', 0));
var_dump(ephpm_kv_ttl('k'));
var_dump(ephpm_kv_expire('k', 0.05));
ephpm_wait_expiry('k', 0.05, 0.1);
var_dump(ephpm_kv_get('k'));
var_dump(ephpm_kv_expire('k', 10)); // an expired key cannot be revived
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
bool(true)
int(-1)
bool(true)
NULL
bool(false)
