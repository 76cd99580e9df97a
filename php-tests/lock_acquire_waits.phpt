--TEST--
Ephpm\Lock::acquire waits up to $wait seconds: gets a lock that expires meanwhile, gives up on one that does not
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
// On etcd the key outlives its 0.15 s by up to its whole-second lease plus
// the leader's revocation (mode.inc): a longer wait, and a bound from that
// lateness, still well short of the wait (returning only at its end fails).
[$wait, $bound] = ephpm_test_on_etcd() ? [8, 4.5] : [2, 1.5];
ephpm_kv_set('job', 'someone', 0.15);
$start = microtime(true);
$lock = Ephpm\Lock::acquire('job', 10, $wait);
$took = microtime(true) - $start;
var_dump($lock !== null, $took >= 0.14 && $took < $bound ?: $took);

$start = microtime(true);
var_dump(Ephpm\Lock::acquire('job', 10, 0.2));
$took = microtime(true) - $start;
var_dump($took >= 0.19 && $took < 1.5 ?: $took);
?>
--EXPECT--
bool(true)
bool(true)
NULL
bool(true)
