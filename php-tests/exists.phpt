--TEST--
ephpm_kv_exists sees live entries only
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
var_dump(ephpm_kv_exists('k'));
ephpm_kv_set('k', '');
var_dump(ephpm_kv_exists('k'));
ephpm_kv_set('short', 'v', 0.05);
var_dump(ephpm_kv_exists('short'));
ephpm_wait_expiry('short', 0.05, 0.1);
var_dump(ephpm_kv_exists('short'));
?>
--EXPECT--
bool(false)
bool(true)
bool(true)
bool(false)
