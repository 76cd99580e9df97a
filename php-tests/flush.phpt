--TEST--
ephpm_kv_flush empties the store and its accounting
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_redis("a Redis's bytes_used is its whole used_memory, never 0 (the flush itself is checked by the Go suite against Redis)"); ?>
--FILE--
<?php
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
for ($i = 0; $i < 100; $i++) {
    ephpm_kv_set("k$i", str_repeat('x', 2000));
}
$before = ephpm_kv_stats();
var_dump($before['keys'], $before['bytes_used'] > 0);
var_dump(ephpm_kv_flush());
$after = ephpm_kv_stats();
var_dump($after['keys'], $after['bytes_used'], $after['compressed'], ephpm_kv_get('k1'));
?>
--EXPECT--
int(100)
bool(true)
bool(true)
int(0)
int(0)
int(0)
NULL
