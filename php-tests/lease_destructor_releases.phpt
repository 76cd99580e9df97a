--TEST--
A ReadWriteLock or Semaphore that goes out of scope still held is released (also when an exception leaves its frame); one whose name was replaced is not touched
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
ephpm_kv_flush();
function forgetful(): void
{
    $w = Ephpm\ReadWriteLock::write('doc');
    $s = Ephpm\Semaphore::acquire('pool', 2);
    var_dump(Ephpm\Semaphore::holders('doc'), Ephpm\Semaphore::holders('pool'));
    // no release()
}
forgetful();
var_dump(Ephpm\Semaphore::holders('doc'), Ephpm\Semaphore::holders('pool'));

function failing(): void
{
    $r = Ephpm\ReadWriteLock::read('doc');
    throw new RuntimeException('work failed');
}
try {
    failing();
} catch (RuntimeException $e) {
    echo $e->getMessage(), "\n";
}
var_dump(Ephpm\Semaphore::holders('doc'));

$lost = Ephpm\Semaphore::acquire('pool', 2);
ephpm_kv_del('pool');
$other = Ephpm\Semaphore::acquire('pool', 2);
unset($lost);
var_dump(Ephpm\Semaphore::holders('pool'), $other->isAcquired());
?>
--EXPECT--
int(1)
int(1)
int(0)
int(0)
work failed
int(0)
int(1)
bool(true)
