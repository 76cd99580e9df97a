--TEST--
Ephpm\Semaphore and ReadWriteLock release by token only: releasing one holder frees only its own entry, twice is false, and a holder whose lease ran out cannot release, renew or see as its own the permit someone else took since
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/lease.inc';
ephpm_kv_flush();
$a = Ephpm\Semaphore::acquire('s', 2);
$b = Ephpm\Semaphore::acquire('s', 2);
var_dump($a->release(), $a->release(), $a->isAcquired(), $a->refresh());
var_dump($b->isAcquired(), Ephpm\Semaphore::holders('s'));

// Expired: the store dropped $old's entry and a new holder took its place.
$ttl = ephpm_test_short_ttl();
$old = Ephpm\Semaphore::acquire('t', 1, $ttl);
ephpm_test_outlive($ttl);
$new = Ephpm\Semaphore::acquire('t', 1, 30);
var_dump($new !== null, $old->isAcquired(), $old->refresh(), $old->release());
var_dump($new->isAcquired(), Ephpm\Semaphore::holders('t'));

// The same for a reader and a writer.
$reader = Ephpm\ReadWriteLock::read('rw', $ttl);
ephpm_test_outlive($ttl);
$writer = Ephpm\ReadWriteLock::write('rw', 30);
var_dump($writer !== null, $reader->release(), $writer->isAcquired());
?>
--EXPECT--
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
int(1)
bool(true)
bool(false)
bool(false)
bool(false)
bool(true)
int(1)
bool(true)
bool(false)
bool(true)
