--TEST--
Lock::acquire(autoRenew: true): a lock taken over turns isAcquired() false and its renewal stops, never touching the new holder's key
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ephpm_skip_on_etcd('sub-second TTLs'); ?>
--FILE--
<?php
declare(strict_types=1);
$lock = Ephpm\Lock::acquire('wd-lost', 0.3, 0, true, 60);
ephpm_kv_del('wd-lost');                      // forced delete
var_dump(ephpm_kv_setnx('wd-lost', 'new-holder', 5));
usleep(250000);                               // past the watchdog's next tick (0.1 s)
var_dump($lock->isAcquired(), $lock->remaining());
$left = ephpm_kv_ttl('wd-lost');
var_dump($left > 4.5 && $left <= 5.0);        // not cut to the watchdog's 0.3 s
// The lost flag, not the store, answers: even the old token back in the
// store does not make the lock ours again, and nothing renews that key.
ephpm_kv_set('wd-lost', $lock->token, 2);
usleep(250000);
var_dump($lock->isAcquired());
$left = ephpm_kv_ttl('wd-lost');
var_dump($left > 1.5 && $left <= 2.0);        // a running watchdog would have set 0.3
ephpm_kv_del('wd-lost');
?>
--EXPECT--
bool(true)
bool(false)
float(0)
bool(true)
bool(false)
bool(true)
