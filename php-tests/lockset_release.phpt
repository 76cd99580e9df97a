--TEST--
Ephpm\LockSet: release() is true only if every member was still ours; a member lost (expired, taken by another) makes release, refresh and isAcquired false and the other holder's lock is not touched; a forgotten set is released
--SKIPIF--
<?php require __DIR__ . '/skipif.inc';
ephpm_skip_on_etcd('its members lose 0.3 s leases; etcd leases are whole seconds, expired up to 2 s late (lock_refresh covers a lost lease there)'); ?>
--FILE--
<?php
$set = Ephpm\Lock::acquireAll(['ls:a', 'ls:b', 'ls:c'], 0.3);
var_dump($set->get('ls:b')->refresh(30), $set->get('ls:c')->refresh(30));
usleep(500000);                                   // a expires
$other = Ephpm\Lock::acquire('ls:a', 30);         // and another takes it
var_dump($other !== null);
var_dump($set->isAcquired(), $set->refresh(30), $set->release());
var_dump(ephpm_kv_get('ls:a') === $other->token, $other->isAcquired());  // untouched
var_dump(ephpm_kv_exists('ls:b'), ephpm_kv_exists('ls:c'));              // ours: released
var_dump($set->release());                                               // already released
$other->release();

// refresh() renews every member, to the acquire TTL by default.
$set = Ephpm\Lock::acquireAll(['ls:a', 'ls:b'], 0.3);
usleep(150000);
var_dump($set->refresh());
usleep(200000);                                   // 0.35 s after acquiring
var_dump($set->isAcquired(), $set->refresh(30), $set->get('ls:a')->remaining() > 29);
var_dump($set->release(), $set->isAcquired(), $set->get('ls:a')->isAcquired());

function forgetful(): void
{
    $set = Ephpm\Lock::acquireAll(['ls:a', 'ls:b']);
    var_dump(ephpm_kv_exists('ls:a') && ephpm_kv_exists('ls:b'));
}
forgetful();
var_dump(ephpm_kv_exists('ls:a'), ephpm_kv_exists('ls:b'));

// Destroying the set releases a member the caller kept a reference to.
$set = Ephpm\Lock::acquireAll(['ls:a', 'ls:b']);
$kept = $set->get('ls:a');
unset($set);
var_dump($kept->isAcquired(), ephpm_kv_exists('ls:a'), $kept->release());
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
bool(false)
bool(true)
bool(false)
bool(false)
bool(false)
bool(false)
bool(false)
