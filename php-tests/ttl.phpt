--TEST--
ephpm_kv_ttl: seconds left as float, -1 without expiry, -2 when missing
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
var_dump(ephpm_kv_ttl('missing'));
ephpm_kv_set('forever', 'v');
var_dump(ephpm_kv_ttl('forever'));
ephpm_kv_set('k', 'v', 2.5);
$ttl = ephpm_kv_ttl('k');
var_dump(is_float($ttl), $ttl > 2.4 && $ttl <= 2.5);
ephpm_kv_set('short', 'v', 0.05);
usleep(100000);
var_dump(ephpm_kv_ttl('short'));
?>
--EXPECT--
int(-2)
int(-1)
bool(true)
bool(true)
int(-2)
