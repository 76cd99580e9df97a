--TEST--
ReadWriteLock and Semaphore fences strictly increase with every grant, across names and with Ephpm\Lock's (one counter); a holder renewed by refresh() keeps its fence
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
$last = 0;
$ok = true;
$grants = [
    fn() => Ephpm\ReadWriteLock::read('a'),
    fn() => Ephpm\ReadWriteLock::read('a'),
    fn() => Ephpm\Lock::acquire('b'),
    fn() => Ephpm\Semaphore::acquire('c', 2),
    fn() => Ephpm\Semaphore::acquire('c', 2),
    fn() => Ephpm\ReadWriteLock::write('d'),
    fn() => Ephpm\Lock::acquire('e'),
];
$held = [];
foreach ($grants as $i => $grant) {
    $held[] = $h = $grant();
    if (!($h->fence > $last)) {
        echo "grant $i: fence {$h->fence} after $last\n";
        $ok = false;
    }
    $last = $h->fence;
}
var_dump($ok);
$before = $held[5]->fence;
var_dump($held[5]->refresh(60), $held[5]->fence === $before);
foreach ($held as $h) {
    $h->release();
}
var_dump(Ephpm\ReadWriteLock::write('a')->fence > $last);
?>
--EXPECT--
bool(true)
bool(true)
bool(true)
bool(true)
