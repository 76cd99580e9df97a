--TEST--
ReadWriteLock, Semaphore and Lock: readonly properties replaced or unset through ArrayObject, ArrayIterator or array_walk() (which bypass readonly) change nothing the holder does: it renews and releases its own name with its own token, and no crash or stray read
--SKIPIF--
<?php require __DIR__ . '/skipif.inc'; ?>
--FILE--
<?php
require_once __DIR__ . '/lease.inc';
ephpm_kv_flush();
$take = [
    'rw' => fn() => Ephpm\ReadWriteLock::write('doc', 30),
    'sem' => fn() => Ephpm\Semaphore::acquire('pool', 1, 30),
    'lock' => fn() => Ephpm\Lock::acquire('job', 30),
];
$tamper = [
    'ArrayObject' => function (object $o): void {
        $a = new ArrayObject($o);
        $a['name'] = 5;
        unset($a['token']);
    },
    'ArrayIterator' => function (object $o): void {
        $a = new ArrayIterator($o);
        $a['token'] = [];
        $a['name'] = 'other';
    },
    'array_walk' => function (object $o): void {
        array_walk($o, function (&$v, $k) {
            if ($k === 'name' || $k === 'token') {
                $v = 'x';
            }
        });
    },
];
foreach ($take as $what => $fn) {
    foreach ($tamper as $how => $t) {
        $held = $fn();
        try {
            $t($held);
        } catch (Error $e) {
            // refused: nothing was changed
        }
        $r = [$held->isAcquired(), $held->refresh(), $held->release(), $fn() !== null];
        echo "$what $how: ", json_encode($r), "\n";
        unset($held);
    }
}
// Dropped after tampering: the destructor releases the real name.
$held = $take['sem']();
$tamper['ArrayObject']($held);
unset($held);
var_dump(Ephpm\Semaphore::holders('pool'));
?>
--EXPECT--
rw ArrayObject: [true,true,true,true]
rw ArrayIterator: [true,true,true,true]
rw array_walk: [true,true,true,true]
sem ArrayObject: [true,true,true,true]
sem ArrayIterator: [true,true,true,true]
sem array_walk: [true,true,true,true]
lock ArrayObject: [true,true,true,true]
lock ArrayIterator: [true,true,true,true]
lock array_walk: [true,true,true,true]
int(0)
