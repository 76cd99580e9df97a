--TEST--
ephpm_kv_setnx: false only while a live entry exists
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
var_dump(ephpm_kv_setnx('lock', 'a', 0.2));
var_dump(ephpm_kv_setnx('lock', 'b', 30));
var_dump(ephpm_kv_get('lock'));
ephpm_wait_expiry('lock', 0.2, 0.3);
var_dump(ephpm_kv_setnx('lock', 'b', 30)); // expired counts as absent
var_dump(ephpm_kv_get('lock'));
ephpm_kv_set('persistent', 'x');
var_dump(ephpm_kv_setnx('persistent', 'y'));
?>
--EXPECT--
bool(true)
bool(false)
string(1) "a"
bool(true)
string(1) "b"
bool(false)
