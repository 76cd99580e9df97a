--TEST--
Ephpm\Lock::isAcquired and remaining follow expiry, release and replacement
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_etcd("its point is a 0.3 s lock's remaining() and expiry; etcd's are whole seconds (lock_refresh and lock_release cover a lost and a late-released lock there, Go's conformance suite remaining())"); ?>
--FILE--
<?php
$lock = Ephpm\Lock::acquire('job', 0.3);
var_dump($lock->isAcquired());
$left = $lock->remaining();
var_dump($left > 0.2 && $left <= 0.3);
usleep(350000);
var_dump($lock->isAcquired(), $lock->remaining());
$lock = Ephpm\Lock::acquire('job', 30);
ephpm_kv_set('job', 'replaced');
var_dump($lock->isAcquired(), $lock->remaining());
$lock = Ephpm\Lock::acquire('other', 30);
$lock->release();
var_dump($lock->isAcquired(), $lock->remaining());
?>
--EXPECT--
bool(true)
bool(true)
bool(false)
float(0)
bool(false)
float(0)
bool(false)
float(0)
