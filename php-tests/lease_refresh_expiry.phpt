--TEST--
ReadWriteLock and Semaphore: an expired permit is reclaimed (a full semaphore admits again), refresh() keeps a holder past its first ttl, isAcquired() leaves the lease's expiry where it was
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/lease.inc';
ephpm_kv_flush();
$ttl = ephpm_test_short_ttl();
$crashed = Ephpm\Semaphore::acquire('pool', 2, $ttl); // a holder that never releases
$kept = Ephpm\Semaphore::acquire('pool', 2, $ttl);
var_dump(Ephpm\Semaphore::acquire('pool', 2));
var_dump($kept->refresh(30));
ephpm_test_outlive($ttl);
var_dump(Ephpm\Semaphore::holders('pool'), $kept->isAcquired(), $crashed->isAcquired());
$reclaimed = Ephpm\Semaphore::acquire('pool', 2);
var_dump($reclaimed !== null, Ephpm\Semaphore::acquire('pool', 2));

// isAcquired() does not extend the lease: polled past the ttl, it turns false.
$r = Ephpm\ReadWriteLock::read('polled', $ttl);
$end = microtime(true) + $ttl + (ephpm_test_on_etcd() ? 2.0 : 0.1);
$seen = [];
while (microtime(true) < $end) {
    $seen[] = $r->isAcquired();
    usleep(20000);
}
// (on etcd a lease may end up to about a second late: the writer waits that out)
var_dump($seen[0], end($seen), Ephpm\ReadWriteLock::write('polled', 30, ephpm_test_on_etcd() ? 3 : 0) !== null);
// refresh() with the default is the acquire ttl again.
$w = Ephpm\ReadWriteLock::write('rw', $ttl);
var_dump($w->refresh(), $w->refresh(30));
ephpm_test_outlive($ttl);
var_dump($w->isAcquired(), Ephpm\ReadWriteLock::read('rw'));
?>
--EXPECT--
NULL
bool(true)
int(1)
bool(true)
bool(false)
bool(true)
NULL
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
NULL
