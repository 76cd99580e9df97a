--TEST--
Ephpm\Lock::acquire waits up to $wait seconds: gets a lock that expires meanwhile, gives up on one that does not
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
ephpm_kv_set('job', 'someone', 0.15);
$start = microtime(true);
$lock = Ephpm\Lock::acquire('job', 10, 2);
$took = microtime(true) - $start;
var_dump($lock !== null, $took >= 0.14 && $took < 1.5);

$start = microtime(true);
var_dump(Ephpm\Lock::acquire('job', 10, 0.2));
$took = microtime(true) - $start;
var_dump($took >= 0.19 && $took < 1.5);
?>
--EXPECT--
bool(true)
bool(true)
NULL
bool(true)
