--TEST--
ephpm_kv_stats counts keys, bytes, hits, misses, expired and compressed entries
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--INI--
ephpm.memory_limit=8M
ephpm.shm_size=0
--FILE--
<?php
$s = ephpm_kv_stats();
var_dump($s['engine'], $s['keys'], $s['bytes_used'], $s['bytes_limit'], $s['max_value_size'], $s['compress_min']);
ephpm_kv_set('a', 'value');
ephpm_kv_get('a');
ephpm_kv_get('a');
ephpm_kv_get('nope');
ephpm_kv_set('big', str_repeat('compress me ', 1000));
ephpm_kv_set('short', 'v', 0.05);
usleep(100000);
ephpm_kv_get('short');
$s = ephpm_kv_stats();
var_dump($s['keys'], $s['hits'], $s['misses'], $s['expired'], $s['compressed'], $s['rejected']);
var_dump($s['bytes_used'] > strlen('a') + strlen('value'), $s['bytes_used'] < 12000);
?>
--EXPECT--
string(3) "map"
int(0)
int(0)
int(8388608)
int(1048576)
int(1024)
int(2)
int(2)
int(2)
int(1)
int(1)
int(0)
bool(true)
bool(true)
