--TEST--
Ephpm\Lock::acquireAll is all or nothing: one member held elsewhere gives null and leaves none held; $wait is one deadline for the whole set, not per member
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_etcd('its points are members freed after 0.2-0.6 s within a 1.2 s deadline; etcd leases are whole seconds, expired up to 2 s late (lockset_order and lockset_no_deadlock cover acquireAll there)'); ?>
--FILE--
<?php
ephpm_kv_set('ls:b', 'other holder', 30);
var_dump(Ephpm\Lock::acquireAll(['ls:c', 'ls:a', 'ls:b'], 30));
// a was taken before b was found held: released again; c never taken
var_dump(ephpm_kv_exists('ls:a'), ephpm_kv_exists('ls:c'), ephpm_kv_get('ls:b'));

// Members held elsewhere that expire within the wait: the set gets them.
ephpm_kv_set('ls:a', 'other holder', 0.2);
ephpm_kv_set('ls:b', 'other holder', 0.4);
$start = microtime(true);
$set = Ephpm\Lock::acquireAll(['ls:b', 'ls:a'], 30, 5);
$took = microtime(true) - $start;
var_dump($set?->isAcquired(), $took >= 0.35 && $took < 3);
var_dump($set->release());

// One deadline: a is freed after 0.6 s of a 1.2 s wait, b stays held. Per
// member, b would then get its own 1.2 s (1.8 s in all); the set gives up
// at 1.2 s, and the a it took meanwhile is released.
ephpm_kv_set('ls:a', 'other holder', 0.6);
ephpm_kv_set('ls:b', 'other holder', 30);
$start = microtime(true);
$set = Ephpm\Lock::acquireAll(['ls:a', 'ls:b'], 30, 1.2);
$took = microtime(true) - $start;
var_dump($set, $took >= 1.15 && $took < 1.6 ?: $took);
var_dump(ephpm_kv_exists('ls:a'), ephpm_kv_get('ls:b'));
ephpm_kv_del('ls:b');
?>
--EXPECT--
NULL
bool(false)
bool(false)
string(12) "other holder"
bool(true)
bool(true)
bool(true)
NULL
bool(true)
bool(false)
string(12) "other holder"
