--TEST--
Invalid byte sizes in ini settings are refused at startup with a warning
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.memory_limit=-5
--FILE--
<?php
var_dump(ini_get('ephpm.memory_limit'));
require __DIR__ . '/mode.inc';
// only the in-process map is limited by ephpm.memory_limit
var_dump(ephpm_test_mode() !== 'map' || ephpm_kv_stats()['bytes_limit'] === 64 << 20);
?>
--EXPECTF--
Warning: PHP Startup: Invalid "ephpm.memory_limit" setting: must be at least 1024 bytes in %s
string(3) "64M"
bool(true)
