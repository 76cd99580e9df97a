--TEST--
Ephpm\Lock::refresh renews for the owner only and reports a lost lock
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/mode.inc';
ephpm_kv_flush(); // from an empty store: the server run shares one store between tests
$lock = Ephpm\Lock::acquire('job', 0.2);
var_dump($lock->refresh(5));
$left = $lock->remaining();
var_dump($left > 4.9 - ephpm_test_ttl_slack() && $left <= 5);
var_dump($lock->refresh());             // back to the acquire TTL
var_dump($lock->remaining() <= 0.2);
ephpm_wait_expiry('job', 0.2, 0.25);
var_dump($lock->refresh());             // expired: lost, cannot be revived
var_dump($lock->isAcquired(), $lock->remaining());

$stolen = Ephpm\Lock::acquire('stolen', 30);
ephpm_kv_set('stolen', 'someone else');
var_dump($stolen->refresh(), ephpm_kv_get('stolen'));
$stolen->release();
var_dump($stolen->refresh());           // after release

try {
    $lock->refresh(0);
} catch (ValueError $e) {
    echo $e->getMessage(), "\n";
}
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
float(0)
bool(false)
string(12) "someone else"
bool(false)
Ephpm\Lock::refresh(): Argument #1 ($ttl) must be greater than 0
