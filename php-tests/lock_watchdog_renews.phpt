--TEST--
Lock::acquire(autoRenew: true): a holder working 3x its TTL keeps the lock; release() stops the renewal and the key stays gone
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/mode.inc';
// etcd leases are whole seconds: the same test at 1 s
$ttl = ephpm_test_on_etcd() ? 1.0 : 0.3;
$lock = Ephpm\Lock::acquire('wd-renews', $ttl, 0, true, 60);
for ($i = 0; $i < 6; $i++) {
    usleep((int)($ttl * 1e6 / 2)); // 3 TTLs of work in all
    if (ephpm_kv_setnx('wd-renews', 'thief', 30)) {
        echo "taken after ", ($i + 1) / 2, " TTLs\n";
    }
}
var_dump($lock->isAcquired(), $lock->remaining() > 0);
var_dump($lock->release(), ephpm_kv_exists('wd-renews'));
usleep((int)($ttl * 1e6)); // a renewal would have run by now
var_dump(ephpm_kv_exists('wd-renews'), $lock->isAcquired());
// Nothing renews the released token any more: put it back with a long TTL
// (10 s: etcd reads whole seconds), which a running watchdog would cut to
// $ttl. The same after the destructor.
ephpm_kv_set('wd-renews', $lock->token, 10);
$dropped = Ephpm\Lock::acquire('wd-dropped', $ttl, 0, true, 60);
$token = $dropped->token;
unset($dropped);
ephpm_kv_set('wd-dropped', $token, 10);
usleep((int)($ttl * 1e6));
var_dump(ephpm_kv_ttl('wd-renews') > 5, ephpm_kv_ttl('wd-dropped') > 5);
ephpm_kv_del('wd-renews');
ephpm_kv_del('wd-dropped');
// without autoRenew the same work loses the lock (the test's control)
$plain = Ephpm\Lock::acquire('wd-plain', $ttl);
ephpm_wait_expiry('wd-plain', $ttl, 3 * $ttl);
var_dump(ephpm_kv_setnx('wd-plain', 'thief', 30), $plain->isAcquired());
ephpm_kv_del('wd-plain');
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
bool(true)
bool(false)
