--TEST--
Invalid byte sizes in ini settings are refused at startup with a warning
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.memory_limit=-5
; ephpm.memory_limit is the in-process map's limit
ephpm.shm_size=0
--FILE--
<?php
var_dump(ini_get('ephpm.memory_limit'));
var_dump(ephpm_kv_stats()['bytes_limit']);
?>
--EXPECTF--
Warning: PHP Startup: Invalid "ephpm.memory_limit" setting: must be at least 1024 bytes in %s
string(3) "64M"
int(67108864)
