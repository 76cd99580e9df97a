--TEST--
ephpm_kv_ttl: seconds left as float, -1 without expiry, -2 when missing
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
var_dump(ephpm_kv_ttl('missing'));
ephpm_kv_set('forever', 'v');
var_dump(ephpm_kv_ttl('forever'));
ephpm_kv_set('k', 'v', 2.5);
$ttl = ephpm_kv_ttl('k');
// etcd: a lease of 3 s (rounded up), read in whole seconds
var_dump(is_float($ttl), $ttl > 2.4 - ephpm_test_ttl_slack() && $ttl <= (ephpm_test_on_etcd() ? 3 : 2.5));
ephpm_kv_set('short', 'v', 0.05);
ephpm_wait_expiry('short', 0.05, 0.1);
var_dump(ephpm_kv_ttl('short'));
?>
--EXPECT--
int(-2)
int(-1)
bool(true)
bool(true)
int(-2)
