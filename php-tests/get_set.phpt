--TEST--
ephpm_kv_get / ephpm_kv_set: round trip, overwrite, null when absent
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
var_dump(ephpm_kv_get('k'));
var_dump(ephpm_kv_set('k', 'one'));
var_dump(ephpm_kv_get('k'));
var_dump(ephpm_kv_set('k', 'two', 60));
var_dump(ephpm_kv_get('k'));
var_dump(ephpm_kv_set('empty', ''));
var_dump(ephpm_kv_get('empty'));
// set without a ttl replaces the old ttl too
ephpm_kv_set('k', 'three');
var_dump(ephpm_kv_ttl('k'));
?>
--EXPECT--
NULL
bool(true)
string(3) "one"
bool(true)
string(3) "two"
bool(true)
string(0) ""
int(-1)
