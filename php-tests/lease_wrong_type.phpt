--TEST--
A name holding a plain value is WRONG_TYPE for ReadWriteLock, Semaphore and ephpm_kv_rate_limit (never overwritten), a lease name is WRONG_TYPE for the rate limiter and the reverse; a plain del frees a lease name
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
require_once __DIR__ . '/lease.inc';
ephpm_kv_flush();
ephpm_kv_set('plain', 'value');
echo 'read: ', ephpm_test_code_of(fn() => Ephpm\ReadWriteLock::read('plain')), "\n";
echo 'write: ', ephpm_test_code_of(fn() => Ephpm\ReadWriteLock::write('plain')), "\n";
echo 'write, waiting: ', ephpm_test_code_of(fn() => Ephpm\ReadWriteLock::write('plain', 30, 1)), "\n";
echo 'acquire: ', ephpm_test_code_of(fn() => Ephpm\Semaphore::acquire('plain', 3)), "\n";
echo 'holders: ', ephpm_test_code_of(fn() => Ephpm\Semaphore::holders('plain')), "\n";
echo 'rate_limit: ', ephpm_test_code_of(fn() => ephpm_kv_rate_limit('plain', 3, 1)), "\n";
var_dump(ephpm_kv_get('plain'));

$sem = Ephpm\Semaphore::acquire('leased', 3);
echo 'rate_limit on a lease: ', ephpm_test_code_of(fn() => ephpm_kv_rate_limit('leased', 3, 1)), "\n";
ephpm_kv_rate_limit('limited', 3, 10);
echo 'read on a rate log: ', ephpm_test_code_of(fn() => Ephpm\ReadWriteLock::read('limited')), "\n";
echo 'holders on a rate log: ', ephpm_test_code_of(fn() => Ephpm\Semaphore::holders('limited')), "\n";

// A plain del frees every holder (an admin's reset; a holder never does it).
var_dump(ephpm_kv_del('leased'), Ephpm\Semaphore::holders('leased'), $sem->isAcquired());
// A plain set replaces the lease set: its holders' leases went with it, as
// a Lock's does when its key is overwritten (false, not WRONG_TYPE).
$w = Ephpm\ReadWriteLock::write('replaced');
ephpm_kv_set('replaced', 'plain now');
echo 'holder over a plain value: ', ephpm_test_code_of(function () use ($w) {
    echo json_encode([$w->isAcquired(), $w->refresh(), $w->release()]), ', ';
}), "\n";
var_dump(ephpm_kv_get('replaced'));
$s = Ephpm\Semaphore::acquire('replaced2', 2);
ephpm_kv_del('replaced2');
ephpm_kv_rate_limit('replaced2', 5, 10);
unset($s); // no warning: nothing of its own to release
?>
--EXPECT--
read: WRONG_TYPE
write: WRONG_TYPE
write, waiting: WRONG_TYPE
acquire: WRONG_TYPE
holders: WRONG_TYPE
rate_limit: WRONG_TYPE
string(5) "value"
rate_limit on a lease: WRONG_TYPE
read on a rate log: WRONG_TYPE
holders on a rate log: WRONG_TYPE
int(1)
int(0)
bool(false)
holder over a plain value: [false,false,false], no exception
string(9) "plain now"
