--TEST--
Ephpm\Semaphore: at most $permits holders; a released permit lets the next one in; holders() counts the live ones
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
declare(strict_types=1);
ephpm_kv_flush();
$held = [];
for ($i = 0; $i < 4; $i++) {
    $held[] = Ephpm\Semaphore::acquire('pool', 3);
}
echo implode(' ', array_map(fn($s) => $s === null ? 'refused' : 'granted', $held)), "\n";
var_dump(Ephpm\Semaphore::holders('pool'), $held[0]->permits, $held[0]->name);
var_dump(count(array_unique(array_map(fn($s) => $s?->token, array_slice($held, 0, 3)))));
var_dump($held[1]->release(), Ephpm\Semaphore::holders('pool'));
$next = Ephpm\Semaphore::acquire('pool', 3);
var_dump($next !== null, Ephpm\Semaphore::acquire('pool', 3));
// A permit of size 1 is a mutex; an empty name has no holders.
$mutex = Ephpm\Semaphore::acquire('one', 1);
var_dump($mutex !== null, Ephpm\Semaphore::acquire('one', 1), Ephpm\Semaphore::holders('nobody'));
?>
--EXPECT--
granted granted granted refused
int(3)
int(3)
string(4) "pool"
int(3)
bool(true)
int(2)
bool(true)
NULL
bool(true)
NULL
int(0)
