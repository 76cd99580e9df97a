--TEST--
Ephpm\ReadWriteLock: readers share a name, a writer excludes readers and other writers, each holder has its own token and fence
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
ephpm_kv_flush(); // from an empty store: the server runs share one store between tests
$r1 = Ephpm\ReadWriteLock::read('doc');
$r2 = Ephpm\ReadWriteLock::read('doc');
var_dump($r1 instanceof Ephpm\ReadWriteLock, $r2 instanceof Ephpm\ReadWriteLock);
var_dump($r1->name, $r1->mode, (bool) preg_match('/^[0-9a-f]{32}$/', $r1->token), $r1->token !== $r2->token);
var_dump(Ephpm\Semaphore::holders('doc'));
echo 'writer while two readers: ', var_export(Ephpm\ReadWriteLock::write('doc'), true), "\n";
var_dump($r1->release());
echo 'writer while one reader: ', var_export(Ephpm\ReadWriteLock::write('doc'), true), "\n";
var_dump($r2->release(), Ephpm\Semaphore::holders('doc'));

$w = Ephpm\ReadWriteLock::write('doc');
var_dump($w->mode, $w->isAcquired());
echo 'reader while a writer: ', var_export(Ephpm\ReadWriteLock::read('doc'), true), "\n";
echo 'writer while a writer: ', var_export(Ephpm\ReadWriteLock::write('doc'), true), "\n";
var_dump($w->release(), $w->release(), $w->isAcquired());
$r = Ephpm\ReadWriteLock::read('doc');
var_dump($r->isAcquired(), $r->fence > $w->fence);
// Another name is another lock.
var_dump(Ephpm\ReadWriteLock::write('other') !== null);
?>
--EXPECT--
bool(true)
bool(true)
string(3) "doc"
string(4) "read"
bool(true)
bool(true)
int(2)
writer while two readers: NULL
bool(true)
writer while one reader: NULL
bool(true)
int(0)
string(5) "write"
bool(true)
reader while a writer: NULL
writer while a writer: NULL
bool(true)
bool(false)
bool(false)
bool(true)
bool(true)
bool(true)
