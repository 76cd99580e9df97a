--TEST--
A large compressible value is stored compressed, round-trips, and still matches del_if_eq
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_redis("a Redis stores values as given, never compressed (del_if_eq on large values is checked by the Go suite against Redis)");
ephpm_skip_on_etcd('etcd stores values as given, never compressed (del_if_eq is covered there by del_if_eq and abc_lock_scenario)'); ?>
--FILE--
<?php
$value = str_repeat('{"user":42,"cart":[1,2,3],"flash":null}', 20000); // ~800 KB
ephpm_kv_set('session', $value);
$s = ephpm_kv_stats();
var_dump($s['compressed'], $s['bytes_used'] < strlen($value) / 4);
var_dump(ephpm_kv_get('session') === $value);
var_dump(ephpm_kv_del_if_eq('session', substr($value, 1) . 'x'));
var_dump(ephpm_kv_del_if_eq('session', $value));
var_dump(ephpm_kv_stats()['compressed']);
?>
--EXPECT--
int(1)
bool(true)
bool(true)
bool(false)
bool(true)
int(0)
