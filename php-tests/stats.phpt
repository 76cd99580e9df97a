--TEST--
ephpm_kv_stats names the engine the settings select and counts keys, bytes, hits, misses, expired and compressed entries
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_redis("a Redis reports its own memory, limits and no compression (its stats are checked by the Go suite against Redis)");
ephpm_skip_on_etcd('etcd counts no expired or compressed entries and reports its default quota as the limit (go/etcdkv/README.md, Stats)'); ?>
--INI--
ephpm.memory_limit=8M
--FILE--
<?php
require __DIR__ . '/mode.inc';
$mode = ephpm_test_mode();
$engines = ['map' => 'map', 'shm' => 'shm', 'server' => 'server'];
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
$s0 = ephpm_kv_stats();
echo $s0['engine'] === $engines[$mode] ? "engine: as the mode selects\n" : "engine {$s0['engine']} in $mode mode\n";
// ephpm.memory_limit is the in-process map's; a server has --memory-limit
// and a segment its ephpm.shm_size
var_dump($mode === 'map' ? $s0['bytes_limit'] === 8 << 20 : $s0['bytes_limit'] > 0);
var_dump($s0['keys'], $s0['bytes_used'], $s0['max_value_size'], $s0['compress_min']);
ephpm_kv_set('a', 'value');
ephpm_kv_get('a');
ephpm_kv_get('a');
ephpm_kv_get('nope');
ephpm_kv_set('big', str_repeat('compress me ', 1000));
ephpm_kv_set('short', 'v', 0.05);
usleep(100000);
ephpm_kv_get('short');
$s = ephpm_kv_stats();
// hits, misses, expired and rejected count since the store started: a
// shared store (server) has counted other tests' calls too
var_dump($s['keys'], $s['hits'] - $s0['hits'], $s['misses'] - $s0['misses'], $s['expired'] - $s0['expired'],
    $s['compressed'], $s['rejected'] - $s0['rejected']);
var_dump($s['bytes_used'] > strlen('a') + strlen('value'), $s['bytes_used'] < 12000);
?>
--EXPECT--
engine: as the mode selects
bool(true)
int(0)
int(0)
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
