--TEST--
ephpm.compress_min=0 stores every value as is
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_in_modes(['server'], 'ephpm.compress_min does not reach a server (it has --compress-min)'); ?>
--INI--
ephpm.compress_min=0
--FILE--
<?php
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
$value = str_repeat('a', 100000);
ephpm_kv_set('k', $value);
$s = ephpm_kv_stats();
var_dump($s['compressed'], $s['compress_min'], $s['bytes_used'] > strlen($value));
var_dump(ephpm_kv_get('k') === $value);
?>
--EXPECT--
int(0)
int(0)
bool(true)
bool(true)
