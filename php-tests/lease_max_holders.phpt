--TEST--
A name takes at most 1024 holders: the 1025th reader is a KvException FULL that says so (no memory setting to raise), never a refusal; holders already in can still renew and leave
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
ephpm_kv_flush();
$readers = [];
for ($i = 0; $i < 1024; $i++) {
    $readers[] = Ephpm\ReadWriteLock::read('crowd', 60);
}
var_dump(count(array_filter($readers)), Ephpm\Semaphore::holders('crowd'));
try {
    Ephpm\ReadWriteLock::read('crowd', 60);
    echo "no exception\n";
} catch (Ephpm\KvException $e) {
    var_dump($e->getCode() === Ephpm\KvException::FULL);
    echo str_contains($e->getMessage(), 'one name takes at most 1024 holders') ? 'says why' : $e->getMessage(), "\n";
    echo str_contains($e->getMessage(), 'memory') ? 'names a memory setting' : 'names no memory setting', "\n";
}
var_dump($readers[0]->refresh(), $readers[1]->release(), Ephpm\ReadWriteLock::read('crowd', 60) !== null);
?>
--EXPECT--
int(1024)
int(1024)
bool(true)
says why
names no memory setting
bool(true)
bool(true)
bool(true)
