--TEST--
Ephpm\Lock::release is compare-and-delete and idempotent; it cannot free the next holder's lock
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
$lock = Ephpm\Lock::acquire('job');
var_dump($lock->release());
var_dump($lock->release());           // twice: nothing left to release
var_dump(ephpm_kv_exists('job'));

$a = Ephpm\Lock::acquire('job', 0.1);
ephpm_wait_expiry('job', 0.1, 0.15);   // A overruns its lease
$b = Ephpm\Lock::acquire('job', 30);  // B takes over
var_dump($a->release());              // A's late release is a no-op
var_dump($b->isAcquired(), ephpm_kv_get('job') === $b->token);
?>
--EXPECT--
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
