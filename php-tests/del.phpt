--TEST--
ephpm_kv_del returns the number of live entries deleted
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
ephpm_kv_set('k', 'v');
var_dump(ephpm_kv_del('k'));
var_dump(ephpm_kv_del('k'));
var_dump(ephpm_kv_get('k'));
ephpm_kv_set('short', 'v', 0.05);
usleep(100000);
var_dump(ephpm_kv_del('short')); // expired: nothing live was deleted
?>
--EXPECT--
int(1)
int(0)
NULL
int(0)
