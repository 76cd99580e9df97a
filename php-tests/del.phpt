--TEST--
ephpm_kv_del returns the number of live entries deleted
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_set('k', 'v');
var_dump(ephpm_kv_del('k'));
var_dump(ephpm_kv_del('k'));
var_dump(ephpm_kv_get('k'));
ephpm_kv_set('short', 'v', 0.05);
ephpm_wait_expiry('short', 0.05, 0.1);
var_dump(ephpm_kv_del('short')); // expired: nothing live was deleted
?>
--EXPECT--
int(1)
int(0)
NULL
int(0)
